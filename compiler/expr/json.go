package expr

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// The JSON form of a tree is a tagged object per node, "t" naming the kind:
//
//	ref     {"t":"ref","q":"orders","n":"amount","quoted":true}
//	lit     {"t":"lit","kind":"number|string|bool|null","v":"1.5"}
//	kw      {"t":"kw","kw":"MONTH"}
//	unary   {"t":"unary","op":"-|+|NOT","x":…}
//	binary  {"t":"binary","op":"+","l":…,"r":…}
//	between {"t":"between","x":…,"lo":…,"hi":…,"not":true}
//	in      {"t":"in","x":…,"list":[…],"not":true}
//	like    {"t":"like","x":…,"pattern":…,"not":true,"ilike":true}
//	isnull  {"t":"isnull","x":…,"not":true}
//	case    {"t":"case","operand":…,"whens":[{"cond":…,"then":…}],"else":…}
//	cast    {"t":"cast","x":…,"type":"DECIMAL","p":10,"s":2,"try":true}
//	func    {"t":"func","name":"SUM","args":[…],"star":true,"distinct":true,"filter":…,"within_group":…}
//
// Field names follow the struct tags of tree.go; empty optional fields are
// omitted. Unmarshal is strict, because renderers print some values as
// code: unknown tags or keys, missing required children, operators and cast
// types Parse never produces, numbers that are not numeric literals, and
// function names or keywords that are not upper-case words are errors.
//
// Both directions make one pass over the tree: encoding/json would re-scan
// every nested Marshaler's output and every nested Unmarshaler's input,
// which is quadratic in the depth of long operator chains.

// canonicalTypes are the Cast types Parse produces.
var canonicalTypes = map[string]bool{"VARCHAR": true, "INTEGER": true, "BIGINT": true, "DECIMAL": true,
	"DOUBLE": true, "BOOLEAN": true, "DATE": true, "TIMESTAMP": true, "TIME": true}

// MarshalJSON writes the tagged form described above; a nil Node is null.
// It fails on a node type this package does not define.
func (e Expr) MarshalJSON() ([]byte, error) {
	var w jsonWriter
	if err := w.node(e.Node); err != nil {
		return nil, err
	}
	return w.b.Bytes(), nil
}

type jsonWriter struct {
	b     bytes.Buffer
	first bool // no field written yet in the current object
}

func (w *jsonWriter) open(tag string) {
	w.b.WriteString(`{"t":`)
	w.str(tag)
	w.first = false
}

func (w *jsonWriter) key(k string) {
	if !w.first {
		w.b.WriteByte(',')
	}
	w.first = false
	w.str(k)
	w.b.WriteByte(':')
}

func (w *jsonWriter) str(s string) {
	data, _ := json.Marshal(s) // a string always marshals
	w.b.Write(data)
}

func (w *jsonWriter) field(k, v string) {
	w.key(k)
	w.str(v)
}

func (w *jsonWriter) optField(k, v string) {
	if v != "" {
		w.field(k, v)
	}
}

func (w *jsonWriter) flag(k string, v bool) {
	if v {
		w.key(k)
		w.b.WriteString("true")
	}
}

func (w *jsonWriter) num(k string, v int) {
	if v != 0 {
		w.key(k)
		fmt.Fprint(&w.b, v)
	}
}

func (w *jsonWriter) child(k string, n Node) error {
	w.key(k)
	return w.node(n)
}

func (w *jsonWriter) optChild(k string, n Node) error {
	if deref(n) == nil {
		return nil
	}
	return w.child(k, n)
}

func (w *jsonWriter) list(k string, ns []Node) error {
	w.key(k)
	w.b.WriteByte('[')
	for i, n := range ns {
		if i > 0 {
			w.b.WriteByte(',')
		}
		if err := w.node(n); err != nil {
			return err
		}
	}
	w.b.WriteByte(']')
	return nil
}

