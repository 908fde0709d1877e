package compiler

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/ossie-dev/ossie/api/ossie"
	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// fileSuffixes are the data-file endings read directly as a DuckDB file
// source (DESIGN.md section 7: "sources may be tables or Parquet/CSV files").
var fileSuffixes = []string{".parquet", ".csv", ".csv.gz", ".json"}

// maxTableParts is catalog.schema.table, the deepest path the engines take.
const maxTableParts = 3

// resolveSource reads a dataset's `source` (any of the three Ossie forms,
// OSSIE.md "Dataset") into a ResolvedSource without install defaults. The
// string form is a table path, or a query when it starts with SELECT or
// WITH (the legacy spelling), or a data file when it ends in one of
// fileSuffixes. On failure it returns a message for CodeInvalidSource or
// CodeNoPortableDialect (code says which).
func resolveSource(s ossie.Source) (rs ResolvedSource, code, msg string) {
	switch s.Form {
	case ossie.SourceFormQuery:
		if s.Query == nil || len(s.Query.Dialects) == 0 {
			return rs, CodeInvalidSource, "query source has no dialects"
		}
		d, ok := s.Query.Portable()
		if !ok {
			return rs, CodeNoPortableDialect, fmt.Sprintf("query source has no portable dialect entry (%s); it has %s", portableNames(), dialectNames(s.Query.Dialects))
		}
		return querySource(d.Expression)
	case ossie.SourceFormTable:
		parts, err := splitTablePath(s.Object)
		if err != "" {
			return rs, CodeInvalidSource, err
		}
		return ResolvedSource{Kind: SourceTable, Table: parts}, "", ""
	default:
		text := strings.TrimSpace(s.Object)
		if text == "" {
			return rs, CodeInvalidSource, "source is empty; give a table path such as schema.table, a SELECT query or a data file path"
		}
		if startsWithKeyword(text, "SELECT") || startsWithKeyword(text, "WITH") {
			return querySource(text)
		}
		lower := strings.ToLower(text)
		for _, suf := range fileSuffixes {
			if strings.HasSuffix(lower, suf) {
				return ResolvedSource{Kind: SourceFile, Path: text}, "", ""
			}
		}
		parts, err := splitTablePath(text)
		if err != "" {
			return rs, CodeInvalidSource, err + fmt.Sprintf(" (a data file source must end in one of %s)", strings.Join(fileSuffixes, ", "))
		}
		return ResolvedSource{Kind: SourceTable, Table: parts}, "", ""
	}
}

// querySource accepts exactly one SELECT statement: a source is read as a
// subquery, so anything else (DDL, DML, several statements) must never
// reach an engine.
func querySource(text string) (ResolvedSource, string, string) {
	text = strings.TrimSpace(text)
	text = strings.TrimSpace(strings.TrimSuffix(text, ";"))
	if text == "" {
		return ResolvedSource{}, CodeInvalidSource, "query source is empty"
	}
	res, err := pg_query.Parse(text)
	if err != nil {
		return ResolvedSource{}, CodeInvalidSource, "query source does not parse as SQL: " + err.Error()
	}
	if len(res.Stmts) != 1 {
		return ResolvedSource{}, CodeInvalidSource, fmt.Sprintf("query source must be one SELECT statement, found %d statements", len(res.Stmts))
	}
	if res.Stmts[0].Stmt.GetSelectStmt() == nil {
		return ResolvedSource{}, CodeInvalidSource, "query source must be a SELECT statement"
	}
	return ResolvedSource{Kind: SourceQuery, Query: text}, "", ""
}

func startsWithKeyword(text, kw string) bool {
	if len(text) < len(kw) || !strings.EqualFold(text[:len(kw)], kw) {
		return false
	}
	if len(text) == len(kw) {
		return true
	}
	c := rune(text[len(kw)])
	return !(c == '_' || unicode.IsLetter(c) || unicode.IsDigit(c))
}

// splitTablePath splits `catalog.schema.table` like SQL identifiers: parts
// are separated by dots, a part in double quotes is exact (`""` is one
// quote), an unquoted part must be a plain identifier and is folded to
// lower case. It returns the parts or a message.
func splitTablePath(path string) ([]string, string) {
	path = strings.TrimSpace(path)
	if path == "" {
		return nil, "table path is empty"
	}
	var parts []string
	rs := []rune(path)
	i := 0
	for {
		if i < len(rs) && rs[i] == '"' {
			var b strings.Builder
			i++
			closed := false
			for i < len(rs) {
				if rs[i] == '"' {
					if i+1 < len(rs) && rs[i+1] == '"' {
						b.WriteRune('"')
						i += 2
						continue
					}
					i++
					closed = true
					break
				}
				b.WriteRune(rs[i])
				i++
			}
			if !closed {
				return nil, fmt.Sprintf("table path %q has an unterminated quoted identifier", path)
			}
			if b.Len() == 0 {
				return nil, fmt.Sprintf("table path %q has an empty quoted identifier", path)
			}
			parts = append(parts, b.String())
		} else {
			start := i
			for i < len(rs) && rs[i] != '.' {
				c := rs[i]
				ok := c == '_' || c == '$' || unicode.IsLetter(c) || (i > start && unicode.IsDigit(c))
				if !ok {
					return nil, fmt.Sprintf("table path %q: %q is not allowed in an unquoted identifier; quote the part (\"My Table\") or use a plain identifier", path, string(c))
				}
				i++
			}
			if i == start {
				return nil, fmt.Sprintf("table path %q has an empty part", path)
			}
			parts = append(parts, strings.ToLower(string(rs[start:i])))
		}
		if i == len(rs) {
			break
		}
		if rs[i] != '.' {
			return nil, fmt.Sprintf("table path %q: expected '.' after a quoted identifier", path)
		}
		i++
		if i == len(rs) {
			return nil, fmt.Sprintf("table path %q ends with '.'", path)
		}
	}
	if len(parts) > maxTableParts {
		return nil, fmt.Sprintf("table path %q has %d parts; at most catalog.schema.table", path, len(parts))
	}
	return parts, ""
}

// withDefaults prepends the install's default catalog and schema to a table
// path that has fewer parts (DESIGN.md section 3, "install defaults for
// missing parts"). A catalog is only added in front of a schema, so a
// one-part path with only a default catalog stays one part.
func withDefaults(parts []string, opts CompileOptions) []string {
	out := append([]string(nil), parts...)
	if len(out) == 1 && opts.DefaultSchema != "" {
		out = append([]string{opts.DefaultSchema}, out...)
	}
	if len(out) == 2 && opts.DefaultCatalog != "" {
		out = append([]string{opts.DefaultCatalog}, out...)
	}
	return out
}

func portableNames() string {
	names := make([]string, len(ossie.PortableDialects))
	for i, d := range ossie.PortableDialects {
		names[i] = string(d)
	}
	return strings.Join(names, " or ")
}

func dialectNames(ds []ossie.DialectExpression) string {
	if len(ds) == 0 {
		return "none"
	}
	names := make([]string, len(ds))
	for i, d := range ds {
		names[i] = string(d.Dialect)
	}
	return strings.Join(names, ", ")
}
