package dialect

import "strings"

// translateStrftime rewrites a strftime format (DuckDB's format language,
// the reference), given as a SQL string literal, into another engine's
// format language: each %x specifier through spec, %% as percent, and every
// other byte through literal. ok=false when lit is not a plain string
// literal, a specifier has no translation, a % dangles, or literal refuses
// a byte, so callers keep the generic spelling and the engine reports an
// error rather than misreading dates.
func translateStrftime(lit string, spec map[byte]string, percent string, literal func(byte) (string, bool)) (string, bool) {
	if len(lit) < 2 || lit[0] != '\'' || lit[len(lit)-1] != '\'' {
		return "", false
	}
	f := strings.ReplaceAll(lit[1:len(lit)-1], "''", "'")
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		c := f[i]
		switch {
		case c == '%' && i+1 < len(f) && f[i+1] == '%':
			b.WriteString(percent)
			i++
		case c == '%' && i+1 < len(f):
			s, ok := spec[f[i+1]]
			if !ok {
				return "", false
			}
			b.WriteString(s)
			i++
		case c == '%':
			return "", false
		default:
			s, ok := literal(c)
			if !ok {
				return "", false
			}
			b.WriteString(s)
		}
	}
	return b.String(), true
}