// node writes one node; errors come from children (unknown types).
func (w *jsonWriter) node(n Node) error {
	var err error
	try := func(e error) {
		if err == nil {
			err = e
		}
	}
	switch x := deref(n).(type) {
	case nil:
		w.b.WriteString("null")
		return nil
	case Ref:
		w.open("ref")
		w.optField("q", x.Qualifier)
		w.field("n", x.Name)
		w.flag("quoted", x.Quoted)
	case Literal:
		w.open("lit")
		w.field("kind", string(x.Kind))
		w.optField("v", x.Value)
	case Keyword:
		w.open("kw")
		w.field("kw", x.Name)
	case Unary:
		w.open("unary")
		w.field("op", x.Op)
		try(w.child("x", x.X))
	case Binary:
		w.open("binary")
		w.field("op", x.Op)
		try(w.child("l", x.L))
		try(w.child("r", x.R))
	case Between:
		w.open("between")
		try(w.child("x", x.X))
		try(w.child("lo", x.Lo))
		try(w.child("hi", x.Hi))
		w.flag("not", x.Not)
	case In:
		w.open("in")
		try(w.child("x", x.X))
		try(w.list("list", x.List))
		w.flag("not", x.Not)
	case Like:
		w.open("like")
		try(w.child("x", x.X))
		try(w.child("pattern", x.Pattern))
		w.flag("not", x.Not)
		w.flag("ilike", x.ILike)
	case IsNull:
		w.open("isnull")
		try(w.child("x", x.X))
		w.flag("not", x.Not)
	case Case:
		w.open("case")
		try(w.optChild("operand", x.Operand))
		w.key("whens")
		w.b.WriteByte('[')
		for i, wh := range x.Whens {
			if i > 0 {
				w.b.WriteByte(',')
			}
			w.b.WriteByte('{')
			w.first = true
			try(w.child("cond", wh.Cond))
			try(w.child("then", wh.Then))
			w.b.WriteByte('}')
		}
		w.b.WriteByte(']')
		try(w.optChild("else", x.Else))
	case Cast:
		w.open("cast")
		try(w.child("x", x.X))
		w.field("type", x.Type)
		w.num("p", x.Precision)
		w.num("s", x.Scale)
		w.flag("try", x.Try)
	case Func:
		w.open("func")
		w.field("name", x.Name)
		if len(x.Args) > 0 {
			try(w.list("args", x.Args))
		}
		w.flag("star", x.Star)
		w.flag("distinct", x.Distinct)
		try(w.optChild("filter", x.Filter))
		try(w.optChild("within_group", x.WithinGroup))
	default:
		return fmt.Errorf("expr: cannot marshal node type %T", n)
	}
	w.b.WriteByte('}')
	return err
}

// UnmarshalJSON reads the tagged form written by MarshalJSON; null yields a
// nil Node. Errors name the offending tag, key or missing child.
func (e *Expr) UnmarshalJSON(data []byte) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return fmt.Errorf("expr: %w", err)
	}
	n, err := decodeNode(v)
	if err != nil {
		return err
	}
	e.Node = n
	return nil
}

// jsonObj reads the fields of one decoded node object, remembering the
// first problem so each case stays linear.
type jsonObj struct {
	tag  string
	m    map[string]any
	used map[string]bool
	err  error
}

func (o *jsonObj) fail(format string, args ...any) {
	if o.err == nil {
		o.err = fmt.Errorf("expr: %s node: "+format, append([]any{o.tag}, args...)...)
	}
}

func (o *jsonObj) get(k string) (any, bool) {
	o.used[k] = true
	v, ok := o.m[k]
	return v, ok
}

func (o *jsonObj) str(k string) string {
	v, ok := o.get(k)
	if !ok {
		return ""
	}
	s, isStr := v.(string)
	if !isStr {
		o.fail("%q is not a string", k)
	}
	return s
}

func (o *jsonObj) flag(k string) bool {
	v, ok := o.get(k)
	if !ok {
		return false
	}
	b, isBool := v.(bool)
	if !isBool {
		o.fail("%q is not a boolean", k)
	}
	return b
}

func (o *jsonObj) int(k string) int {
	v, ok := o.get(k)
	if !ok {
		return 0
	}
	num, isNum := v.(json.Number)
	i, err := num.Int64()
	if !isNum || err != nil || i < 0 || i > 1000 {
		o.fail("%q is not a small non-negative integer", k)
	}
	return int(i)
}

// child decodes a required (need) or optional child.
func (o *jsonObj) child(k string, need bool) Node {
	v, _ := o.get(k)
	n, err := decodeNode(v)
	if err != nil {
		if o.err == nil {
			o.err = err
		}
		return nil
	}
	if n == nil && need {
		o.fail("missing %q", k)
	}
	return n
}

