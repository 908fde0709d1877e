package compiler

import "encoding/json"

// Governance is the access policy of a document (issue 5; docs/governance.md):
// the caller attributes row filters may read, and the roles queries and
// views are planned under. The Ossie core spec has no security fields, so
// it lives beside the document: spec.governance (plus spec.views) of a
// SemanticModel, or for ossiectl a YAML/JSON file with top-level
// `attributes`, `roles` and `views` (ParseGovernance). It applies to every
// semantic_model of the document; a rule naming a dataset, field or metric
// applies in the models that have it.
type Governance struct {
	// Attributes declares the caller attributes (set by authentication,
	// never by the request body) that row filters may reference as
	// `{{ caller.<name> }}`.
	Attributes []GovernanceAttribute `json:"attributes,omitempty"`
	// Roles are the named audiences; role names are unique.
	Roles []Role `json:"roles,omitempty"`
	// Views are the governed views of the file (issue 5 item 4), carried
	// as written for the views work and not read by the compiler.
	Views []json.RawMessage `json:"views,omitempty"`

	// positions of the governance source (paths start with "governance."),
	// for line:column in problems; nil when built in Go or from a CRD.
	positions map[string]Position
}

// GovernanceAttribute is one caller attribute, e.g. {name: region}.
type GovernanceAttribute struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// Role is a named audience with its member access, row filters and masks.
//
// Rules (docs/governance.md): Metrics and Fields nil = every member is
// allowed; a non-nil Access allows the members matching Allow (nil Allow =
// all) except those matching Deny — deny wins. A metric is readable only if
// allowed and every field it reads (derived metrics included) is readable,
// and it reads no masked field unless that mask sets AllowAggregates.
type Role struct {
	Name        string      `json:"name"`
	Description string      `json:"description,omitempty"`
	Metrics     *Access     `json:"metrics,omitempty"`
	Fields      *Access     `json:"fields,omitempty"`
	RowFilters  []RowFilter `json:"row_filters,omitempty"`
	Masks       []Mask      `json:"masks,omitempty"`
}

// Access is an allow list and a deny list of glob patterns over member
// names: metric names, or `dataset.field` for fields. `*` matches any run of
// characters (dots included), `?` one character, `[...]` a class (Go
// path.Match syntax, with `.` in the role of `/` lifted: see globMatch).
type Access struct {
	Allow []string `json:"allow,omitzero"` // omitzero: an empty list (allow nothing) must survive encoding
	Deny  []string `json:"deny,omitempty"`
}

// RowFilter restricts the rows of one dataset the role may read.
// Expression is a boolean expression of the bounded grammar over that
// dataset's fields (`region = {{ caller.region }}`), which may also read
// fields of datasets reached by many-to-one relationships
// (`customers.region = 'EU'` on orders); `{{ caller.<attr> }}` is replaced
// at query time by the caller's attribute as an escaped string literal,
// never as SQL text.
type RowFilter struct {
	Dataset    string `json:"dataset"`
	Expression string `json:"expression"`
}

// MaskKind is how a masked field is shown.
type MaskKind string

const (
	MaskNull    MaskKind = "null"    // NULL
	MaskLiteral MaskKind = "literal" // the fixed text Value
	MaskHash    MaskKind = "hash"    // lowercase hex MD5 of the value as text
	MaskPartial MaskKind = "partial" // KeepFirst and KeepLast characters around "****"
)

// MaskKinds lists every MaskKind.
var MaskKinds = []MaskKind{MaskNull, MaskLiteral, MaskHash, MaskPartial}

// Mask replaces a field's values for the role, in dimensions, filters and
// order by. Field is `dataset.field`. Masked values are text (String).
// AllowAggregates lets metrics over the field be computed on the unmasked
// values; otherwise such metrics are not readable under the role.
type Mask struct {
	Field           string   `json:"field"`
	Mask            MaskKind `json:"mask"`
	Value           string   `json:"value,omitempty"`
	KeepFirst       int      `json:"keep_first,omitempty"`
	KeepLast        int      `json:"keep_last,omitempty"`
	AllowAggregates bool     `json:"allow_aggregates,omitempty"`
}
