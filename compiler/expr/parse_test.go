package expr

import (
	"reflect"
	"strings"
	"testing"
)

// Shorthands for expected trees.
func ref(name string) Ref     { return Ref{Name: name} }
func qref(q, name string) Ref { return Ref{Qualifier: q, Name: name} }
func num(v string) Literal    { return Literal{Kind: LitNumber, Value: v} }
func str(v string) Literal    { return Literal{Kind: LitString, Value: v} }
func kw(name string) Keyword  { return Keyword{Name: name} }
func bin(op string, l, r Node) Binary {
	return Binary{Op: op, L: l, R: r}
}
func fn(name string, args ...Node) Func {
	if len(args) == 0 {
		args = nil
	}
	return Func{Name: name, Args: args}
}
func cast(x Node, typ string) Cast { return Cast{X: x, Type: typ} }

var (
	null  = Literal{Kind: LitNull}
	true_ = Literal{Kind: LitBool, Value: "true"}
)

// parseCases maps accepted text to its tree; every construct of the bounded
// grammar appears at least once. Format, JSON and fuzz tests reuse them.
var parseCases = []struct {
	text string
	want Node
}{
	// references
	{"amount", ref("amount")},
	{"Amount", ref("amount")},
	{"orders.amount", qref("orders", "amount")},
	{"Orders.AMOUNT", qref("orders", "amount")},
	{`"Invoice Date"`, Ref{Name: "Invoice Date", Quoted: true}},
	{`orders."Invoice Date"`, Ref{Qualifier: "orders", Name: "Invoice Date", Quoted: true}},
	{`"Orders"."Amount"`, Ref{Qualifier: "Orders", Name: "Amount", Quoted: true}},
	{`"say ""hi"""`, Ref{Name: `say "hi"`, Quoted: true}},
	{"t.select", qref("t", "select")},
	{"_x$1", ref("_x$1")},
	{"café", ref("café")},
	{strings.Repeat("a", 100), ref(strings.Repeat("a", 100))}, // not truncated at 63 like PostgreSQL
	// literals
	{"42", num("42")},
	{"1.50", num("1.50")},
	{"1e10", num("1e10")},
	{"2147483648", num("2147483648")},
	{"-5", num("-5")},
	{"'it''s'", str("it's")},
	{"''", str("")},
	{"TRUE", true_},
	{"false", Literal{Kind: LitBool, Value: "false"}},
	{"NULL", null},
	// typed literals and casts
	{"DATE '2024-01-01'", cast(str("2024-01-01"), "DATE")},
	{"TIMESTAMP '2024-01-01 10:00:00'", cast(str("2024-01-01 10:00:00"), "TIMESTAMP")},
	{"TIMESTAMP_NTZ '2024-01-01 10:00:00'", cast(str("2024-01-01 10:00:00"), "TIMESTAMP")},
	{"TIME '10:30'", cast(str("10:30"), "TIME")},
	{"CAST(x AS VARCHAR)", cast(ref("x"), "VARCHAR")},
	{"CAST(x AS varchar(20))", cast(ref("x"), "VARCHAR")},
	{"CAST(x AS STRING)", cast(ref("x"), "VARCHAR")},
	{"CAST(x AS TEXT)", cast(ref("x"), "VARCHAR")},
	{"CAST(x AS INT)", cast(ref("x"), "INTEGER")},
	{"CAST(x AS INTEGER)", cast(ref("x"), "INTEGER")},
	{"CAST(x AS BIGINT)", cast(ref("x"), "BIGINT")},
	{"CAST(x AS DECIMAL)", cast(ref("x"), "DECIMAL")},
	{"CAST(x AS DECIMAL(10, 2))", Cast{X: ref("x"), Type: "DECIMAL", Precision: 10, Scale: 2}},
	{"CAST(x AS NUMERIC(12))", Cast{X: ref("x"), Type: "DECIMAL", Precision: 12}},
	{"CAST(x AS FLOAT)", cast(ref("x"), "DOUBLE")},
	{"CAST(x AS DOUBLE)", cast(ref("x"), "DOUBLE")},
	{"CAST(x AS DOUBLE PRECISION)", cast(ref("x"), "DOUBLE")},
	{"CAST(x AS REAL)", cast(ref("x"), "DOUBLE")},
	{"CAST(x AS BOOLEAN)", cast(ref("x"), "BOOLEAN")},
	{"CAST(x AS DATE)", cast(ref("x"), "DATE")},
	{"CAST(x AS TIMESTAMP)", cast(ref("x"), "TIMESTAMP")},
	{"CAST(x AS TIMESTAMP_NTZ)", cast(ref("x"), "TIMESTAMP")},
	{"CAST(x AS TIME)", cast(ref("x"), "TIME")},
	{"CAST('2024-01-01' AS DATE)", cast(str("2024-01-01"), "DATE")},
	{"x::bigint", cast(ref("x"), "BIGINT")},
	{"x::numeric(10,2)", Cast{X: ref("x"), Type: "DECIMAL", Precision: 10, Scale: 2}},
	{"TRY_CAST(x AS INTEGER)", Cast{X: ref("x"), Type: "INTEGER", Try: true}},
	{"try_cast(s AS date) IS NULL", IsNull{X: Cast{X: ref("s"), Type: "DATE", Try: true}}},
	{"TRY_CAST(x AS INT)", Cast{X: ref("x"), Type: "INTEGER", Try: true}},
	{"TRY_CAST ( x AS STRING )", Cast{X: ref("x"), Type: "VARCHAR", Try: true}},
	{"CAST(x AS DECIMAL)", cast(ref("x"), "DECIMAL")},
	{"TIMESTAMP_NTZ '2024-01-15 10:30:00'", cast(str("2024-01-15 10:30:00"), "TIMESTAMP")},
	{"TIME '10:30:00'", cast(str("10:30:00"), "TIME")},
	// rewrites leave quoted text alone
	{"'TRY_CAST(' || \"CURRENT_DATE()\"", bin("||", str("TRY_CAST("), Ref{Name: "CURRENT_DATE()", Quoted: true})},
	{"CURRENT_TIMESTAMP() + CURRENT_DATE ( )", bin("+", Func{Name: "CURRENT_TIMESTAMP"}, Func{Name: "CURRENT_DATE"})},
	{"IFF(a, b, c)", fn("IFF", ref("a"), ref("b"), ref("c"))},
	{"NVL2(a, b, c)", fn("NVL2", ref("a"), ref("b"), ref("c"))},
	{"ZEROIFNULL(a) + NULLIFZERO(b)", bin("+", fn("ZEROIFNULL", ref("a")), fn("NULLIFZERO", ref("b")))},
	{"ATAN2(a, b) + PI()", bin("+", fn("ATAN2", ref("a"), ref("b")), Func{Name: "PI"})},
	// arithmetic, unary, concatenation
	{"a + b", bin("+", ref("a"), ref("b"))},
	{"a - b - c", bin("-", bin("-", ref("a"), ref("b")), ref("c"))},
	{"a - (b - c)", bin("-", ref("a"), bin("-", ref("b"), ref("c")))},
	{"a * b / c % d", bin("%", bin("/", bin("*", ref("a"), ref("b")), ref("c")), ref("d"))},
	{"a + b * c", bin("+", ref("a"), bin("*", ref("b"), ref("c")))},
	{"(a + b) * c", bin("*", bin("+", ref("a"), ref("b")), ref("c"))},
	{"-x", Unary{Op: "-", X: ref("x")}},
	{"-(-x)", Unary{Op: "-", X: Unary{Op: "-", X: ref("x")}}},
	{"+x", Unary{Op: "+", X: ref("x")}},
	{"a - -5", bin("-", ref("a"), num("-5"))},
	{"-(a + b)", Unary{Op: "-", X: bin("+", ref("a"), ref("b"))}},
	{"a || b", bin("||", ref("a"), ref("b"))},
	{"a || b + c", bin("||", ref("a"), bin("+", ref("b"), ref("c")))},
	// comparison
	{"a = 1", bin("=", ref("a"), num("1"))},
	{"a <> 1", bin("<>", ref("a"), num("1"))},
	{"a != 1", bin("<>", ref("a"), num("1"))},
	{"a < 1", bin("<", ref("a"), num("1"))},
	{"a <= 1", bin("<=", ref("a"), num("1"))},
	{"a > 1", bin(">", ref("a"), num("1"))},
	{"a >= 1", bin(">=", ref("a"), num("1"))},
	{"a IS DISTINCT FROM b", bin("IS DISTINCT FROM", ref("a"), ref("b"))},
	{"a IS NOT DISTINCT FROM b", bin("IS NOT DISTINCT FROM", ref("a"), ref("b"))},
	// logic
	{"a AND b", bin("AND", ref("a"), ref("b"))},
	{"a AND b AND c", bin("AND", bin("AND", ref("a"), ref("b")), ref("c"))},
	{"a AND (b AND c)", bin("AND", ref("a"), bin("AND", ref("b"), ref("c")))},
	{"a OR b AND c", bin("OR", ref("a"), bin("AND", ref("b"), ref("c")))},
	{"(a OR b) AND c", bin("AND", bin("OR", ref("a"), ref("b")), ref("c"))},
	{"NOT a", Unary{Op: "NOT", X: ref("a")}},
	{"NOT a = b", Unary{Op: "NOT", X: bin("=", ref("a"), ref("b"))}},
	{"NOT a AND b", bin("AND", Unary{Op: "NOT", X: ref("a")}, ref("b"))},
	// predicates
	{"x BETWEEN 1 AND 10", Between{X: ref("x"), Lo: num("1"), Hi: num("10")}},
	{"x NOT BETWEEN 1 AND 2 + 3", Between{X: ref("x"), Lo: num("1"), Hi: bin("+", num("2"), num("3")), Not: true}},
	{"x IN (1, 2, 3)", In{X: ref("x"), List: []Node{num("1"), num("2"), num("3")}}},
	{"x NOT IN ('a', 'b')", In{X: ref("x"), List: []Node{str("a"), str("b")}, Not: true}},
	{"s LIKE 'a%'", Like{X: ref("s"), Pattern: str("a%")}},
	{"s NOT LIKE 'a%'", Like{X: ref("s"), Pattern: str("a%"), Not: true}},
	{"s ILIKE 'a%'", Like{X: ref("s"), Pattern: str("a%"), ILike: true}},
	{"s NOT ILIKE 'a%'", Like{X: ref("s"), Pattern: str("a%"), ILike: true, Not: true}},
	{"x IS NULL", IsNull{X: ref("x")}},
	{"x IS NOT NULL", IsNull{X: ref("x"), Not: true}},
	{"a = b IS NULL", IsNull{X: bin("=", ref("a"), ref("b"))}},
	// CASE
	{"CASE WHEN a > 0 THEN 'p' WHEN a < 0 THEN 'n' ELSE 'z' END", Case{Whens: []When{
		{bin(">", ref("a"), num("0")), str("p")}, {bin("<", ref("a"), num("0")), str("n")}}, Else: str("z")}},
	{"CASE WHEN a THEN 1 END", Case{Whens: []When{{ref("a"), num("1")}}}},
	{"CASE status WHEN 'x' THEN 1 ELSE 0 END", Case{Operand: ref("status"), Whens: []When{{str("x"), num("1")}}, Else: num("0")}},
	// conditional functions
	{"COALESCE(a, b, 0)", fn("COALESCE", ref("a"), ref("b"), num("0"))},
	{"NULLIF(a, 0)", fn("NULLIF", ref("a"), num("0"))},
	{"GREATEST(a, b)", fn("GREATEST", ref("a"), ref("b"))},
	{"LEAST(a, b, c)", fn("LEAST", ref("a"), ref("b"), ref("c"))},
	{"IF(a > 0, 1, 0)", fn("IF", bin(">", ref("a"), num("0")), num("1"), num("0"))},
	{"IFF(a, 1, 0)", fn("IFF", ref("a"), num("1"), num("0"))},
	// aggregates
	{"SUM(orders.amount)", fn("SUM", qref("orders", "amount"))},
	{"sum(x)", fn("SUM", ref("x"))},
	{"COUNT(x)", fn("COUNT", ref("x"))},
	{"COUNT(*)", Func{Name: "COUNT", Star: true}},
	{"COUNT(DISTINCT x)", Func{Name: "COUNT", Args: []Node{ref("x")}, Distinct: true}},
	{"SUM(DISTINCT x)", Func{Name: "SUM", Args: []Node{ref("x")}, Distinct: true}},
	{"AVG(x)", fn("AVG", ref("x"))},
	{"MIN(x)", fn("MIN", ref("x"))},
	{"MAX(x)", fn("MAX", ref("x"))},
	{"STDDEV(x)", fn("STDDEV", ref("x"))},
	{"STDDEV_POP(x)", fn("STDDEV_POP", ref("x"))},
	{"STDDEV_SAMP(x)", fn("STDDEV_SAMP", ref("x"))},
	{"VARIANCE(x)", fn("VARIANCE", ref("x"))},
	{"VAR_POP(x)", fn("VAR_POP", ref("x"))},
	{"VAR_SAMP(x)", fn("VAR_SAMP", ref("x"))},
	{"MEDIAN(x)", fn("MEDIAN", ref("x"))},
	{"PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY x)", Func{Name: "PERCENTILE_CONT", Args: []Node{num("0.5")}, WithinGroup: ref("x")}},
	{"PERCENTILE_DISC(0.9) WITHIN GROUP (ORDER BY x ASC)", Func{Name: "PERCENTILE_DISC", Args: []Node{num("0.9")}, WithinGroup: ref("x")}},
	{"APPROX_COUNT_DISTINCT(x)", fn("APPROX_COUNT_DISTINCT", ref("x"))},
	{"APPROX_PERCENTILE(x, 0.5)", fn("APPROX_PERCENTILE", ref("x"), num("0.5"))},
	{"SUM(x) FILTER (WHERE y > 1)", Func{Name: "SUM", Args: []Node{ref("x")}, Filter: bin(">", ref("y"), num("1"))}},
	{"COUNT(*) FILTER (WHERE ok)", Func{Name: "COUNT", Star: true, Filter: ref("ok")}},
	{"SUM(CASE WHEN ok THEN x END)", fn("SUM", Case{Whens: []When{{ref("ok"), ref("x")}}})},
	{"SUM(x) / NULLIF(COUNT(*), 0)", bin("/", fn("SUM", ref("x")), fn("NULLIF", Func{Name: "COUNT", Star: true}, num("0")))},
	{"SUM(MAX(x))", fn("SUM", fn("MAX", ref("x")))}, // nested: parsed, validation refuses
	// date and time
	{"CURRENT_DATE", fn("CURRENT_DATE")},
	{"CURRENT_DATE()", fn("CURRENT_DATE")},
	{"CURRENT_TIMESTAMP", fn("CURRENT_TIMESTAMP")},
	{"current_timestamp()", fn("CURRENT_TIMESTAMP")},
	{"CURRENT_TIME", fn("CURRENT_TIME")},
	{"CURRENT_TIME()", fn("CURRENT_TIME")},
	{"YEAR(d)", fn("YEAR", ref("d"))},
	{"QUARTER(d)", fn("QUARTER", ref("d"))},
	{"MONTH(d)", fn("MONTH", ref("d"))},
	{"DAY(d)", fn("DAY", ref("d"))},
	{"DAYOFYEAR(d)", fn("DAYOFYEAR", ref("d"))},
	{"HOUR(d)", fn("HOUR", ref("d"))},
	{"MINUTE(d)", fn("MINUTE", ref("d"))},
	{"SECOND(d)", fn("SECOND", ref("d"))},
	{"EXTRACT(YEAR FROM d)", fn("EXTRACT", kw("YEAR"), ref("d"))},
	{"extract(quarter from d)", fn("EXTRACT", kw("QUARTER"), ref("d"))},
	{"EXTRACT(DAYOFWEEK FROM d)", fn("EXTRACT", kw("DAYOFWEEK"), ref("d"))},
	{"DATE_PART('month', d)", fn("DATE_PART", str("month"), ref("d"))},
	{"DATE_PART(month, d)", fn("DATE_PART", kw("MONTH"), ref("d"))},
	{"DATE_TRUNC('week', d)", fn("DATE_TRUNC", str("week"), ref("d"))},
	{"DATE_TRUNC(month, d)", fn("DATE_TRUNC", kw("MONTH"), ref("d"))},
	{"DATEADD(day, 7, d)", fn("DATEADD", kw("DAY"), num("7"), ref("d"))},
	{"DATEADD('day', -1, d)", fn("DATEADD", str("day"), num("-1"), ref("d"))},
	{"DATEDIFF(day, a, b)", fn("DATEDIFF", kw("DAY"), ref("a"), ref("b"))},
	{"TO_DATE(s)", fn("TO_DATE", ref("s"))},
	{"TO_DATE(s, 'YYYY-MM-DD')", fn("TO_DATE", ref("s"), str("YYYY-MM-DD"))},
	{"TO_TIMESTAMP(s)", fn("TO_TIMESTAMP", ref("s"))},
	// string
	{"CONCAT(a, ' ', b)", fn("CONCAT", ref("a"), str(" "), ref("b"))},
	{"LENGTH(s)", fn("LENGTH", ref("s"))},
	{"LOWER(s)", fn("LOWER", ref("s"))},
	{"UPPER(s)", fn("UPPER", ref("s"))},
	{"TRIM(s)", fn("TRIM", ref("s"))},
	{"TRIM(BOTH 'x' FROM s)", fn("TRIM", ref("s"), str("x"))},
	{"TRIM(s, 'x')", fn("TRIM", ref("s"), str("x"))},
	{"TRIM(LEADING FROM s)", fn("LTRIM", ref("s"))},
	{"TRIM(TRAILING 'x' FROM s)", fn("RTRIM", ref("s"), str("x"))},
	{"LTRIM(s)", fn("LTRIM", ref("s"))},
	{"RTRIM(s)", fn("RTRIM", ref("s"))},
	{"LEFT(s, 2)", fn("LEFT", ref("s"), num("2"))},
	{"RIGHT(s, 2)", fn("RIGHT", ref("s"), num("2"))},
	{"SUBSTRING(s, 2, 3)", fn("SUBSTRING", ref("s"), num("2"), num("3"))},
	{"SUBSTRING(s, 2)", fn("SUBSTRING", ref("s"), num("2"))},
	{"SUBSTRING(s FROM 2 FOR 3)", fn("SUBSTRING", ref("s"), num("2"), num("3"))},
	{"SUBSTRING(s FROM 2)", fn("SUBSTRING", ref("s"), num("2"))},
	{"REPLACE(s, 'a', 'b')", fn("REPLACE", ref("s"), str("a"), str("b"))},
	{"SPLIT_PART(s, ',', 1)", fn("SPLIT_PART", ref("s"), str(","), num("1"))},
	{"POSITION('a' IN s)", fn("POSITION", str("a"), ref("s"))},
	{"CHARINDEX('a', s)", fn("CHARINDEX", str("a"), ref("s"))},
	{"CONTAINS(s, 'a')", fn("CONTAINS", ref("s"), str("a"))},
	{"STARTSWITH(s, 'a')", fn("STARTSWITH", ref("s"), str("a"))},
	{"ENDSWITH(s, 'a')", fn("ENDSWITH", ref("s"), str("a"))},
	{"REGEXP_LIKE(s, '^a')", fn("REGEXP_LIKE", ref("s"), str("^a"))},
	{"REGEXP_EXTRACT(s, '[0-9]+')", fn("REGEXP_EXTRACT", ref("s"), str("[0-9]+"))},
	{"REGEXP_REPLACE(s, 'a', 'b')", fn("REGEXP_REPLACE", ref("s"), str("a"), str("b"))},
	// math
	{"ABS(x)", fn("ABS", ref("x"))},
	{"ROUND(x)", fn("ROUND", ref("x"))},
	{"ROUND(x, 2)", fn("ROUND", ref("x"), num("2"))},
	{"FLOOR(x)", fn("FLOOR", ref("x"))},
	{"CEIL(x)", fn("CEIL", ref("x"))},
	{"CEILING(x)", fn("CEIL", ref("x"))},
	{"TRUNC(x)", fn("TRUNC", ref("x"))},
	{"TRUNCATE(x, 1)", fn("TRUNC", ref("x"), num("1"))},
	{"MOD(a, 3)", fn("MOD", ref("a"), num("3"))},
	{"SIGN(x)", fn("SIGN", ref("x"))},
	{"POWER(x, 2)", fn("POWER", ref("x"), num("2"))},
	{"SQRT(x)", fn("SQRT", ref("x"))},
	{"EXP(x)", fn("EXP", ref("x"))},
	{"LN(x)", fn("LN", ref("x"))},
	{"LOG(10, x)", fn("LOG", num("10"), ref("x"))},
	{"LOG10(x)", fn("LOG10", ref("x"))},
	// whitespace and comments are not part of the tree
	{"  amount  -- trailing comment", ref("amount")},
	{"/* c */ a +\n b", bin("+", ref("a"), ref("b"))},
	{"amount;", ref("amount")},
	// unreserved keywords are column names, even those that start statements
	{"begin", ref("begin")},
	{"vacuum + checkpoint", bin("+", ref("vacuum"), ref("checkpoint"))},
	{"year", ref("year")},
}

