package trinotest

import (
	"strings"
	"unicode"
)

// The server runs Trino SQL on DuckDB. Where the two disagree on a
// spelling or a meaning that tests reach, the statement is rewritten token
// by token (string literals, quoted identifiers and comments are never
// touched) so that DuckDB computes what Trino documents, not what DuckDB
// would: every rule below cites the Trino behaviour it reproduces. A
// function the table does not list runs as DuckDB's function of the same
// name, which is only right where both engines agree; the README states
// that limit.

// session is run on every connection before a statement: Trino divides
// integers by integers as integers, truncating toward zero ("Mathematical
// functions and operators"), and answers plain TIMESTAMPs in the session
// zone, UTC for our engine.
var session = []string{
	"SET integer_division = true",
	"SET TimeZone = 'UTC'",
}

// macros emulate Trino functions whose DuckDB namesake differs or is
// missing. Each is installed once, as trino_<name>, and calls of <name>
// are renamed to it (see rewrite). Arity overloads are separate entries
// of one macro.
var macros = map[string]string{
	// day_of_week/dow: ISO 1 (Monday) to 7; DuckDB's dayofweek is 0
	// (Sunday) to 6.
	"day_of_week": "(x) AS isodow(x)",
	"dow":         "(x) AS isodow(x)",
	// day_of_year/doy: 1 to 366.
	"day_of_year": "(x) AS dayofyear(x)",
	"doy":         "(x) AS dayofyear(x)",
	// millisecond: the millisecond of the second (0-999); DuckDB's counts
	// the seconds too.
	"millisecond": "(x) AS date_part('millisecond', x) % 1000",
	// approx_distinct: DuckDB's HyperLogLog estimate of the same count.
	"approx_distinct": "(x) AS approx_count_distinct(x)",
	// element_at(array, i): 1-based, NULL past the end.
	"element_at": "(a, i) AS list_extract(a, i)",
	// regexp_like: whether the pattern matches anywhere in the string.
	"regexp_like": "(s, p) AS regexp_matches(s, p)",
	// regexp_extract: NULL when nothing matches; DuckDB answers ''.
	"regexp_extract": "(s, p) AS CASE WHEN regexp_matches(s, p) THEN regexp_extract(s, p) END, " +
		"(s, p, g) AS CASE WHEN regexp_matches(s, p) THEN regexp_extract(s, p, g) END",
	// regexp_replace: every match is replaced and $n in the replacement
	// is group n; DuckDB replaces the first unless told 'g' and spells
	// groups \1. The two-argument form removes the matches.
	"regexp_replace": "(s, p) AS regexp_replace(s, p, '', 'g'), " +
		"(s, p, r) AS regexp_replace(s, p, regexp_replace(r, '\\$(\\d)', '\\\\\\1', 'g'), 'g')",
	// regexp_count: the number of matches.
	"regexp_count": "(s, p) AS len(regexp_extract_all(s, p))",
	// replace(s, from): removes every occurrence.
	"replace": "(s, f) AS replace(s, f, ''), (s, f, r) AS replace(s, f, r)",
	// approx_percentile(x, p): DuckDB's t-digest estimate of the same
	// quantile (an aggregate; the macro expands in place).
	"approx_percentile": "(x, p) AS approx_quantile(x, p)",
	// truncate: toward zero, optionally to n decimals.
	"truncate": "(x) AS trunc(x), (x, n) AS trunc(x * power(10, n)) / power(10, n)",
	// greatest/least: NULL when any argument is NULL; DuckDB skips NULLs.
	"greatest": "(a, b) AS CASE WHEN a IS NULL OR b IS NULL THEN NULL ELSE greatest(a, b) END, " +
		"(a, b, c) AS CASE WHEN a IS NULL OR b IS NULL OR c IS NULL THEN NULL ELSE greatest(a, b, c) END",
	"least": "(a, b) AS CASE WHEN a IS NULL OR b IS NULL THEN NULL ELSE least(a, b) END, " +
		"(a, b, c) AS CASE WHEN a IS NULL OR b IS NULL OR c IS NULL THEN NULL ELSE least(a, b, c) END",
	// log(b, x): the base comes first.
	"log": "(b, x) AS ln(x) / ln(b)",
	// date_add(unit, n, x): x plus n units (month arithmetic clamps to the
	// month's last day, as Trino's does). A DATE x comes back as a
	// TIMESTAMP here, where Trino keeps DATE.
	"date_add": "(u, n, x) AS x + CASE lower(u) WHEN 'millisecond' THEN to_milliseconds(CAST(n AS BIGINT)) " +
		"WHEN 'second' THEN to_seconds(CAST(n AS BIGINT)) WHEN 'minute' THEN to_minutes(CAST(n AS BIGINT)) " +
		"WHEN 'hour' THEN to_hours(CAST(n AS BIGINT)) WHEN 'day' THEN to_days(CAST(n AS INTEGER)) " +
		"WHEN 'week' THEN to_weeks(CAST(n AS INTEGER)) WHEN 'month' THEN to_months(CAST(n AS INTEGER)) " +
		"WHEN 'quarter' THEN to_months(CAST(3 * n AS INTEGER)) WHEN 'year' THEN to_years(CAST(n AS INTEGER)) END",
	// date_diff(unit, a, b): whole units elapsed from a to b, truncated
	// toward zero (Joda's field difference); DuckDB's counts unit
	// boundaries crossed instead. Months: the largest m with a + m months
	// not past b.
	"date_diff": "(u, a, b) AS CASE lower(u) " +
		"WHEN 'millisecond' THEN trino_elapsed(a, b, 1000) WHEN 'second' THEN trino_elapsed(a, b, 1000000) " +
		"WHEN 'minute' THEN trino_elapsed(a, b, 60000000) WHEN 'hour' THEN trino_elapsed(a, b, 3600000000) " +
		"WHEN 'day' THEN trino_elapsed(a, b, 86400000000) WHEN 'week' THEN trino_elapsed(a, b, 604800000000) " +
		"WHEN 'month' THEN trino_months(a, b) WHEN 'quarter' THEN trino_months(a, b) // 3 " +
		"WHEN 'year' THEN trino_months(a, b) // 12 END",
	// with_timezone(timestamp, zone): the naive value read as wall time in
	// zone, a timestamp with time zone (DuckDB's timezone(zone, timestamp)).
	"with_timezone": "(x, z) AS timezone(z, CAST(x AS TIMESTAMP))",
	// concat: NULL when any argument is NULL; DuckDB skips NULLs.
	"concat": "(a, b) AS a || b, (a, b, c) AS a || b || c, (a, b, c, d) AS a || b || c || d",
}

