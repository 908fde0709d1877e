package compiler

import (
	"fmt"
	"sort"
	"strings"
)

// Severity of a Problem. Only errors block compilation and publication.
type Severity string

const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Problem is one finding about a document or a query. Code is stable across
// releases (see docs/problems.md); Path is a JSONPath-like location such as
// `semantic_model[0].metrics[3].expression`; Line and Column are 1-based
// positions in the source file when known (0 otherwise).
type Problem struct {
	Code     string   `json:"code"`
	Severity Severity `json:"severity"`
	Path     string   `json:"path,omitempty"`
	Line     int      `json:"line,omitempty"`
	Column   int      `json:"column,omitempty"`
	Message  string   `json:"message"`
}

// String renders `line:col: path: CODE message` (parts omitted when unknown).
func (p Problem) String() string {
	var b strings.Builder
	if p.Line > 0 {
		fmt.Fprintf(&b, "%d:%d: ", p.Line, p.Column)
	}
	if p.Path != "" {
		b.WriteString(p.Path)
		b.WriteString(": ")
	}
	fmt.Fprintf(&b, "%s %s: %s", p.Severity, p.Code, p.Message)
	return b.String()
}

// Problems is an ordered list of findings.
type Problems []Problem

// HasErrors reports whether any problem has SeverityError.
func (ps Problems) HasErrors() bool {
	for _, p := range ps {
		if p.Severity == SeverityError {
			return true
		}
	}
	return false
}

// Errors returns only the error-severity problems.
func (ps Problems) Errors() Problems {
	var out Problems
	for _, p := range ps {
		if p.Severity == SeverityError {
			out = append(out, p)
		}
	}
	return out
}

// Sort orders problems by line, column, path, code for deterministic output.
func (ps Problems) Sort() {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Code < b.Code
	})
}

// Error makes Problems usable as an error: one problem per line.
func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}