func TestParse(t *testing.T) {
	for _, c := range parseCases {
		got, errs := Parse(c.text)
		if len(errs) > 0 {
			t.Errorf("Parse(%q): unexpected problems %v", c.text, errs)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Parse(%q)\n got  %#v\n want %#v", c.text, got, c.want)
		}
	}
}

// refusals: text → code, a fragment of the message, and the offset.
var refusals = []struct {
	text, code, msg string
	offset          int
}{
	{"a +", "OSS3001", "syntax error at end of input", 3},
	{"a + * b", "OSS3001", `syntax error at or near "*"`, 4},
	{"'unterminated", "OSS3001", "unterminated", 0},
	{"", "OSS3001", "empty expression", 0},
	{"  -- nothing", "OSS3001", "empty expression", 0},
	{"a\x00b", "OSS3001", "NUL", 1},
	{"a\xffb", "OSS3001", "UTF-8", 1},
	{"é + ", "OSS3001", "syntax error", 5}, // offsets are bytes even after multi-byte text
	{"'ééé' + * b", "OSS3001", `at or near "*"`, 11},

	{"(SELECT 1)", "OSS3002", "subquery", 0},
	{"x IN (SELECT id FROM t)", "OSS3002", "subquery", 2},
	{"EXISTS (SELECT 1)", "OSS3002", "subquery", 0},
	{"SELECT a FROM t", "OSS3002", "SELECT ... FROM", 0},
	{"SELECT 1", "OSS3002", "SELECT", 0},
	{"amount FROM t", "OSS3002", "SELECT ... FROM", 7},
	{"amount WHERE x > 1", "OSS3002", "WHERE", 7},
	{"amount ORDER BY 1", "OSS3002", "ORDER BY", 7},
	{"amount LIMIT 1", "OSS3002", "LIMIT", 7},
	{"DISTINCT amount", "OSS3002", "DISTINCT", 0},
	{"1 UNION SELECT 2", "OSS3002", "set operation (UNION)", 0},
	{"DROP TABLE orders", "OSS3002", "DROP TABLE", 0},
	{"  delete from orders", "OSS3002", "DELETE", 2},
	{"/* hi */ DROP TABLE orders", "OSS3002", "DROP TABLE", 0},
	{"TRUNCATE orders", "OSS3002", "TRUNCATE", 0},
	{"UPDATE orders SET amount = 0", "OSS3002", "UPDATE", 0},
	{"INSERT INTO t VALUES (1)", "OSS3002", "INSERT", 0},
	{"amount; DROP TABLE t", "OSS3002", "multiple statements", 8},
	{"amount; DROP TABLE t", "OSS3002", "DROP TABLE", 8},
	{"amount --\n; DELETE FROM t", "OSS3002", "multiple statements", 12},
	{"WITH x AS (SELECT 1) SELECT 1", "OSS3002", "statement (WITH)", 0},
	{"a AS b", "OSS3002", "alias", 0},
	{"a, b", "OSS3002", "list of expressions", 3},
	{"*", "OSS3002", "*", 0},
	{"t.*", "OSS3002", "*", 0},
	{"db.t.x", "OSS3002", "3-part reference", 0},
	{"SUM(x) OVER (PARTITION BY y)", "OSS3002", "window function", 0},
	{"MEDIAN(DISTINCT x)", "OSS3002", "DISTINCT in MEDIAN", 0},
	{"DATE_TRUNC('dayofweek', d)", "OSS3002", "cannot truncate to DAYOFWEEK", 11},
	{"PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY x DESC)", "OSS3002", "DESC", 0},
	{"INTERVAL '1 day'", "OSS3002", "INTERVAL", 0},
	{"d + INTERVAL '1' DAY", "OSS3002", "DATEADD", 4},
	{"a; DROP TABLE t; --", "OSS3002", "multiple statements", 3},
	{"'a;' || b; SELECT 1", "OSS3002", "multiple statements", 11},
	{"ROW_NUMBER() OVER ()", "OSS3002", "window function", 0},
	{"$1", "OSS3002", "parameter", 0},
	{"ARRAY[1, 2]", "OSS3002", "ARRAY", 0},
	{"x[1]", "OSS3002", "subscript", 0},
	{"(a, b)", "OSS3002", "row constructor", 0},
	{"x COLLATE \"C\"", "OSS3002", "COLLATE", 2},
	{"x IS TRUE", "OSS3002", "IS [NOT] TRUE", 2},
	{"x SIMILAR TO 'a'", "OSS3002", "SIMILAR TO", 2},
	{"x = ANY(y)", "OSS3002", "ANY/ALL", 2},
	{"x ~ 'a'", "OSS3002", "operator ~", 2},
	{"x ^ 2", "OSS3002", "operator ^", 2},
	{"x BETWEEN SYMMETRIC 1 AND 2", "OSS3002", "SYMMETRIC", 2},
	{"s LIKE 'a!%' ESCAPE '!'", "OSS3002", "ESCAPE", 2},
	{"x AT TIME ZONE 'UTC'", "OSS3002", "AT TIME ZONE", 2},
	{"CURRENT_USER", "OSS3002", "CURRENT_USER", 0},
	{"B'101'", "OSS3002", "bit-string", 0},
	{"INTERVAL '1 day'", "OSS3002", "INTERVAL", 0},
	{"CAST(x AS timestamptz)", "OSS3002", "TIMESTAMPTZ", 10},
	{"CAST(x AS SMALLINT)", "OSS3002", "INT2", 10},
	{"CAST(x AS int[])", "OSS3002", "array", 10},
	{"CAST(x AS myschema.money)", "OSS3002", "myschema.money", 10},
	{"CAST(x AS DECIMAL(50, 2))", "OSS3002", "out of range", 10},
	{"pg_catalog.lower(x)", "OSS3002", "qualified function name", 0},
	{"SUM(*)", "OSS3002", "SUM(*)", 0},
	{"LOWER(DISTINCT s)", "OSS3002", "DISTINCT or FILTER", 0},
	{"UPPER(s) FILTER (WHERE ok)", "OSS3002", "DISTINCT or FILTER", 0},
	{"SUM(x ORDER BY y)", "OSS3002", "ORDER BY inside", 0},
	{"PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY x DESC)", "OSS3002", "DESC", 0},
	{"MEDIAN(0.5) WITHIN GROUP (ORDER BY x)", "OSS3002", "WITHIN GROUP on MEDIAN", 0},
	{"DATE_PART('fortnight', d)", "OSS3002", `unknown date part "fortnight"`, 10},
	{"EXTRACT(EPOCH FROM d)", "OSS3002", `unknown date part "EPOCH"`, 8},
	{`DATEADD("day", 1, d)`, "OSS3002", "must be a date part", 8},
	{"DATEADD(1, 1, d)", "OSS3002", "must be a date part", 8},
	{"CONCAT(a => 1)", "OSS3002", "named argument", 7},

	{"FOO(x)", "OSS3003", "unknown function FOO", 0},
	{"flor(x)", "OSS3003", "did you mean FLOOR?", 0},
	{"a + summ(x)", "OSS3003", "did you mean SUM?", 4},
	{"trimm(s)", "OSS3003", "did you mean TRIM?", 0},

	{"ABS(1, 2)", "OSS3007", "ABS takes 1 argument, got 2", 0},
	{"COUNT()", "OSS3007", "COUNT takes 1 argument, got 0", 0},
	{"DATEADD(day, d)", "OSS3007", "DATEADD takes 3 arguments, got 2", 0},
	{"ROUND(x, 1, 2)", "OSS3007", "ROUND takes 1 to 2 arguments, got 3", 0},
	{"CONCAT()", "OSS3007", "CONCAT takes at least 1 arguments, got 0", 0},
	{"PERCENTILE_CONT(0.5)", "OSS3007", "needs WITHIN GROUP", 0},
	{"CURRENT_DATE + ABS()", "OSS3007", "ABS takes 1 argument", 15},
}

