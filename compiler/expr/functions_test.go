package expr

import (
	"slices"
	"strings"
	"testing"
)

func TestLookup(t *testing.T) {
	cases := []struct {
		name string
		want FuncInfo
	}{
		{"sum", FuncInfo{Name: "SUM", MinArgs: 1, MaxArgs: 1, Aggregate: true, Kind: "aggregate"}},
		{"Ceiling", FuncInfo{Name: "CEIL", MinArgs: 1, MaxArgs: 1, Kind: "math"}},
		{"truncate", FuncInfo{Name: "TRUNC", MinArgs: 1, MaxArgs: 2, Kind: "math"}},
		{"CONCAT", FuncInfo{Name: "CONCAT", MinArgs: 1, MaxArgs: -1, Kind: "string"}},
		{"dateadd", FuncInfo{Name: "DATEADD", MinArgs: 3, MaxArgs: 3, Kind: "date"}},
		{"coalesce", FuncInfo{Name: "COALESCE", MinArgs: 1, MaxArgs: -1, Kind: "conditional"}},
		{"approx_percentile", FuncInfo{Name: "APPROX_PERCENTILE", MinArgs: 2, MaxArgs: 2, Aggregate: true, Kind: "aggregate"}},
	}
	for _, c := range cases {
		got, ok := Lookup(c.name)
		got.Spec, got.Example = "", ""
		if !ok || got != c.want {
			t.Errorf("Lookup(%q) = %+v, %v; want %+v", c.name, got, ok, c.want)
		}
	}
	for _, name := range []string{"", "FOO", "ROW_NUMBER", "BTRIM", "pg_sleep"} {
		if _, ok := Lookup(name); ok {
			t.Errorf("Lookup(%q) found a function", name)
		}
	}
}

// Every catalog entry is reachable from text: the parser and the catalog
// agree on names.
func TestCatalogParses(t *testing.T) {
	for name, fi := range catalog {
		args := ""
		switch {
		case datePartArg(name) == 0:
			args = "DAY"
			for i := 1; i < fi.MinArgs; i++ {
				args += ", x"
			}
		default:
			for i := 0; i < fi.MinArgs; i++ {
				if i > 0 {
					args += ", "
				}
				args += "x"
			}
		}
		text := name + "(" + args + ")"
		switch name {
		case "EXTRACT":
			text = "EXTRACT(DAY FROM x)"
		case "POSITION":
			text = "POSITION(x IN y)"
		case "PERCENTILE_CONT", "PERCENTILE_DISC":
			text += " WITHIN GROUP (ORDER BY y)"
		}
		n, errs := Parse(text)
		if errs != nil {
			t.Errorf("Parse(%q): %v", text, errs)
			continue
		}
		f, ok := n.(Func)
		if !ok || f.Name != name {
			t.Errorf("Parse(%q) = %#v, want a %s call", text, n, name)
		}
	}
}

func TestSuggestFunc(t *testing.T) {
	cases := map[string]string{"SUMM": "SUM", "cout": "COUNT", "ceilng": "CEIL", "DATEAD": "DATEADD", "XYZZY": ""}
	for in, want := range cases {
		if got := suggestFunc(in); got != want {
			t.Errorf("suggestFunc(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	cases := []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"ABC", "", 3}, {"KITTEN", "SITTING", 3}, {"SUM", "SUM", 0}, {"FLOR", "FLOOR", 1}}
	for _, c := range cases {
		if got := editDistance(c.a, c.b); got != c.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}

// Every date part is accepted bare and quoted in every date-part position,
// and formats back to the same tree.
func TestDatePartsEverywhere(t *testing.T) {
	for _, part := range DateParts {
		texts := []string{
			"EXTRACT(" + part + " FROM d)",
			"DATEADD(" + part + ", 1, d)",
			"DATEDIFF(" + strings.ToLower(part) + ", a, b)",
			"DATE_PART('" + strings.ToLower(part) + "', d)",
		}
		if slices.Contains(TruncParts, part) {
			texts = append(texts, "DATE_TRUNC("+part+", d)")
		}
		for _, text := range texts {
			n, errs := Parse(text)
			if errs != nil {
				t.Errorf("Parse(%q): %v", text, errs)
				continue
			}
			arg := n.(Func).Args[0]
			if k, ok := arg.(Keyword); ok && k.Name != part {
				t.Errorf("Parse(%q): keyword %q, want %q", text, k.Name, part)
			}
			checkFormatRoundTrip(t, text)
		}
	}
}
