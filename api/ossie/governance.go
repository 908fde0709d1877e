package ossie

// Governance is the access policy of a document (docs/governance.md): the
// caller attributes row filters may read, and the roles queries and views
// are planned under. The Ossie core spec has no security fields, so it
// lives beside the document: spec.governance of a SemanticModel, or for
// ossiectl a YAML/JSON file with top-level `attributes` and `roles` (plus
// `views`), both read strictly by compiler.ParseGovernance. It applies to
// every semantic_model of the document; a rule naming a dataset, field or
// metric applies in the models that have it.
//
// As for the document types, the Kubernetes API server enforces structure
// only; meaning (names that exist, expressions, mask kinds) is checked by
// the compiler and reported in the Validated condition.
type Governance struct {
	// Attributes declares the caller attributes (set by authentication,
	// never by the request body) that row filters may reference as
	// `{{ caller.<name> }}`.
	// +optional
	Attributes []GovernanceAttribute `json:"attributes,omitempty"`
	// Roles are the named audiences; role names are unique. A model with a
	// governance section is governed: a caller is served only through its
	// roles, and a caller without a defined role sees nothing.
	// +optional
	Roles []Role `json:"roles,omitempty"`
}

// GovernanceAttribute is one caller attribute, e.g. {name: region}.
type GovernanceAttribute struct {
	// +required
	Name string `json:"name"`
	// +optional
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
	// +required
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
	// +optional
	Description string `json:"description,omitempty"`
	// Metrics the role may read (metric names; glob patterns). Absent:
	// every metric whose fields the role may read.
	// +optional
	Metrics *Access `json:"metrics,omitempty"`
	// Fields the role may read (`dataset.field`; glob patterns). Absent:
	// every field.
	// +optional
	Fields *Access `json:"fields,omitempty"`
	// RowFilters restrict the rows of a dataset the role reads, wherever
	// a query reads that dataset (also through joins).
	// +optional
	RowFilters []RowFilter `json:"row_filters,omitempty"`
	// Masks replace field values in dimensions, filters and order by.
	// +optional
	Masks []Mask `json:"masks,omitempty"`
}

// Access is an allow list and a deny list of glob patterns over member
// names: metric names, or `dataset.field` for fields. `*` matches any run of
// characters (dots included), `?` one character, `[...]` a class (Go
// path.Match syntax, with `.` in the role of `/` lifted). Deny wins. Allow
// absent: everything not denied; `allow: []`: nothing.
type Access struct {
	// Allow uses omitzero: an empty list (allow nothing) must survive
	// encoding.
	// +optional
	Allow []string `json:"allow,omitzero"`
	// +optional
	Deny []string `json:"deny,omitempty"`
}

// RowFilter restricts the rows of one dataset the role may read.
// Expression is a boolean expression of the bounded grammar over that
// dataset's fields (`region = {{ caller.region }}`), which may also read
// fields of datasets reached by many-to-one relationships
// (`customers.region = 'EU'` on orders); `{{ caller.<attr> }}` is replaced
// at query time by the caller's attribute as an escaped string literal,
// never as SQL text.
type RowFilter struct {
	// +required
	Dataset string `json:"dataset"`
	// +required
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
// values; otherwise such metrics are not readable under the role. The
// JSON of Mask is part of a governed artifact's version.
type Mask struct {
	// +required
	Field string `json:"field"`
	// Mask is null, literal, hash or partial.
	// +required
	Mask MaskKind `json:"mask"`
	// +optional
	Value string `json:"value,omitempty"`
	// KeepFirst and KeepLast are character counts (0 to 1000) for partial.
	// +optional
	KeepFirst int `json:"keep_first,omitempty"`
	// +optional
	KeepLast int `json:"keep_last,omitempty"`
	// +optional
	AllowAggregates bool `json:"allow_aggregates,omitempty"`
}
