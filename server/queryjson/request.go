// Package queryjson reads the Cube-style query body that the HTTP API
// (POST /v1/models/{model}/query and /sql) and the MCP query and explain
// tools share: strict JSON decoding with exact numbers, the body size
// limits, duplicate keys, and problems in plain words with the member's
// JSON path (OSS4001, OSS1021), so both front ends accept the same forms
// and report the same problems.
//
// It sits below server/httpapi and server/mcpapi and imports nothing of
// the server but server/problem.
package queryjson

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/server/problem"
)

// Request is the body of POST /v1/models/{model}/query: a query plus
// the request options that are not part of it.
type Request struct {
	plan.Query
	// Total asks for the row count without limit and offset (Cube's
	// `total`), returned as `total` next to the page.
	Total bool `json:"total,omitempty"`
}

// ForAnswer refuses the options an answer does not read: explain (the
// plan endpoints explain; /query and the MCP query tool run).
func (req *Request) ForAnswer() *problem.Error {
	if req.Explain {
		return problem.QueryProblems(compiler.Problems{{Code: compiler.CodeBadQuery, Severity: compiler.SeverityError, Path: "explain",
			Message: "explain applies to POST /v1/models/{model}/sql and the MCP explain tool, which plan without running"}})
	}
	return nil
}

// ForPlan refuses the options a plan does not read: total, a count of
// the rows run (/sql and the MCP explain tool run nothing).
func (req *Request) ForPlan() *problem.Error {
	if req.Total {
		return problem.QueryProblems(compiler.Problems{{Code: compiler.CodeBadQuery, Severity: compiler.SeverityError, Path: "total",
			Message: "total applies to POST /v1/models/{model}/query and the MCP query tool, which count the rows they run; a plan runs nothing"}})
	}
	return nil
}

// Parse decodes body strictly (unknown keys refused, numbers kept
// exact), like plan.ParseQuery: the grammar of the body, which the
// OpenAPI schema of the query describes. Decode adds what a schema
// cannot say (the size limits, keys given twice) and words its errors
// as problems; callers serving a request use Decode. The error is
// encoding/json's.
func Parse(body []byte) (*Request, error) {
	var req Request
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(&req); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data after the JSON object")
	}
	return &req, nil
}

// Decode refuses a body over compiler.BodyLimits (OSS1021), then parses
// it strictly; only a body that fails to parse is decoded a second time,
// for a problem in plain words (decodeProblems). Every problem is a 400
// *problem.Error with OSS4001 (or OSS1021) and the member's path; a key
// given twice is refused too (DuplicateKeys).
func Decode(body []byte) (*Request, *problem.Error) {
	if p := compiler.CheckBody(body); p != nil {
		return nil, problem.QueryProblems(compiler.Problems{*p})
	}
	req, err := Parse(body)
	if err != nil {
		if probs := decodeProblems(body); len(probs) > 0 {
			return nil, problem.QueryProblems(probs)
		}
		return nil, problem.QueryProblems(compiler.Problems{{Code: compiler.CodeBadQuery, Severity: compiler.SeverityError, Message: "query body: " + err.Error()}})
	}
	if probs := DuplicateKeys(body); len(probs) > 0 {
		return nil, problem.QueryProblems(probs)
	}
	return req, nil
}
