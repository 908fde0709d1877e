// Package prescan refuses a YAML or JSON input whose shape would make its
// decoder's work grow faster than its size, before the decoder runs.
//
// Each scan is one pass over the bytes with constant work per byte and no
// allocation beyond a stack of open block levels, so refusing a 1 MB input
// costs about a millisecond. goccy/go-yaml (which ossiectl's editing
// commands used before they edited text) spends time and memory that
// grow with the square of the nesting and of the keys of one block
// mapping, and about 1.5 KB per value
// (issue 13: 40 KB of nested brackets, 6.6 s and 0.9 GB; issue 25: 160 KB,
// 24 s and 9.7 GB, and 130,000 keys of one mapping, 39 s and 32 GB); the
// model reader's go-yaml v3 spends about 250 bytes per value. So a bound
// on bytes alone does not bound a decoder's work.
//
// The counts are upper bounds of what the decoder will build, never under
// it for a document the decoder reads: an accepted input nests at most
// Limits.Depth deep and holds at most Limits.Nodes values. A malformed
// input may be over-counted and refused here rather than by the decoder.
package prescan

import "fmt"

// Limits bounds one input. A zero field is not checked.
type Limits struct {
	// Bytes is the largest input, in bytes.
	Bytes int
	// Depth is the deepest nesting of collections (a scalar at the top
	// level is depth 0, each enclosing list or mapping adds one).
	Depth int
	// Nodes is the most values: scalars, keys, collections, aliases and
	// list entries, each counted once where it is written.
	Nodes int
	// Keys is the most keys of one YAML block mapping (goccy/go-yaml
	// reads one in time and memory that grow with the square of its keys).
	// JSON scans ignore it.
	Keys int
}

// Kind names the limit an input is over.
type Kind string

const (
	KindBytes Kind = "bytes"
	KindDepth Kind = "depth"
	KindNodes Kind = "nodes"
	KindKeys  Kind = "keys"
)

// Error is an input over one of its Limits: which limit, its value, and
// the 1-based line and column of the byte where the count went over it
// (for KindBytes, 1:1).
type Error struct {
	Kind   Kind
	Limit  int
	Size   int // the input's length, for KindBytes
	Line   int
	Column int
}

// Error describes the limit in words, without the position.
func (e *Error) Error() string {
	switch e.Kind {
	case KindBytes:
		return fmt.Sprintf("document is %d bytes, over the limit of %d bytes", e.Size, e.Limit)
	case KindDepth:
		return fmt.Sprintf("document nests deeper than %d levels", e.Limit)
	case KindNodes:
		return fmt.Sprintf("document holds more than %d values (keys, scalars, lists and mappings)", e.Limit)
	case KindKeys:
		return fmt.Sprintf("a block mapping has more than %d keys", e.Limit)
	}
	return "document over a limit"
}

// over builds the Error for kind at the scanner's position.
func over(kind Kind, limit, line, col int) *Error {
	return &Error{Kind: kind, Limit: limit, Line: line, Column: col}
}

// tooLarge checks l.Bytes.
func tooLarge(data []byte, l Limits) *Error {
	if l.Bytes > 0 && len(data) > l.Bytes {
		return &Error{Kind: KindBytes, Limit: l.Bytes, Size: len(data), Line: 1, Column: 1}
	}
	return nil
}

func exceeds(n, limit int) bool { return limit > 0 && n > limit }
