package dialect

import (
	"fmt"
	"strings"
)

// ansi holds the spellings shared by DuckDB, PostgreSQL and Trino; each
// engine dialect embeds it and overrides what differs.
type ansi struct{}

func (ansi) QuoteIdent(name string) string {
	if !strings.Contains(name, `"`) {
		return `"` + name + `"`
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// QuoteString doubles single quotes. Backslashes need no escaping: DuckDB,
// Trino and PostgreSQL (standard_conforming_strings=on, the default since
// 9.1) treat them literally inside '...'. NUL bytes cannot be stored in SQL
// text at all, so they are dropped rather than passed to the engine.
func (ansi) QuoteString(s string) string {
	s = strings.ReplaceAll(s, "\x00", "")
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

func (ansi) TypeName(canonical string) string { return canonical }

func (ansi) Divide(l, r string) string {
	return fmt.Sprintf("CAST(%s AS DOUBLE) / NULLIF(CAST(%s AS DOUBLE), 0)", l, r)
}

func (a ansi) DateTrunc(g Grain, x string) string {
	return fmt.Sprintf("date_trunc(%s, %s)", a.QuoteString(string(g)), x)
}

func (a ansi) AtTimeZone(x, tz string) string {
	return fmt.Sprintf("(%s AT TIME ZONE %s)", x, a.QuoteString(tz))
}

// FromZone: SQL's AT TIME ZONE on a naive timestamp reads it in that zone
// (PostgreSQL).
func (a ansi) FromZone(x, tz string) string {
	return fmt.Sprintf("(%s AT TIME ZONE %s)", x, a.QuoteString(tz))
}

func (ansi) Func(name string, args []string) (string, bool) { return "", false }

func (ansi) Support(name string, args []string) Support { return supported }

func (ansi) LimitOffset(limit, offset int) string {
	var b strings.Builder
	if limit >= 0 {
		fmt.Fprintf(&b, " LIMIT %d", limit)
	}
	if offset > 0 {
		fmt.Fprintf(&b, " OFFSET %d", offset)
	}
	return b.String()
}

func (ansi) FileSource(path string) (string, bool) { return "", false }
