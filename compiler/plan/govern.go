package plan

import (
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
)

// Caller is who asks a query. A nil *Caller is ungoverned: it reads every
// member and row (local CLI use, trusted in-process callers). On a model
// without governance every caller is ungoverned. On a governed model
// (Artifact.Governance != nil) a caller reads only what its roles allow
// (docs/governance.md); roles the model does not define are ignored, so a
// caller without any defined role sees nothing.
type Caller struct {
	// Roles are role names, from authentication, never from the request
	// body. Several roles combine as a union: a member is readable if any
	// role allows it, a dataset's rows are those any role's filter admits.
	Roles []string
	// Attributes are values of the caller (e.g. "region" -> "EU") that row
	// filters reference as {{ caller.region }}. They reach SQL only as
	// escaped string literals. A filter reading an attribute the caller
	// lacks admits no rows.
	Attributes map[string]string
}

// Visibility is what a caller may read in one model; the server uses it for
// GET /v1/models/{model}. Slices keep the model's order.
type Visibility struct {
	// Governed is false when the model has no governance or the caller is
	// nil: everything is visible.
	Governed bool
	// Datasets having at least one readable field or readable metric.
	Datasets []string
	// Fields are readable fields as "dataset.field".
	Fields []string
	// Metrics are readable metric names.
	Metrics []string
	// Masked maps each readable but masked "dataset.field" to how it is
	// shown; its values come out as text (String).
	Masked map[string]compiler.MaskKind
}

// Dataset reports whether dataset ds is visible.
func (v Visibility) Dataset(ds string) bool { return contains(v.Datasets, ds) }

// Field reports whether "dataset.field" key is readable.
func (v Visibility) Field(key string) bool { return contains(v.Fields, key) }

// Metric reports whether metric name is readable.
func (v Visibility) Metric(name string) bool { return contains(v.Metrics, name) }

// PlanFor plans q for d on behalf of c (see Caller): members c may not read
// are reported exactly as nonexistent ones (OSS4002/OSS4003, with
// did-you-mean suggestions drawn from readable members only), every row
// filter of c's roles restricts its dataset wherever the query reads it,
// and masked fields come out masked. Plan(q, d) is PlanFor(q, d, nil).
func (p *Planner) PlanFor(q *Query, d dialect.Dialect, c *Caller) (*Plan, compiler.Problems) {
	return p.plan(q, d, p.policyFor(c))
}

// Visible returns what c may read (everything when ungoverned).
func (p *Planner) Visible(c *Caller) Visibility {
	return p.policyFor(c).visibility(p.art)
}
