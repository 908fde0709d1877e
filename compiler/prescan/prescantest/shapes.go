// Package prescantest builds the adversarial inputs every decoder's test,
// benchmark and fuzz corpus runs (issue 25): the shapes whose cost grows
// faster than their size in a YAML or JSON decoder, each about as large as
// asked.
package prescantest

import (
	"fmt"
	"strings"

	"github.com/ossie-dev/ossie/compiler/prescan"
)

// Shape is one adversarial input. Kind is the limit a scan under the
// limits given to Line refuses it for ("" when it is within them: its
// cost must stay bounded all the same), and Line the 1-based line where
// the count goes over.
type Shape struct {
	Name string
	Data []byte
	Kind prescan.Kind
	Line func(l prescan.Limits) int
}

func at(n int) func(prescan.Limits) int { return func(prescan.Limits) int { return n } }

// YAML returns the YAML document shapes of about size bytes (size >= 64 KB,
// so every count-based shape crosses the limits of a model document).
func YAML(size int) []Shape {
	pre := "version: \"0.2.0.dev0\"\nsemantic_model: "
	n := (size - len(pre)) / 2
	nest := func(open, close string, k int) string { return strings.Repeat(open, k) + strings.Repeat(close, k) }
	unit := nest("[", "]", 200) + ","
	shapes := []Shape{
		{"flow-nested", []byte(pre + nest("[", "]", n) + "\n"), prescan.KindDepth, at(2)},
		{"flow-unclosed", []byte(pre + strings.Repeat("[", 2*n) + "\n"), prescan.KindDepth, at(2)},
		{"flow-mappings", []byte(pre + strings.Repeat("{a: ", n/4) + "1" + strings.Repeat("}", n/4) + "\n"), prescan.KindDepth, at(2)},
		{"flow-repeated-200", []byte(pre + "[" + strings.Repeat(unit, size/len(unit)) + "]\n"), prescan.KindNodes, at(2)},
		{"flow-wide", []byte(pre + "[" + strings.Repeat("1,", n-1) + "1]\n"), prescan.KindNodes, at(2)},
		{"compact-sequences", []byte("version: x\nsemantic_model:\n" + strings.Repeat("- ", n) + "x\n"), prescan.KindDepth, at(3)},
		{"anchored-flow", []byte("version: x\nsemantic_model: &a !!seq " + nest("[", "]", n-20) + "\n"), prescan.KindDepth, at(2)},
		{"document-marker", []byte("--- " + nest("[", "]", n) + "\n"), prescan.KindDepth, at(1)},
		{"stray-quote", []byte("description: abc\n  'x\nsemantic_model: " + nest("[", "]", n-20) + "\n"), prescan.KindDepth, at(3)},
		{"hash-in-quoted-key", []byte("\"x #\": " + nest("[", "]", n) + "\n"), prescan.KindDepth, at(1)},
		{"long-quoted-scalar", []byte("version: \"" + strings.Repeat("a", size) + "\"\n"), "", nil},
		{"long-plain-line", []byte("version: " + strings.Repeat("a ", size/2) + "\n"), "", nil},
	}
	var b strings.Builder
	b.WriteString("version: x\n")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "%sk:\n", strings.Repeat(" ", i))
	}
	// Lines 1 and 2 open level 1, line k level k-1.
	shapes = append(shapes, Shape{"nested-block-mappings", []byte(b.String()), prescan.KindDepth, func(l prescan.Limits) int { return l.Depth + 2 }})

	keys := func(sep string) []byte {
		var b strings.Builder
		b.WriteString("version: x" + sep + "semantic_model:" + sep)
		for i := 0; b.Len() < size; i++ {
			fmt.Fprintf(&b, "  k%d: v%s", i, sep)
		}
		return []byte(b.String())
	}
	// Lines 1-2 hold the top mapping's keys; key k of the inner one is on line k+2.
	shapes = append(shapes,
		Shape{"many-keys", keys("\n"), prescan.KindKeys, func(l prescan.Limits) int { return l.Keys + 3 }},
		Shape{"many-keys-cr", keys("\r"), prescan.KindKeys, func(l prescan.Limits) int { return l.Keys + 3 }})

	b.Reset()
	b.WriteString("version: x\nsemantic_model:\n")
	for b.Len() < size {
		b.WriteString("  - a\n")
	}
	// Lines 1-2 hold 3 values, each later line 2 (`-` and `a`): 2L-1 by
	// the end of line L.
	items := func(l prescan.Limits) int { return 2 + (l.Nodes-3)/2 + 1 }
	shapes = append(shapes, Shape{"many-items", []byte(b.String()), prescan.KindNodes, items})

	b.Reset()
	b.WriteString("version: x\nsemantic_model:\n")
	for b.Len() < size {
		b.WriteString("  - *b\n")
	}
	shapes = append(shapes, Shape{"many-aliases", []byte(strings.Replace(b.String(), "semantic_model:\n", "base: &b [x]\nsemantic_model:\n", 1)),
		prescan.KindNodes, aliasLine})

	b.Reset()
	b.WriteString("version: x\ndescription: |\n")
	for b.Len() < size {
		b.WriteString("  - [[[[ {{{{ 'a: b' \"c\n")
	}
	shapes = append(shapes, Shape{"long-block-scalar", []byte(b.String() + "k: v\n"), "", nil})
	return append(shapes, Laughs())
}

