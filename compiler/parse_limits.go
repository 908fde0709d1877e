package compiler

import "github.com/ossie-dev/ossie/compiler/prescan"

// MaxDocumentBytes bounds a model or governance document: a Kubernetes
// object, which carries the operator's copy, is at most 1.5 MiB, and the
// YAML parser's memory grows by up to about thirty bytes per byte of
// scalar text.
const MaxDocumentBytes = 3 << 19

// maxDepth bounds nesting; real Ossie documents are under 15 levels deep.
const maxDepth = 256

// maxNodes bounds the values of a document, after alias expansion too, so
// a few lines of nested aliases ("billion laughs") cannot make us walk
// millions of nodes. 100,000 leaves room for a drafted 5,000-column
// table (about 60,000 values).
const maxNodes = 100_000

// DocumentLimits are the bounds every reader of a model or governance
// document checks before it parses (docs/problems.md, OSS1020, OSS1021).
// Real documents are under 15 levels deep and hold a few thousand values
// and a few dozen keys per mapping. The server's token file is read under
// the same limits.
var DocumentLimits = prescan.Limits{Bytes: MaxDocumentBytes, Depth: maxDepth, Nodes: maxNodes, Keys: 256}

// CheckDocument refuses a YAML or JSON document over the limits of a model
// or governance document, in one pass over its bytes and before any parser
// runs (issue 25: nesting, many values or many keys of one mapping cost
// the YAML parser time and memory far beyond linear): CodeDocumentTooLarge
// over MaxDocumentBytes, CodeDocumentTooComplex for nesting deeper than
// 256 levels, more than 100,000 values, or a block mapping of more than 256
// keys, with the line and column where the count went over. Nil when the
// document is within them. Parse, ValidateSchema and ParseGovernance call
// it; so must any other reader of a document (ossiectl's manifest and
// editing commands).
func CheckDocument(data []byte) *Problem {
	return limitProblem(prescan.YAML(data, DocumentLimits))
}

// BodyLimits bound a JSON request body (a query, an MCP request): real
// ones are a few levels deep and hold at most a few thousand filter
// values; their size is bounded by the server's body limit (OSS5004).
var BodyLimits = prescan.Limits{Depth: 64, Nodes: 100_000}

// CheckBody refuses a JSON request body over BodyLimits with a
// CodeDocumentTooComplex problem at its line and column, in one pass over
// its bytes and before it is decoded. Nil when it is within them.
func CheckBody(data []byte) *Problem {
	return limitProblem(prescan.JSON(data, BodyLimits))
}

// limitProblem is the problem of a scan's refusal, nil for none.
func limitProblem(e *prescan.Error) *Problem {
	if e == nil {
		return nil
	}
	code := CodeDocumentTooComplex
	if e.Kind == prescan.KindBytes {
		code = CodeDocumentTooLarge
	}
	return &Problem{Code: code, Severity: SeverityError, Line: e.Line, Column: e.Column, Message: e.Error()}
}
