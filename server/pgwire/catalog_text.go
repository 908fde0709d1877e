package pgwire

import (
	"strings"
)

// readPrivilege answers the has_*_privilege functions for privilege
// list priv ('SELECT', 'usage', 'INSERT, UPDATE'): what a caller sees
// it may read (SELECT, USAGE, CONNECT, EXECUTE) and nothing it may
// change, since the endpoint is read-only. Metabase reads these to
// decide which tables to sync and which it may write.
func readPrivilege(priv any) any {
	p, ok := priv.(string)
	if !ok {
		return nil
	}
	for _, one := range strings.Split(p, ",") {
		one = strings.TrimSpace(strings.TrimSuffix(strings.ToLower(strings.TrimSpace(one)), "with grant option"))
		switch one {
		case "select", "usage", "connect", "execute", "temporary", "temp":
		default:
			return false
		}
	}
	return true
}

// formatText is PostgreSQL's format() (9.4, String Functions) for the
// specifiers clients send: %s (NULL as empty), %I (an identifier,
// quoted when it needs it), %L (a literal, NULL unquoted) and %%;
// positions (%1$s) and widths are refused. A NULL format is NULL.
func formatText(args []any) (any, error) {
	if len(args) == 0 || args[0] == nil {
		return nil, nil
	}
	f := textValue(oidText, args[0])
	var b strings.Builder
	next := 1
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			b.WriteByte(f[i])
			continue
		}
		i++
		if i == len(f) {
			return nil, refusef(codeFeature, "format(): unterminated format specifier")
		}
		if f[i] == '%' {
			b.WriteByte('%')
			continue
		}
		if next >= len(args) {
			return nil, &sqlError{Code: codeInvalidParam, Message: "format(): too few arguments"}
		}
		v := args[next]
		next++
		switch f[i] {
		case 's':
			if v != nil {
				b.WriteString(textValue(oidText, v))
			}
		case 'I':
			if v == nil {
				return nil, &sqlError{Code: codeInvalidParam, Message: "format(): a NULL identifier"}
			}
			b.WriteString(identText(textValue(oidText, v)))
		case 'L':
			if v == nil {
				b.WriteString("NULL")
			} else {
				b.WriteString(quoteString(textValue(oidText, v)))
			}
		default:
			return nil, refusef(codeFeature, "format(): the specifier %%%c", f[i])
		}
	}
	return b.String(), nil
}

// identText quotes s as quote_ident() does: only when it is not a
// lower-case identifier of letters, digits and underscores (keywords
// are not told apart: quote_ident('select') is select here).
func identText(s string) string {
	plain := s != "" && (s[0] < '0' || s[0] > '9')
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			plain = false
		}
	}
	if plain {
		return s
	}
	return quoteIdent(s)
}
