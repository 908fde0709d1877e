package pgwire

import "strings"

// likeEscape is PostgreSQL's like_escape(pattern, escape), what
// `x LIKE pattern ESCAPE 'c'` parses into: the pattern rewritten with
// the backslash as its escape character, which likeRegexp reads.
// SQLAlchemy's startswith(autoescape=True) sends it (get_schema_names:
// nspname NOT LIKE 'pg/_' || '%' ESCAPE '/'). An empty escape turns
// escaping off; NULL in, NULL out.
func likeEscape(pattern, escape any) any {
	p, ok1 := pattern.(string)
	e, ok2 := escape.(string)
	if !ok1 || !ok2 {
		return nil
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case e != "" && strings.HasPrefix(p[i:], e):
			i += len(e)
			if i < len(p) {
				b.WriteByte('\\')
				b.WriteByte(p[i])
			}
		case c == '\\':
			b.WriteString(`\\`)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
