package plan

import (
	"fmt"
	"sync"
	"time"
	_ "time/tzdata" // IANA zones on machines without /usr/share/zoneinfo

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
)

// Planner plans queries against one artifact. It is safe for concurrent
// use; per-dialect preparation (rendered fields, decomposed metrics) is
// cached on first use.
//
// Planning runs three stages (docs/architecture.md):
//
//	resolve (resolve.go)   Query + artifact + caller → bound query, every problem at once
//	build   (build.go)     bound query → logical plan, by the rewrites in rewrite_*.go
//	render  (render*.go)   logical plan → SQL text, spelled by the dialect
type Planner struct {
	art   *compiler.Artifact
	graph graph
	// Now is the clock for relative date ranges and rollup freshness; nil
	// means time.Now.
	Now func() time.Time
	// Rollups, when set, returns the states of the built rollups
	// (rollup_state.go), read once per query: a query is answered from a
	// fresh rollup when the answer is provably the base tables'
	// (rewrite_rollup.go). nil: every query reads the base tables.
	Rollups func() []RollupState

	mu          sync.Mutex
	cache       map[string]*prepared
	trees       map[string]joinTree
	policies    map[string]*policy      // by sorted role names (govern_policy.go)
	rollupCache map[string][]rollupPrep // by dialect name (rewrite_rollup.go)

	fieldNames  []string // "dataset.field", for did-you-mean
	metricNames []string
	// fields finds a field by "dataset.field" without scanning the
	// artifact (models run to thousands of datasets).
	fields map[string]datasetField
	// metricTypes are the metrics' answer types, by name.
	metricTypes map[string]compiler.MetricDatatype
}

type datasetField struct {
	dataset string
	f       *compiler.ArtifactField
}

// New prepares a planner for a compiled artifact.
func New(a *compiler.Artifact) (*Planner, error) {
	if a == nil {
		return nil, fmt.Errorf("plan.New: nil artifact")
	}
	p := &Planner{art: a, graph: newGraph(a), cache: map[string]*prepared{}, fields: map[string]datasetField{}}
	for i := range a.Datasets {
		ds := &a.Datasets[i]
		for j := range ds.Fields {
			key := fieldKey(ds.Name, ds.Fields[j].Name)
			p.fieldNames = append(p.fieldNames, key)
			if _, dup := p.fields[key]; !dup {
				p.fields[key] = datasetField{ds.Name, &ds.Fields[j]}
			}
		}
	}
	for _, m := range a.Metrics {
		p.metricNames = append(p.metricNames, m.Name)
	}
	p.metricTypes = compiler.MetricDatatypes(a)
	return p, nil
}

// Artifact returns the artifact the planner was built for.
func (p *Planner) Artifact() *compiler.Artifact { return p.art }

// Plan turns q into SQL for d, ungoverned (PlanFor with a nil Caller).
// All problems of the query are returned at once with OSS4xxx codes
// (unknown members carry a did-you-mean); on any problem the Plan is nil.
func (p *Planner) Plan(q *Query, d dialect.Dialect) (*Plan, compiler.Problems) {
	return p.PlanFor(q, d, nil)
}

// plan runs the three stages. Problems found while building (a dimension
// no relationship reaches, a fan-out without a primary key) are reported
// with those of resolving, so a query is refused with all of them at once.
func (p *Planner) plan(q *Query, d dialect.Dialect, pol *policy) (*Plan, compiler.Problems) {
	if q == nil {
		return nil, compiler.Problems{{Code: compiler.CodeBadQuery, Severity: compiler.SeverityError, Message: "empty query"}}
	}
	if i := compareDim(q); i >= 0 {
		return p.planCompare(q, i, d, pol)
	}
	return p.planOne(q, d, pol)
}

// planOne plans a query without date-range comparison.
func (p *Planner) planOne(q *Query, d dialect.Dialect, pol *policy) (*Plan, compiler.Problems) {
	pr := p.prepared(d)
	if len(pr.unsupported) > 0 {
		return nil, pol.redact(pr.unsupported)
	}
	b, probs := p.resolve(q, pr, pol)
	if len(probs) > 0 {
		return nil, probs
	}
	root, sql, probs := p.buildRender(pr, b)
	if len(probs) > 0 {
		return nil, probs
	}
	return &Plan{SQL: sql, Columns: b.columns(), ModelVersion: p.art.Version, Rollup: b.rollupUsed(), tree: root, rollups: b.rollups}, nil
}

// buildRender builds the logical plan of b and renders it.
func (p *Planner) buildRender(pr *prepared, b *bound) (node, string, compiler.Problems) {
	root, probs := p.build(b)
	if len(probs) > 0 {
		return nil, "", probs
	}
	sql, probs := render(p, pr, b, root)
	return root, sql, probs
}

// tree returns the join tree rooted at home, computed once per dataset.
func (p *Planner) tree(home string) (map[string]hop, []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if t, ok := p.trees[home]; ok {
		return t.hops, t.order
	}
	hops, order := p.graph.tree(home)
	if p.trees == nil {
		p.trees = map[string]joinTree{}
	}
	p.trees[home] = joinTree{hops, order}
	return hops, order
}

// joinTree caches graph.tree for one root; read-only once stored.
type joinTree struct {
	hops  map[string]hop
	order []string
}
