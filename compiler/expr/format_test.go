package expr

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/ossie-dev/ossie/compiler/dialect"
)

// Every accepted expression survives Parse → Format → Parse unchanged.
func TestFormatRoundTrip(t *testing.T) {
	for _, c := range parseCases {
		checkFormatRoundTrip(t, c.text)
	}
}

func checkFormatRoundTrip(t *testing.T, text string) {
	t.Helper()
	n, errs := Parse(text)
	if errs != nil {
		return
	}
	out := Format(n)
	back, errs := Parse(out)
	if errs != nil {
		t.Fatalf("Parse(Format(Parse(%q))) = Parse(%q): %v", text, out, errs)
	}
	if !reflect.DeepEqual(back, n) {
		t.Fatalf("round trip of %q via %q\n got  %#v\n want %#v", text, out, back, n)
	}
}

func TestFormatCanonical(t *testing.T) {
	cases := []struct{ in, want string }{
		{"sum( Orders.Amount )", "SUM(orders.amount)"},
		{`"Invoice Date"`, `"Invoice Date"`},
		{`orders."Invoice Date"`, `"orders"."Invoice Date"`},
		{`"a""b"`, `"a""b"`},
		{"t.select", "t.select"},
		{"'it''s'", "'it''s'"},
		{"a != b", "a <> b"},
		{"a - (b - c)", "a - (b - c)"},
		{"(a - b) - c", "a - b - c"},
		{"(a + b) * c", "(a + b) * c"},
		{"a AND (b OR c)", "a AND (b OR c)"},
		{"NOT (a AND b)", "NOT (a AND b)"},
		{"(NOT a) = b", "(NOT a) = b"},
		{"-(-x)", "-(-x)"},
		{"-(a * b)", "-(a * b)"},
		{"(x IS NULL) IS NULL", "(x IS NULL) IS NULL"},
		{"(a BETWEEN 1 AND 2) = TRUE", "(a BETWEEN 1 AND 2) = TRUE"},
		{"x BETWEEN (a = b) AND c", "x BETWEEN (a = b) AND c"},
		{"(a LIKE 'x') LIKE 'y'", "(a LIKE 'x') LIKE 'y'"},
		{"POSITION(('a' || 'b') IN s)", "POSITION('a' || 'b' IN s)"},
		{"try_cast(x as int)", "TRY_CAST(x AS INTEGER)"},
		{"x::numeric(10, 2)", "CAST(x AS DECIMAL(10, 2))"},
		{"cast('2024-01-01' as date)", "DATE '2024-01-01'"},
		{"TIMESTAMP_NTZ '2024-01-01 00:00:00'", "TIMESTAMP '2024-01-01 00:00:00'"},
		{"current_date()", "CURRENT_DATE"},
		{"extract(year from d)", "EXTRACT(YEAR FROM d)"},
		{"dateadd(day, 1, d)", "DATEADD(DAY, 1, d)"},
		{"count(distinct x) filter (where y)", "COUNT(DISTINCT x) FILTER (WHERE y)"},
		{"percentile_cont(0.5) within group (order by x)", "PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY x)"},
		{"case when a then 1 else 2 end", "CASE WHEN a THEN 1 ELSE 2 END"},
		{"ceiling(x)", "CEIL(x)"},
		{"x not in (1, 2)", "x NOT IN (1, 2)"},
		{"x is not distinct from y", "x IS NOT DISTINCT FROM y"},
		{"a = b IS NULL", "(a = b) IS NULL"},
		{"TRIM(BOTH 'x' FROM s)", "TRIM(s, 'x')"},
	}
	for _, c := range cases {
		n, errs := Parse(c.in)
		if errs != nil {
			t.Errorf("Parse(%q): %v", c.in, errs)
			continue
		}
		if got := Format(n); got != c.want {
			t.Errorf("Format(Parse(%q)) = %q, want %q", c.in, got, c.want)
		}
		checkFormatRoundTrip(t, c.in)
	}
}

// Trees built by hand (the planner's substitutions) format safely even
// when they could not come from Parse.
func TestFormatConstructed(t *testing.T) {
	cases := []struct {
		n    Node
		want string
	}{
		{nil, ""},
		{Ref{Name: "Mixed Case"}, `"Mixed Case"`},         // unquoted but not writable bare
		{Ref{Name: "select"}, `"select"`},                 // reserved word
		{Ref{Qualifier: "t", Name: "select"}, "t.select"}, // any word after a dot
		{Literal{Kind: LitNumber, Value: "1; DROP TABLE t"}, "'1; DROP TABLE t'"},
		{Keyword{Name: "day); DROP"}, "'day); DROP'"},
		{Unary{Op: "-", X: Literal{Kind: LitNumber, Value: "-5"}}, "-(-5)"},
		{&Binary{Op: "+", L: &Ref{Name: "a"}, R: num("1")}, "a + 1"}, // pointer nodes
		{Cast{X: ref("x"), Type: "DECIMAL", Precision: 10}, "CAST(x AS DECIMAL(10))"},
	}
	for _, c := range cases {
		if got := Format(c.n); got != c.want {
			t.Errorf("Format(%#v) = %q, want %q", c.n, got, c.want)
		}
	}
}

// FuzzParse: Parse never panics, and whatever it accepts formats to text
// that parses back to the same tree and survives the JSON round trip.
func FuzzParse(f *testing.F) {
	for _, c := range parseCases {
		f.Add(c.text)
	}
	for _, c := range refusals {
		f.Add(c.text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		n, errs := Parse(text)
		if (n == nil) == (len(errs) == 0) {
			t.Fatalf("Parse(%q): tree %v with problems %v", text, n, errs)
		}
		for _, e := range errs {
			if e.Offset < 0 || e.Offset > len(text) {
				t.Fatalf("Parse(%q): offset %d outside the text", text, e.Offset)
			}
		}
		if n != nil {
			checkFormatRoundTrip(t, text)
			data, err := json.Marshal(Expr{n})
			if err != nil {
				t.Fatalf("marshal %q: %v", text, err)
			}
			var back Expr
			if err := json.Unmarshal(data, &back); err != nil || !reflect.DeepEqual(back.Node, n) {
				t.Fatalf("JSON round trip of %q via %s: %v", text, data, err)
			}
			// Every accepted tree renders for every engine, or is refused
			// as unsupported there (OSS3008); nothing else.
			for _, d := range engines {
				_, err := Render(n, d, func(r Ref) (string, error) { return d.QuoteIdent(r.Name), nil })
				var u *dialect.UnsupportedError
				if err != nil && !errors.As(err, &u) {
					t.Fatalf("Render(%q) for %s: %v", text, d.Name(), err)
				}
			}
		}
	})
}