func (o *jsonObj) list(k string) []Node {
	v, _ := o.get(k)
	items, ok := v.([]any)
	if !ok || len(items) == 0 {
		if v != nil && !ok {
			o.fail("%q is not a list", k)
		}
		return nil
	}
	out := make([]Node, len(items))
	for i, it := range items {
		n, err := decodeNode(it)
		if err == nil && n == nil {
			err = fmt.Errorf("expr: %s node: null in %q", o.tag, k)
		}
		if err != nil {
			if o.err == nil {
				o.err = err
			}
			return nil
		}
		out[i] = n
	}
	return out
}

func decodeNode(v any) (Node, error) {
	if v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("expr: node is not an object")
	}
	tag, _ := m["t"].(string)
	o := &jsonObj{tag: tag, m: m, used: map[string]bool{"t": true}}
	var n Node
	switch tag {
	case "ref":
		r := Ref{Qualifier: o.str("q"), Name: o.str("n"), Quoted: o.flag("quoted")}
		if r.Name == "" {
			o.fail("missing %q", "n")
		}
		n = r
	case "lit":
		l := Literal{Kind: LitKind(o.str("kind")), Value: o.str("v")}
		switch l.Kind {
		case LitNumber:
			if !isNumber(l.Value) {
				o.fail("%q is not a number", l.Value)
			}
		case LitBool:
			if l.Value != "true" && l.Value != "false" {
				o.fail("%q is not true or false", l.Value)
			}
		case LitString, LitNull:
		default:
			o.fail("unknown kind %q", l.Kind)
		}
		n = l
	case "kw":
		k := Keyword{Name: o.str("kw")}
		if !isWord(k.Name) {
			o.fail("%q is not an upper-case word", k.Name)
		}
		n = k
	case "unary":
		u := Unary{Op: o.str("op"), X: o.child("x", true)}
		if u.Op != "-" && u.Op != "+" && u.Op != "NOT" {
			o.fail("unknown operator %q", u.Op)
		}
		n = u
	case "binary":
		b := Binary{Op: o.str("op"), L: o.child("l", true), R: o.child("r", true)}
		if precOf(Binary{Op: b.Op}) == precOr && b.Op != "OR" {
			o.fail("unknown operator %q", b.Op)
		}
		n = b
	case "between":
		n = Between{X: o.child("x", true), Lo: o.child("lo", true), Hi: o.child("hi", true), Not: o.flag("not")}
	case "in":
		in := In{X: o.child("x", true), List: o.list("list"), Not: o.flag("not")}
		if in.List == nil {
			o.fail("empty %q", "list")
		}
		n = in
	case "like":
		n = Like{X: o.child("x", true), Pattern: o.child("pattern", true), Not: o.flag("not"), ILike: o.flag("ilike")}
	case "isnull":
		n = IsNull{X: o.child("x", true), Not: o.flag("not")}
	case "case":
		c := Case{Operand: o.child("operand", false)}
		ws, _ := o.get("whens")
		items, _ := ws.([]any)
		if len(items) == 0 {
			o.fail("without whens")
		}
		for _, it := range items {
			wm, ok := it.(map[string]any)
			if !ok {
				o.fail("a when is not an object")
				break
			}
			wo := &jsonObj{tag: "case when", m: wm, used: map[string]bool{}}
			c.Whens = append(c.Whens, When{Cond: wo.child("cond", true), Then: wo.child("then", true)})
			wo.extra()
			if wo.err != nil && o.err == nil {
				o.err = wo.err
			}
		}
		c.Else = o.child("else", false)
		n = c
	case "cast":
		c := Cast{X: o.child("x", true), Type: o.str("type"), Precision: o.int("p"), Scale: o.int("s"), Try: o.flag("try")}
		if !canonicalTypes[c.Type] {
			o.fail("unknown cast type %q", c.Type)
		}
		n = c
	case "func":
		f := Func{Name: o.str("name"), Args: o.list("args"), Star: o.flag("star"), Distinct: o.flag("distinct"),
			Filter: o.child("filter", false), WithinGroup: o.child("within_group", false)}
		if !isWord(f.Name) {
			o.fail("function name %q is not an upper-case word", f.Name)
		}
		n = f
	default:
		return nil, fmt.Errorf("expr: unknown node tag %q", tag)
	}
	o.extra()
	if o.err != nil {
		return nil, o.err
	}
	return n, nil
}

// extra fails on keys the node kind does not define.
func (o *jsonObj) extra() {
	var unknown []string
	for k := range o.m {
		if !o.used[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		o.fail("unknown field(s) %s", strings.Join(unknown, ", "))
	}
}
