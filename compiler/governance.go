package compiler

import (
	"encoding/json"

	"github.com/ossie-dev/ossie/api/ossie"
)

// Governance is a governance document as ParseGovernance read it: the
// access rules (ossie.Governance, docs/governance.md), the views of an
// ossiectl governance file and the positions of the source.
type Governance struct {
	// The rules themselves: one definition, api/ossie, which the
	// SemanticModel CRD also uses for spec.governance.
	ossie.Governance
	// Views are the governed views of the file (issue 5 item 4), carried
	// as written for the views work and not read by the compiler.
	Views []json.RawMessage `json:"views,omitempty"`

	// positions of the governance source (paths start with "governance."),
	// for line:column in problems; nil when built in Go or from a CRD.
	positions map[string]Position
}

// The planner spells the mask and access types by their compiler names.
type (
	// Access is ossie.Access.
	Access = ossie.Access
	// Mask is ossie.Mask.
	Mask = ossie.Mask
	// MaskKind is ossie.MaskKind.
	MaskKind = ossie.MaskKind
)

// Mask kinds, as ossie.MaskNull and the others.
const (
	MaskNull    = ossie.MaskNull
	MaskLiteral = ossie.MaskLiteral
	MaskHash    = ossie.MaskHash
	MaskPartial = ossie.MaskPartial
)
