package expr

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler/dialect"
)

// supportDoc is the generated engine support table; -update rewrites it.
const supportDoc = "../../docs/engine-support.md"

// engines are the dialects of the table, in column order.
var engines = []dialect.Dialect{dialect.DuckDB, dialect.Postgres, dialect.Trino}

// constructs are the operators and forms of the language that are not
// function calls, with an example each.
var constructs = []struct{ name, example, spec string }{
	{"`/` (real division, NULL on a zero divisor)", "a / b", Required},
	{"`%`", "a % b", Required},
	{"`||`", "s || a", Required},
	{"`LIKE`", "s LIKE 'a%'", Required},
	{"`ILIKE`", "s ILIKE 'a%'", Required},
	{"`IS [NOT] DISTINCT FROM`", "a IS DISTINCT FROM b", Required},
	{"`CASE`", "CASE WHEN a > b THEN a ELSE b END", Required},
	{"`DATE` literal", "DATE '2024-01-15'", Required},
	{"`TIMESTAMP_NTZ` literal", "TIMESTAMP_NTZ '2024-01-15 10:30:00'", Required},
	{"`TIME` literal", "TIME '10:30:00'", Required},
	{"`CAST` to DECIMAL (bare)", "CAST(s AS DECIMAL)", Required},
	{"`CAST` to DOUBLE", "CAST(s AS DOUBLE)", Required},
	{"`CAST` to VARCHAR", "CAST(a AS VARCHAR)", Required},
	{"`CAST` to TIMESTAMP", "CAST(s AS TIMESTAMP)", Required},
	{"`TRY_CAST` to INTEGER", "TRY_CAST(s AS INTEGER)", Recommended},
	{"`TRY_CAST` to DATE", "TRY_CAST(s AS DATE)", Recommended},
	{"`TRY_CAST` to TIMESTAMP", "TRY_CAST(s AS TIMESTAMP)", Recommended},
	{"`TRY_CAST` to TIME", "TRY_CAST(s AS TIME)", Recommended},
	{"aggregate `FILTER (WHERE ...)`", "SUM(x) FILTER (WHERE a > 0)", "extension"},
	{"`COUNT(*)`", "COUNT(*)", Required},
	{"`SUM(DISTINCT ...)`", "SUM(DISTINCT x)", Required},
}

// generic wraps a dialect without its own function spellings, to tell a
// native call (same text as the generic spelling) from a translated one.
type generic struct{ dialect.Dialect }

func (generic) Func(string, []string) (string, bool) { return "", false }

// cell renders example for d as one table cell; long translations go to
// notes and the cell points at them.
func cell(t *testing.T, example string, d dialect.Dialect, notes *[]string) string {
	n, errs := Parse(example)
	if len(errs) > 0 {
		t.Fatalf("%s: %v", example, errs)
	}
	plain := func(r Ref) (string, error) { return r.Name, nil }
	sql, err := Render(n, d, plain)
	var u *dialect.UnsupportedError
	if errors.As(err, &u) {
		return "✗ unsupported: " + u.Why
	}
	if err != nil {
		t.Fatalf("%s on %s: %v", example, d.Name(), err)
	}
	gen, _ := Render(n, generic{d}, plain)
	level := ""
	var f Func
	if x, ok := n.(Func); ok {
		f = x
	}
	if s := d.Support(f.Name, nil); f.Name != "" && s.Level == dialect.Approximate {
		level = "≈ " + s.Note + "; "
	}
	if sql == gen {
		return level + "✓ `" + sql + "`"
	}
	if len(sql) <= 80 {
		return level + "✓ as `" + sql + "`"
	}
	*notes = append(*notes, fmt.Sprintf("%d. `%s` on %s:\n\n   ```sql\n   %s\n   ```", len(*notes)+1, example, d.Name(), sql))
	return fmt.Sprintf("%s✓ translated, see note %d", level, len(*notes))
}

