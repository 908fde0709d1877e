package compiler

import (
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
	Doc       *ossie.Document
	Positions map[string]Position
	// Governance, when set (from ParseGovernance), is validated with the
	// document and compiled into every artifact (docs/governance.md).
	Governance *Governance
}

// Locate returns the position of path or of its longest known prefix, and
// the zero Position when nothing is known (e.g. a document built in Go).
func (p *Parsed) Locate(path string) Position {
	if p == nil || p.Positions == nil {
		return Position{}
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