// helpers are macros the emulations call, installed first. A macro body
// is parsed when it is created, outside any session, so it spells
// integer division // (DuckDB: truncating toward zero) rather than
// relying on the session's integer_division.
var helpers = []string{
	// Whole multiples of unit microseconds from a to b, toward zero.
	"CREATE OR REPLACE MACRO trino_elapsed(a, b, unit) AS " +
		"CAST(sign(epoch_us(CAST(b AS TIMESTAMP)) - epoch_us(CAST(a AS TIMESTAMP))) * " +
		"(abs(epoch_us(CAST(b AS TIMESTAMP)) - epoch_us(CAST(a AS TIMESTAMP))) // unit) AS BIGINT)",
	// Whole months from a to b, toward zero.
	"CREATE OR REPLACE MACRO trino_months(a, b) AS CAST(CASE " +
		"WHEN CAST(b AS TIMESTAMP) >= CAST(a AS TIMESTAMP) THEN datediff('month', CAST(a AS TIMESTAMP), CAST(b AS TIMESTAMP)) - " +
		"CASE WHEN CAST(a AS TIMESTAMP) + to_months(CAST(datediff('month', CAST(a AS TIMESTAMP), CAST(b AS TIMESTAMP)) AS INTEGER)) > CAST(b AS TIMESTAMP) THEN 1 ELSE 0 END " +
		"ELSE datediff('month', CAST(a AS TIMESTAMP), CAST(b AS TIMESTAMP)) + " +
		"CASE WHEN CAST(a AS TIMESTAMP) + to_months(CAST(datediff('month', CAST(a AS TIMESTAMP), CAST(b AS TIMESTAMP)) AS INTEGER)) < CAST(b AS TIMESTAMP) THEN 1 ELSE 0 END " +
		"END AS BIGINT)",
}

// macroSQL is the DDL that installs every macro.
func macroSQL() []string {
	out := append(make([]string, 0, len(helpers)+len(macros)), helpers...)
	for name, def := range macros {
		out = append(out, "CREATE OR REPLACE MACRO trino_"+name+def)
	}
	return out
}