// engineSupportDoc builds docs/engine-support.md from the function
// catalogue (functions.go) and the dialects' own spellings and Support.
func engineSupportDoc(t *testing.T) string {
	var b, notes strings.Builder
	var ns []string
	b.WriteString(supportIntro)
	header := "| %s | level | DuckDB | PostgreSQL | Trino |\n|---|---|---|---|---|\n"
	kind := ""
	for _, fi := range Functions() {
		if fi.Kind != kind {
			kind = fi.Kind
			fmt.Fprintf(&b, "\n### %s functions\n\n", kind)
			fmt.Fprintf(&b, header, "function (example)")
		}
		row := []string{fmt.Sprintf("`%s`", fi.Example), fi.Spec}
		for _, d := range engines {
			row = append(row, cell(t, fi.Example, d, &ns))
		}
		b.WriteString("| " + strings.Join(escapeCells(row), " | ") + " |\n")
	}
	b.WriteString("\n### operators, literals and casts\n\n")
	fmt.Fprintf(&b, header, "construct (example)")
	for _, c := range constructs {
		row := []string{c.name + ": `" + c.example + "`", c.spec}
		for _, d := range engines {
			row = append(row, cell(t, c.example, d, &ns))
		}
		b.WriteString("| " + strings.Join(escapeCells(row), " | ") + " |\n")
	}
	for _, n := range ns {
		notes.WriteString(n + "\n\n")
	}
	b.WriteString("\n## Notes: long translations\n\n")
	b.WriteString(notes.String())
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// escapeCells keeps | inside code from splitting a table cell.
func escapeCells(row []string) []string {
	out := make([]string, len(row))
	for i, c := range row {
		out[i] = strings.ReplaceAll(c, "|", `\|`)
	}
	return out
}

// TestEngineSupportDoc fails when docs/engine-support.md is not what the
// catalogue and the dialects produce; go test ./compiler/expr -run
// EngineSupportDoc -update rewrites it.
func TestEngineSupportDoc(t *testing.T) {
	got := engineSupportDoc(t)
	if *update {
		if err := os.WriteFile(supportDoc, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(supportDoc)
	if err != nil {
		t.Fatalf("%v (generate it: go test ./compiler/expr -run EngineSupportDoc -update)", err)
	}
	if string(want) != got {
		t.Errorf("docs/engine-support.md is stale; regenerate it: go test ./compiler/expr -run EngineSupportDoc -update")
	}
}

const supportIntro = `# Engine support

<!-- Generated by go test ./compiler/expr -run EngineSupportDoc -update
     from the function catalogue (compiler/expr/functions.go) and the
     dialects (compiler/dialect). Do not edit by hand. -->

Every function and construct of the Ossie SQL expression language
(` + "`OSSIE_SQL_2026`" + ` / ` + "`ANSI_SQL`" + `, apache/ossie
core-spec/expression_language.md) and how each engine computes it. A cell
shows the SQL the compiler emits for the example (columns a, b, s, d, ts, x):

- ✓ ` + "`sql`" + ` — the engine's own function with the language's meaning;
- ✓ as ` + "`sql`" + ` — translated, so that the engine computes the same value;
- ≈ — an estimate (only the APPROX_* functions, as the language allows);
- ✗ unsupported — compiling a model that uses it for that engine is
  problem [OSS3008](problems.md#oss3008--function-not-supported-on-the-target-engine),
  naming the function and the engine.

The values are checked on all three engines by the conformance suite
(` + "`test/conformance/functions.yaml`" + `, one case per REQUIRED function at
least; Trino on a real Trino 476 server started by test/trinoserver).

## Semantics every engine follows

DuckDB's answers are the reference; where engines differ, the translations
make PostgreSQL and Trino return the same value:

- ` + "`/`" + ` is real division (both sides as DOUBLE), NULL when the divisor is
  0 or NULL; integers never divide as integers. ` + "`%`" + ` and ` + "`MOD`" + ` keep the sign of
  the dividend (` + "`MOD(-7, 3)`" + ` = -1).
- NULL: ` + "`CONCAT`" + ` skips NULL arguments (` + "`CONCAT('a', NULL)`" + ` = 'a') while ` + "`||`" + `
  with a NULL is NULL; ` + "`GREATEST`" + `/` + "`LEAST`" + ` ignore NULLs (NULL only when all
  are); aggregates ignore NULL inputs; ` + "`COUNT`" + ` of nothing is 0, other
  aggregates of nothing are NULL.
- Dates: weeks start on Monday (` + "`DATE_TRUNC('week', d)`" + `, ` + "`WEEK`" + ` is the ISO
  week number); ` + "`DAYOFWEEK`" + ` is 0 (Sunday) to 6 (Saturday), as DuckDB,
  PostgreSQL's DOW and Snowflake's default; ` + "`MILLISECOND`" + ` is seconds × 1000 +
  milliseconds; ` + "`SECOND`" + ` drops the fraction; date parts are integers.
  ` + "`DATE_TRUNC`" + ` returns a timestamp (midnight for day and coarser parts).
- ` + "`DATEADD(part, n, x)`" + ` adds n parts and, like ` + "`DATE_TRUNC`" + `, returns a
  timestamp (month arithmetic clamps to the month's
  last day: Jan 31 + 1 month = Feb 29 in 2024). ` + "`DATEDIFF(part, a, b)`" + ` counts
  the part boundaries crossed from a to b, as Snowflake does: month of
  Jan 31 → Feb 1 is 1, week of Sunday → Monday is 1, hour of 10:59:59 →
  11:00:00 is 1. Parts: YEAR QUARTER MONTH WEEK DAY HOUR MINUTE SECOND
  MILLISECOND (DAYOFWEEK and DAYOFYEAR count days).
- ` + "`CAST(x AS DECIMAL)`" + ` without precision is DECIMAL(38,9) on every engine
  (their own defaults differ: DuckDB 18,3, PostgreSQL unbounded, Trino 38,0).
  TIMESTAMP and TIME keep microseconds (Trino: TIMESTAMP(6), TIME(6)).
- Strings: ` + "`LENGTH`" + ` counts characters, not bytes; positions are 1-based and
  0 means not found; ` + "`REGEXP_LIKE`" + ` is true when the pattern matches anywhere
  in the string (anchor with ^ and $ for a full match); ` + "`REGEXP_REPLACE`" + `
  replaces every match and writes group references as \1;
  ` + "`REGEXP_EXTRACT`" + ` returns '' when nothing matches; ` + "`SPLIT_PART`" + ` returns ''
  for a part past the end.
- ` + "`ROUND`" + ` rounds half away from zero (` + "`ROUND(2.5)`" + ` = 3, ` + "`ROUND(-2.5)`" + ` = -3).
- ` + "`MEDIAN`" + `, ` + "`PERCENTILE_CONT`" + ` and ` + "`PERCENTILE_DISC`" + ` are exact on every engine.
  Trino has no exact percentile aggregate; instead of approx_percentile
  (an estimate that could disagree with the other engines), the Trino
  translation sorts the group's values (array_agg) and interpolates as
  SQL:2003 defines, holding each group's values in memory.
- ` + "`TRY_CAST`" + ` returns NULL where ` + "`CAST`" + ` would fail. PostgreSQL has no error-free
  cast: it is emulated for VARCHAR, integer, DECIMAL, DOUBLE, BOOLEAN and DATE
  targets and refused (OSS3008) for TIMESTAMP and TIME.

## Known differences that remain

Not translated, because doing so needs the argument's type, which the
compiler does not know before binding; avoid them in portable models:

- ` + "`CAST(x AS VARCHAR)`" + ` of a DOUBLE: Trino writes scientific notation
  (` + "`2.5E0`" + `), DuckDB and PostgreSQL ` + "`2.5`" + `. Cast to DECIMAL first.
- ` + "`CAST(x AS INTEGER)`" + ` of a DOUBLE exactly halfway (2.5): DuckDB and PostgreSQL
  round to even; Trino may round up. ` + "`CAST(ROUND(x) AS INTEGER)`" + ` is portable.
- ` + "`SUBSTRING(s, start, n)`" + ` with start below 1: Trino returns ''.
- Regular expressions: DuckDB uses RE2, PostgreSQL POSIX ARE, Trino Java
  (joni); classes, anchors, groups and quantifiers agree, look-around and
  back-references do not.
- On Trino, ` + "`DATE_TRUNC`" + ` and ` + "`DATEADD`" + ` of a TIMESTAMP WITH TIME ZONE work on
  its wall-clock time in its own zone (the others use the session zone,
  UTC), which agrees for values stored in UTC.

## What a real Trino changed

The Trino column is checked on a real Trino (476, memory connector) by the
conformance suite. Running it there, instead of on the DuckDB-backed
protocol test server, forced these translations:

- ` + "`AVG(x)`" + ` is ` + "`avg(CAST(x AS DOUBLE))`" + `: Trino's avg of a DECIMAL(p,s)
  is a DECIMAL(p,s) rounded to s digits (41.61 where DuckDB answers
  41.6133…). ` + "`AVG(DISTINCT x)`" + ` of a DECIMAL still rounds.
- ` + "`TRUNC(x, n)`" + ` is ` + "`truncate(x * 10^n) / 10^n`" + `: Trino has truncate(x, n)
  only for DECIMAL and refuses it on a DOUBLE.

## What the grammar refuses

- Window functions (` + "`OVER (...)`" + `): a metric is aggregated per query group, so
  a window has no defined meaning there yet; refused as OSS3002.
- ` + "`INTERVAL`" + ` values: use ` + "`DATEADD`" + ` / ` + "`DATEDIFF`" + `; refused as OSS3002.
- Anything besides one expression: a second statement (` + "`a; DROP TABLE t`" + `),
  ` + "`SELECT`" + `, subqueries, aliases (OSS3002).
- Forms PostgreSQL's parser (pg_query_go) does not read as written are
  rewritten before parsing by a tokenizer that leaves quoted text alone:
  ` + "`TRY_CAST(x AS INT)`" + ` and ` + "`CURRENT_TIMESTAMP()`" + ` (also CURRENT_DATE(),
  CURRENT_TIME()).

## Dialect entries

An expression may carry several dialect entries. The compiler executes the
portable one (` + "`OSSIE_SQL_2026`" + `, else ` + "`ANSI_SQL`" + `) translated for the engine. No
dialect name of the Ossie specification (` + "`SNOWFLAKE`" + `, ` + "`DATABRICKS`" + `, ` + "`BIGQUERY`" + `,
...) names DuckDB, PostgreSQL or Trino, so no entry is ever passed to an
engine as written; other entries are kept in the artifact, not executed.

## Functions
`
