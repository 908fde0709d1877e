package plan

import (
	"github.com/ossie-dev/ossie/compiler"
)

// Rewrites, in the order build applies them. Each lives in its own file,
// rewrite_<name>.go, whose doc comment says which rule of
// docs/query-semantics.md it implements and when it fires; EXPLAIN names
// the rewrite that made each node.
const (
	rwAggregate   = "per-home aggregation" // rewrite_aggregate.go
	rwMembers     = "distinct members"     // rewrite_members.go
	rwSemi        = "semi-additive"        // rewrite_semiadditive.go
	rwConversion  = "conversion"           // rewrite_conversion.go
	rwFanOut      = "fan-out dedup"        // rewrite_fanout.go
	rwFanMembers  = "fan-out members"      // rewrite_fanmember.go
	rwCombine     = "chasm-safe combine"   // rewrite_combine.go
	rwProject     = "project"              // build.go: the query's columns
	rwWindow      = "metric window"        // rewrite_window.go
	rwMetricWhere = "metric filters"       // rewrite_metricfilter.go
	rwOrder       = "order and limit"      // build.go: order_by, ties, limit
	rwGovernance  = "governance"           // rewrite_governance.go
	rwTimezone    = "query time zone"      // rewrite_timezone.go
	rwStoredZone  = "stored time zone"     // rewrite_storedzone.go
	rwRollup      = "rollup substitution"  // rewrite_rollup.go
)

// builder is the state of one build run.
type builder struct {
	p      *Planner
	b      *bound
	groups []*group
	probs  compiler.Problems
}

// build turns a bound query into a logical plan by applying the rewrites
// in order. Problems (a member no relationship reaches, a fan-out the home
// dataset has no primary key for) are all returned; the plan is then nil.
func (p *Planner) build(b *bound) (node, compiler.Problems) {
	bl := &builder{p: p, b: b}
	win := bl.windowOf()
	bl.distinctMembers()
	bl.aggregatePerHome()
	bl.dedupFanOut()
	bl.fanMembers()
	if len(bl.probs) > 0 {
		return nil, bl.probs
	}
	bl.rollup()
	var root node = bl.project(bl.combineGroups())
	if win != nil {
		win.input = root.(*project)
		root = win
	}
	root = bl.filterMetrics(root)
	root = bl.orderAndLimit(root)
	root = bl.governance(root)
	bl.timezone()
	bl.storedZone()
	return root, nil
}

func (bl *builder) fail(code, path, msg string) {
	for _, pr := range bl.probs {
		if pr.Path == path {
			return // one problem per member, not one per home dataset
		}
	}
	bl.probs = append(bl.probs, compiler.Problem{Code: code, Severity: compiler.SeverityError, Path: path, Message: msg})
}

// project computes the selected dimensions and every metric from the
// combined groups' measures (query-semantics.md: derived metrics are
// computed from measures at the query grain, so ratios are never
// averaged).
func (bl *builder) project(c *combine) *project {
	refs := make(map[string]measureRef, 8)
	for _, g := range c.groups {
		for i, ms := range g.measures {
			refs[ms.key] = measureRef{alias: g.alias, col: g.cols[i], countLike: ms.countLike}
		}
	}
	return &project{origin: origin{rwProject}, input: c, dims: bl.b.dims, metrics: bl.b.metrics, refs: refs}
}

// orderAndLimit sorts by the requested keys, then by the remaining
// dimensions so that the same query returns rows in the same order
// (query-semantics.md, "Default order"), and applies limit and offset.
func (bl *builder) orderAndLimit(in node) node {
	b := bl.b
	if len(b.order) > 0 {
		in = &sortNode{origin: origin{rwOrder}, input: in, keys: b.order}
	}
	if b.limit >= 0 || b.offset > 0 {
		in = &limit{origin: origin{rwOrder}, input: in, n: b.limit, offset: b.offset}
	}
	return in
}