// token is one lexical unit of a statement; text is verbatim.
type token struct {
	kind byte // 'w' word, 's' string literal, 'q' quoted identifier, ' ' space/comment, 'n' number, 'p' punctuation
	text string
}

// lex splits stmt into tokens; concatenating the texts gives stmt back.
func lex(stmt string) []token {
	var out []token
	r := []rune(stmt)
	for i := 0; i < len(r); {
		start := i
		c := r[i]
		var kind byte
		switch {
		case c == '\'' || c == '"':
			kind = 's'
			if c == '"' {
				kind = 'q'
			}
			i++
			for i < len(r) {
				if r[i] == c {
					if i+1 < len(r) && r[i+1] == c {
						i += 2
						continue
					}
					i++
					break
				}
				i++
			}
		case c == '-' && i+1 < len(r) && r[i+1] == '-':
			kind = ' '
			for i < len(r) && r[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(r) && r[i+1] == '*':
			kind = ' '
			i += 2
			for i < len(r) && !(r[i] == '*' && i+1 < len(r) && r[i+1] == '/') {
				i++
			}
			i = min(i+2, len(r))
		case unicode.IsSpace(c):
			kind = ' '
			for i < len(r) && unicode.IsSpace(r[i]) {
				i++
			}
		case c == '_' || unicode.IsLetter(c):
			kind = 'w'
			for i < len(r) && (r[i] == '_' || r[i] == '$' || unicode.IsLetter(r[i]) || unicode.IsDigit(r[i])) {
				i++
			}
		case unicode.IsDigit(c):
			kind = 'n'
			for i < len(r) && (unicode.IsDigit(r[i]) || r[i] == '.') {
				i++
			}
		default:
			kind = 'p'
			i++
		}
		out = append(out, token{kind: kind, text: string(r[start:i])})
	}
	return out
}

// next returns the index of the first non-space token at or after i, or
// len(toks).
func next(toks []token, i int) int {
	for i < len(toks) && toks[i].kind == ' ' {
		i++
	}
	return i
}

// word reports whether toks[i] is the keyword or name w (any case).
func word(toks []token, i int, w string) bool {
	return i < len(toks) && toks[i].kind == 'w' && strings.EqualFold(toks[i].text, w)
}

// emulate rewrites a Trino statement for DuckDB (see the file comment):
//   - TIMESTAMP(p) WITH TIME ZONE → TIMESTAMPTZ, TIME(p) [WITH TIME ZONE]
//     → TIME / TIMETZ, TIMESTAMP(p) → TIMESTAMP: DuckDB keeps microseconds
//     and takes no precision;
//   - a call f( of a function in macros, not qualified by a dot, → trino_f(.
func emulate(stmt string) string {
	toks := lex(stmt)
	var b strings.Builder
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind == 'w' && (strings.EqualFold(t.text, "TIMESTAMP") || strings.EqualFold(t.text, "TIME")) {
			if j, ok := precision(toks, i+1); ok {
				k := next(toks, j)
				if word(toks, k, "WITH") && word(toks, next(toks, k+1), "TIME") && word(toks, next(toks, next(toks, k+1)+1), "ZONE") {
					b.WriteString(strings.ToUpper(t.text) + "TZ")
					i = next(toks, next(toks, k+1)+1)
					continue
				}
				b.WriteString(strings.ToUpper(t.text))
				i = j - 1
				continue
			}
		}
		if t.kind == 'w' {
			if _, ok := macros[strings.ToLower(t.text)]; ok {
				prev := i - 1
				for prev >= 0 && toks[prev].kind == ' ' {
					prev--
				}
				if n := next(toks, i+1); n < len(toks) && toks[n].text == "(" && (prev < 0 || toks[prev].text != ".") {
					b.WriteString("trino_" + strings.ToLower(t.text))
					continue
				}
			}
		}
		b.WriteString(t.text)
	}
	return b.String()
}

// precision matches "( digits )" starting at or after i and returns the
// index after the closing parenthesis.
func precision(toks []token, i int) (int, bool) {
	i = next(toks, i)
	if i >= len(toks) || toks[i].text != "(" {
		return 0, false
	}
	i = next(toks, i+1)
	if i >= len(toks) || toks[i].kind != 'n' {
		return 0, false
	}
	i = next(toks, i+1)
	if i >= len(toks) || toks[i].text != ")" {
		return 0, false
	}
	return i + 1, true
}
