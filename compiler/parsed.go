package compiler

import (
	"strconv"
	"strings"

	"github.com/ossie-dev/ossie/api/ossie"
)

// Position is a 1-based line and column in a source document.
type Position struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// Parsed is a strictly parsed document plus where each path came from, so
// later stages (validation) can report line:column for their problems.
// Paths look like `semantic_model[0].datasets[2].fields[1].expression`.
type Parsed struct {
	Doc *ossie.Document
	// Positions, when set, maps paths to positions (a document built in
	// Go sets none). A parsed document leaves it nil and is located on
	// the tree it was read from, which costs nothing until a problem is
	// reported (issue 25: a map of every path cost 10 MB at the limits).
	Positions map[string]Position
	root      *ynode
	// Governance, when set (from ParseGovernance), is validated with the
	// document and compiled into every artifact (docs/governance.md).
	Governance *Governance
}

// Locate returns the position of path or of its longest known prefix, and
// the zero Position when nothing is known (e.g. a document built in Go).
func (p *Parsed) Locate(path string) Position {
	if p == nil {
		return Position{}
	}
	if p.Positions == nil {
		return p.root.locate(path)
	}
	for path != "" {
		if pos, ok := p.Positions[path]; ok {
			return pos
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return Position{}
}

// At builds a Problem located at path.
func (p *Parsed) At(code string, sev Severity, path, msg string) Problem {
	pos := p.Locate(path)
	return Problem{Code: code, Severity: sev, Path: path, Line: pos.Line, Column: pos.Column, Message: msg}
}

// locate is Locate on the tree read: the position of the key or item at
// path, or of the deepest one on the way to it; zero when none is.
func (n *ynode) locate(path string) Position {
	var best Position
	for n != nil && path != "" {
		if path[0] == '[' {
			end := strings.IndexByte(path, ']')
			i, err := strconv.Atoi(path[1:max(end, 1)])
			if end < 0 || err != nil || n.kind != kindSeq || i < 0 || i >= len(n.seq) {
				return best
			}
			n, best, path = n.seq[i], n.seq[i].pos, path[end+1:]
			continue
		}
		path = strings.TrimPrefix(path, ".")
		next := n.entry(path)
		if next == nil {
			return best
		}
		n, best, path = next.val, next.keyPos, path[len(next.key):]
	}
	return best
}

// entry is the entry of the mapping n whose key starts path (followed by
// the end, a `.` or a `[`).
func (n *ynode) entry(path string) *yentry {
	if n.kind != kindMap {
		return nil
	}
	for i, e := range n.keys {
		if e.key != "" && strings.HasPrefix(path, e.key) && (len(path) == len(e.key) || path[len(e.key)] == '.' || path[len(e.key)] == '[') {
			return &n.keys[i]
		}
	}
	return nil
}
