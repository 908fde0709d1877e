package dialect

import "fmt"

// MD5Hex renders the lowercase hexadecimal MD5 digest of the text x (NULL
// stays NULL), as governance hash masks need. DuckDB and PostgreSQL spell
// it md5(text); a dialect spelling it differently implements
// `MD5Hex(x string) string` (Trino: to_hex over varbinary, upper case).
func MD5Hex(d Dialect, x string) string {
	if h, ok := d.(interface{ MD5Hex(string) string }); ok {
		return h.MD5Hex(x)
	}
	return "md5(" + x + ")"
}

// MD5Hex spells md5 for Trino, whose md5 takes and returns varbinary.
// Source: Trino docs, "Binary functions" (md5, to_hex, to_utf8).
func (trino) MD5Hex(x string) string {
	return fmt.Sprintf("lower(to_hex(md5(to_utf8(%s))))", x)
}
