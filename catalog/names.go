package catalog

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxNameLen is the Ossie identifier limit (OSSIE.md "Expression
// language": identifiers up to 128 characters; compiler OSS2013).
const maxNameLen = 128

// plainName reports whether s can be used as a dataset or field name and
// written unquoted after a dot in expressions: letters, digits and '_',
// not starting with a digit.
func plainName(s string) bool {
	if s == "" || utf8.RuneCountInString(s) > maxNameLen {
		return false
	}
	for i, r := range s {
		if !(r == '_' || unicode.IsLetter(r) || i > 0 && unicode.IsDigit(r)) {
			return false
		}
	}
	return true
}

// snake turns a catalog name that is not plain ("Order Date", `a"b`,
// "2019 sales") into one: lower case, every run of other characters
// becomes '_', a leading digit gets a '_' in front, at most maxNameLen
// characters. fallback is used when nothing is left.
func snake(s, fallback string) string {
	var b strings.Builder
	pendingSep := false
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' {
			if pendingSep && b.Len() > 0 {
				b.WriteByte('_')
			}
			pendingSep = false
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		pendingSep = true
	}
	out := b.String()
	if out == "" {
		out = fallback
	}
	if r, _ := utf8.DecodeRuneInString(out); unicode.IsDigit(r) {
		out = "_" + out
	}
	return truncate(out, maxNameLen)
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// nameSet hands out unique names. Uniqueness is case-insensitive because
// unquoted references in Ossie expressions match names case-insensitively.
type nameSet map[string]bool

// take returns want, or want_2, want_3, ... when a name equal to it up to
// case is taken already, and marks the result taken.
func (ns nameSet) take(want string) string {
	name := want
	for i := 2; ns[strings.ToLower(name)]; i++ {
		suffix := "_" + strconv.Itoa(i)
		name = truncate(want, maxNameLen-len(suffix)) + suffix
	}
	ns[strings.ToLower(name)] = true
	return name
}

// pick returns the name for a catalog name: itself when plain, else its
// snake form; renamed says which.
func pick(catalogName, fallback string) (name string, renamed bool) {
	if plainName(catalogName) {
		return catalogName, false
	}
	return snake(catalogName, fallback), true
}

// quotePathPart spells one part of a table path the way the compiler
// reads it back unchanged (compiler/source.go splitTablePath): bare when
// it is a lower-case plain identifier, else in double quotes with quotes
// doubled.
func quotePathPart(p string) string {
	bare := p != ""
	for i, r := range p {
		if !(r == '_' || r >= 'a' && r <= 'z' || i > 0 && (r >= '0' && r <= '9' || r == '$')) {
			bare = false
			break
		}
	}
	if bare {
		return p
	}
	return `"` + strings.ReplaceAll(p, `"`, `""`) + `"`
}

// sourcePath joins the non-empty parts of a table path, quoted as needed.
func sourcePath(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, quotePathPart(p))
		}
	}
	return strings.Join(out, ".")
}
