package expr

import (
	"reflect"
	"strings"
	"testing"
)

func mustParse(t *testing.T, text string) Node {
	t.Helper()
	n, errs := Parse(text)
	if errs != nil {
		t.Fatalf("Parse(%q): %v", text, errs)
	}
	return n
}

func TestWalkPreOrder(t *testing.T) {
	n := mustParse(t, "CASE WHEN a > 1 THEN SUM(b) FILTER (WHERE c) ELSE d END")
	var seen []string
	Walk(n, func(x Node) bool {
		switch v := x.(type) {
		case Ref:
			seen = append(seen, v.Name)
		case Func:
			seen = append(seen, v.Name)
		case Binary:
			seen = append(seen, v.Op)
		case Literal:
			seen = append(seen, v.Value)
		case Case:
			seen = append(seen, "CASE")
		}
		return true
	})
	if got, want := strings.Join(seen, " "), "CASE > a 1 SUM b c d"; got != want {
		t.Errorf("pre-order = %q, want %q", got, want)
	}
}

func TestWalkSkipsChildren(t *testing.T) {
	n := mustParse(t, "SUM(a) + b")
	var refs []string
	Walk(n, func(x Node) bool {
		if r, ok := x.(Ref); ok {
			refs = append(refs, r.Name)
		}
		_, isFunc := x.(Func)
		return !isFunc
	})
	if !reflect.DeepEqual(refs, []string{"b"}) {
		t.Errorf("refs outside aggregates = %v, want [b]", refs)
	}
	Walk(nil, func(Node) bool { t.Error("visited nil"); return true })
}

func TestRefsDeduplicatedInOrder(t *testing.T) {
	n := mustParse(t, `o.b + a + O.B + "A" + a`)
	want := []Ref{qref("o", "b"), ref("a"), {Name: "A", Quoted: true}}
	if got := Refs(n); !reflect.DeepEqual(got, want) {
		t.Errorf("Refs = %#v, want %#v", got, want)
	}
	n = mustParse(t, "PERCENTILE_CONT(p) WITHIN GROUP (ORDER BY x)")
	if got := Refs(n); !reflect.DeepEqual(got, []Ref{ref("p"), ref("x")}) {
		t.Errorf("Refs = %#v", got)
	}
	if Refs(mustParse(t, "COUNT(*)")) != nil {
		t.Error("COUNT(*) has refs")
	}
}

func TestRewriteSubstitutes(t *testing.T) {
	n := mustParse(t, "SUM(o.amount) / NULLIF(COUNT(*), 0) + o.amount")
	orig := Format(n)
	// Replace aggregates by column refs, as the planner does for an outer query.
	i := 0
	got := Rewrite(n, func(x Node) Node {
		if f, ok := x.(Func); ok {
			if fi, _ := Lookup(f.Name); fi.Aggregate {
				i++
				return Ref{Name: "agg" + string(rune('0'+i))}
			}
		}
		return x
	})
	if s := Format(got); s != "agg1 / NULLIF(agg2, 0) + o.amount" {
		t.Errorf("rewritten = %q", s)
	}
	if Format(n) != orig {
		t.Errorf("Rewrite modified its input: %q", Format(n))
	}
	// Post-order: fn sees rebuilt children.
	got = Rewrite(mustParse(t, "a + b"), func(x Node) Node {
		switch v := x.(type) {
		case Ref:
			return num("1")
		case Binary:
			if v.L == (Node)(num("1")) && v.R == (Node)(num("1")) {
				return num("2")
			}
		}
		return x
	})
	if !reflect.DeepEqual(got, num("2")) {
		t.Errorf("post-order rewrite = %#v", got)
	}
	if Rewrite(nil, func(x Node) Node { return x }) != nil {
		t.Error("Rewrite(nil) != nil")
	}
}

// Rewrite with the identity keeps every kind intact.
func TestRewriteIdentity(t *testing.T) {
	n := allKinds(t)
	if got := Rewrite(n, func(x Node) Node { return x }); !reflect.DeepEqual(got, n) {
		t.Errorf("identity rewrite changed the tree")
	}
}

func TestIsAggregate(t *testing.T) {
	cases := map[string]bool{
		"amount":                         false,
		"UPPER(name)":                    false,
		"SUM(x)":                         true,
		"1 + COUNT(*)":                   true,
		"CASE WHEN a THEN MEDIAN(x) END": true,
		"COALESCE(MAX(x), 0)":            true,
		"DATE_TRUNC('month', d)":         false,
		"m1 / m2":                        false,
		"PERCENTILE_DISC(0.5) WITHIN GROUP (ORDER BY x)": true,
	}
	for text, want := range cases {
		if got := IsAggregate(mustParse(t, text)); got != want {
			t.Errorf("IsAggregate(%q) = %v, want %v", text, got, want)
		}
	}
}