func TestParseRefused(t *testing.T) {
	for _, c := range refusals {
		n, errs := Parse(c.text)
		if n != nil {
			t.Errorf("Parse(%q) returned a tree %#v with problems %v", c.text, n, errs)
		}
		found := false
		for _, e := range errs {
			if e.Code == c.code && strings.Contains(e.Message, c.msg) && e.Offset == c.offset {
				found = true
			}
		}
		if !found {
			t.Errorf("Parse(%q): want %s at %d containing %q, got %v", c.text, c.code, c.offset, c.msg, errs)
		}
	}
}

// Every problem is reported, not only the first.
func TestParseReportsAllProblems(t *testing.T) {
	_, errs := Parse("FOO(x) + ABS(1, 2) + (SELECT 1)")
	codes := map[string]bool{}
	for _, e := range errs {
		codes[e.Code] = true
	}
	for _, want := range []string{"OSS3003", "OSS3007", "OSS3002"} {
		if !codes[want] {
			t.Errorf("missing %s in %v", want, errs)
		}
	}
}

func TestErrorString(t *testing.T) {
	e := Error{Code: "OSS3003", Message: "unknown function FOO", Offset: 4}
	if got, want := e.Error(), "OSS3003 at offset 4: unknown function FOO"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func BenchmarkParse(b *testing.B) {
	text := "SUM(CASE WHEN orders.status = 'shipped' AND orders.amount BETWEEN 10 AND 1000 " +
		"THEN orders.amount * (1 - COALESCE(orders.discount, 0)) END) / NULLIF(COUNT(DISTINCT orders.customer_id), 0)"
	b.ReportAllocs()
	for b.Loop() {
		if _, errs := Parse(text); errs != nil {
			b.Fatal(errs)
		}
	}
}