// aliasLine is where many-aliases crosses l.Nodes: lines 1-3 hold 7
// values (`base: &b [x]` is 4: key, anchor, list, item), each later line
// 2 (`-` and `*b`), 2L+1 by the end of line L.
func aliasLine(l prescan.Limits) int { return (l.Nodes-1)/2 + 1 }

// Laughs is a "billion laughs" document: ten anchors, each a list of ten
// aliases of the one before, 10^10 values once expanded, in 500 bytes. A
// scan counts what is written and accepts it; the reader that expands
// aliases must refuse it.
func Laughs() Shape {
	var b strings.Builder
	b.WriteString("version: x\na0: &a0 [x,x,x,x,x,x,x,x,x,x]\n")
	for i := 1; i < 10; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d,", i-1), 10), ","))
	}
	return Shape{Name: "billion-laughs", Data: []byte(b.String())}
}

// JSON returns the JSON body shapes of about size bytes: deep arrays, deep
// objects, a wide array, many keys and one long string. All sit on line 1.
func JSON(size int) []Shape {
	n := size / 2
	var keys strings.Builder
	keys.WriteString(`{"metrics": ["m"], "x": {`)
	for i := 0; keys.Len() < size; i++ {
		fmt.Fprintf(&keys, `"k%d": 1, `, i)
	}
	keys.WriteString(`"z": 1}}`)
	return []Shape{
		{"json-arrays", []byte(`{"metrics": ` + strings.Repeat("[", n) + strings.Repeat("]", n) + "}"), prescan.KindDepth, at(1)},
		{"json-unclosed", []byte(`{"metrics": ` + strings.Repeat("[", 2*n)), prescan.KindDepth, at(1)},
		{"json-objects", []byte(strings.Repeat(`{"a":`, size/5) + "1" + strings.Repeat("}", size/5)), prescan.KindDepth, at(1)},
		{"json-wide", []byte(`{"metrics": [` + strings.Repeat(`"m",`, size/4) + `"m"]}`), prescan.KindNodes, at(1)},
		{"json-many-keys", []byte(keys.String()), prescan.KindNodes, at(1)},
		{"json-long-string", []byte(`{"metrics": ["` + strings.Repeat("a", size) + `"]}`), "", nil},
	}
}

// Seeds returns small versions of every shape (4 KB), for fuzz corpora.
func Seeds() [][]byte {
	var out [][]byte
	for _, s := range append(YAML(4<<10), JSON(4<<10)...) {
		out = append(out, s.Data)
	}
	return out
}

// AtLimits returns documents just within l, the most work a scan lets
// through: a list of values up to l.Nodes, and mappings of l.Keys keys
// each up to l.Nodes (once with one-letter values, once with values long
// enough to make the document about 1 MB, or l.Bytes if smaller), and
// l.Depth levels of flow nesting.
func AtLimits(l prescan.Limits) []Shape {
	var items strings.Builder
	items.WriteString("version: x\nsemantic_model:\n")
	for n := 3; n+2 <= l.Nodes; n += 2 {
		items.WriteString("  - a\n")
	}
	keys := func(value string) string {
		var b strings.Builder
		b.WriteString("version: x\nsemantic_model:\n")
		for n := 3; n+2+2*l.Keys <= l.Nodes; n += 2 + 2*l.Keys {
			fmt.Fprintf(&b, "  - k0: %s\n", value)
			for k := 1; k < l.Keys; k++ {
				fmt.Fprintf(&b, "    k%d: %s\n", k, value)
			}
		}
		return b.String()
	}
	short := keys("v")
	size := 1 << 20
	if l.Bytes > 0 {
		size = min(size, l.Bytes)
	}
	pad := 1 + max(0, size-len(short))/max(1, strings.Count(short, "\n"))
	depth := l.Depth - 1 // the top mapping is one level
	return []Shape{
		{Name: "items-at-limit", Data: []byte(items.String())},
		{Name: "keys-at-limit", Data: []byte(short)},
		{Name: "keys-at-limit-1MB", Data: []byte(keys(strings.Repeat("v", pad)))},
		{Name: "nesting-at-limit", Data: []byte("version: " + strings.Repeat("[", depth) + strings.Repeat("]", depth) + "\n")},
	}
}
