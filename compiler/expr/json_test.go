package expr

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

// allKinds holds one tree using every node kind and every optional field.
func allKinds(t *testing.T) Node {
	t.Helper()
	n, errs := Parse(`CASE o.k WHEN 1 THEN -a ELSE NOT b END + ` +
		`SUM(DISTINCT "Q"."X") FILTER (WHERE c BETWEEN 1 AND 2 AND d NOT IN ('x', NULL) AND e NOT ILIKE 'y%' AND f IS NOT NULL) + ` +
		`COUNT(*) + PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY g) + TRY_CAST(h AS DECIMAL(10, 2)) + ` +
		`DATEDIFF(day, TRUE, CASE WHEN i THEN 1 END)`)
	if errs != nil {
		t.Fatal(errs)
	}
	return n
}

func TestJSONRoundTripAllKinds(t *testing.T) {
	n := allKinds(t)
	kinds := map[string]bool{}
	Walk(n, func(x Node) bool {
		kinds[reflect.TypeOf(x).Name()] = true
		return true
	})
	for _, k := range []string{"Ref", "Literal", "Unary", "Binary", "Between", "In", "Like", "IsNull", "Case", "Cast", "Func", "Keyword"} {
		if !kinds[k] {
			t.Errorf("sample lacks a %s node", k)
		}
	}
	data, err := json.Marshal(Expr{n})
	if err != nil {
		t.Fatal(err)
	}
	var back Expr
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatalf("unmarshal %s: %v", data, err)
	}
	if !reflect.DeepEqual(back.Node, n) {
		t.Fatalf("JSON round trip changed the tree\n got  %#v\n want %#v", back.Node, n)
	}
	again, _ := json.Marshal(back)
	if string(again) != string(data) {
		t.Errorf("second marshal differs:\n%s\n%s", again, data)
	}

	// The artifact format is stable: compare with the golden file.
	golden := filepath.Join("testdata", "all_kinds.json")
	indented, _ := json.MarshalIndent(Expr{n}, "", "  ")
	indented = append(indented, '\n')
	if *update {
		if err := os.WriteFile(golden, indented, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(indented) != string(want) {
		t.Errorf("JSON differs from %s (run go test -update if intended):\n%s", golden, indented)
	}
}

func TestJSONRoundTripParseCases(t *testing.T) {
	for _, c := range parseCases {
		data, err := json.Marshal(Expr{c.want})
		if err != nil {
			t.Fatalf("%q: %v", c.text, err)
		}
		var back Expr
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatalf("%q: unmarshal %s: %v", c.text, data, err)
		}
		if !reflect.DeepEqual(back.Node, c.want) {
			t.Errorf("%q: JSON round trip via %s\n got  %#v\n want %#v", c.text, data, back.Node, c.want)
		}
	}
}

func TestJSONShape(t *testing.T) {
	n, _ := Parse(`SUM(o."Amt") > 1`)
	data, err := json.Marshal(Expr{n})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"t":"binary","op":"\u003e","l":{"t":"func","name":"SUM","args":[{"t":"ref","q":"o","n":"Amt","quoted":true}]},"r":{"t":"lit","kind":"number","v":"1"}}`
	if string(data) != want {
		t.Errorf("got  %s\nwant %s", data, want)
	}
	// Inside a struct, a nil Expr is null and reads back as nil.
	type holder struct {
		E Expr `json:"e"`
	}
	data, _ = json.Marshal(holder{})
	if string(data) != `{"e":null}` {
		t.Errorf("nil Expr marshals as %s", data)
	}
	var h holder
	if err := json.Unmarshal(data, &h); err != nil || h.E.Node != nil {
		t.Errorf("null → %#v, %v", h.E, err)
	}
}

func TestJSONUnmarshalRejects(t *testing.T) {
	cases := map[string]string{
		`{"t":"nope"}`:                  `unknown node tag "nope"`,
		`{"n":"x"}`:                     `unknown node tag ""`,
		`{"t":"ref","n":"x","extra":1}`: "unknown field",
		`{"t":"binary","op":"+","l":{"t":"ref","n":"a"}}`:                         "binary node: missing \"r\"",
		`{"t":"lit","kind":"date","v":"x"}`:                                       "unknown kind",
		`{"t":"case","whens":[]}`:                                                 "case node: without whens",
		`{"t":"func","name":"F","args":[null]}`:                                   "func node: null in \"args\"",
		`{"t":"unary","op":"-","x":{"t":"bad"}}`:                                  `unknown node tag "bad"`,
		`[1]`:                                                                     "expr:",
		`{"t":"lit","kind":"number","v":"1; DROP TABLE t"}`:                       "not a number",
		`{"t":"lit","kind":"bool","v":"yes"}`:                                     "not true or false",
		`{"t":"kw","kw":"DAY); DROP TABLE t; --"}`:                                "not an upper-case word",
		`{"t":"func","name":"sum(x); --"}`:                                        "not an upper-case word",
		`{"t":"cast","x":{"t":"ref","n":"a"},"type":"TEXT; --"}`:                  "unknown cast type",
		`{"t":"unary","op":"~","x":{"t":"ref","n":"a"}}`:                          "unary node: unknown operator \"~\"",
		`{"t":"binary","op":";","l":{"t":"ref","n":"a"},"r":{"t":"ref","n":"b"}}`: "binary node: unknown operator \";\"",
	}
	cases[`{"t":"in","x":{"t":"ref","n":"a"},"list":[]}`] = `in node: empty "list"`
	cases[`{"t":"cast","x":{"t":"ref","n":"a"},"type":"DECIMAL","p":-1}`] = "not a small non-negative integer"
	cases[`{"t":"ref","n":"a","quoted":"yes"}`] = "not a boolean"
	cases[`{"t":"ref","q":"a"}`] = `missing "n"`
	cases[`{"t":"case","whens":[{"cond":{"t":"ref","n":"a"},"then":{"t":"ref","n":"b"},"x":1}]}`] = "unknown field(s) x"
	for in, want := range cases {
		var e Expr
		err := json.Unmarshal([]byte(in), &e)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Unmarshal(%s) = %v, want error containing %q", in, err, want)
		}
	}
}

type alien struct{}

func (alien) node() {}

func TestJSONMarshalUnknownNode(t *testing.T) {
	if _, err := json.Marshal(Expr{Binary{Op: "+", L: alien{}, R: num("1")}}); err == nil {
		t.Error("marshalling a foreign node type succeeded")
	}
}

// A long operator chain (deep tree) round-trips; encoding is one pass, so
// this stays fast.
func TestJSONDeepChain(t *testing.T) {
	var n Node = ref("a")
	for i := 0; i < 3000; i++ {
		n = bin("+", n, num("1"))
	}
	data, err := json.Marshal(Expr{n})
	if err != nil {
		t.Fatal(err)
	}
	var back Expr
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Node, n) {
		t.Error("deep chain changed in the round trip")
	}
}
