package plan

import (
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
)

// A logical plan is a small tree of relational nodes, built by build from
// a bound query (build.go) and turned into SQL by render (render.go). The
// tree of one query, root first:
//
//	limit ─ sort ─ filter (metric filters) ─ [window] ─ project ─ combine ─ aggregate …
//
// (window only when the query computes a typed metric) and under each aggregate either a join chain over its home scan, or,
// when a fan-out is deduplicated, a key join of a distinct over the join
// chain back to the home scan. Every node records the rewrite that made it
// and why, which EXPLAIN prints (explain.go).
//
// The rollup substitution (rewrite_rollup.go) replaces the aggregates by
// one aggregate over a rollupScan of a pre-aggregated table.
type node interface {
	// madeBy names the rewrite that made the node (see rewrites).
	madeBy() string
	// inputs are the node's children, in render order.
	inputs() []node
}

// origin is the rewrite that made a node. Why it fired is worded by
// explain from the node's own fields, so planning spends nothing on text
// that only EXPLAIN reads.
type origin struct{ rewrite string }

func (o origin) madeBy() string { return o.rewrite }

// scan reads every row of a dataset, under the alias of its name (or of
// its join's path, rewrite_paths.go).
type scan struct {
	origin
	dataset string
}

// rowFilter narrows a dataset's rows to those the caller may read: its
// role alternatives are ORed, the filters of one alternative ANDed
// (docs/governance.md). It replaces the dataset's scan wherever the query
// reads the dataset.
type rowFilter struct {
	origin
	dataset string
	alts    [][]compiler.ArtifactRowFilter
}

// join LEFT JOINs the dataset of right to left along one relationship
// edge. toOne: the hop goes from the relationship's many side to its one
// side, so left's rows never repeat; otherwise it fans out.
type join struct {
	origin
	left    node
	right   node // a scan or rowFilter of dataset
	dataset string
	rel     *compiler.ArtifactRelationship
	toOne   bool
	by      member // the first dimension or filter that needs the dataset
	chosen  string // why this relationship of several: the query's via or a metric's pin
	inner   bool   // rows reaching no row of dataset are dropped (rewrite_fanmember.go)
	// path: the join tree nodes of the two sides when either is a join
	// alias (rewrite_paths.go); nil when both are datasets joined under
	// their own names.
	path *joinPath
}

// joinPath names the sides of a join on a second path to a dataset: the
// alias the right side is read under and its parent's node.
type joinPath struct{ alias, parent string }

// filter keeps the rows all of its predicates admit. Below an aggregate it
// holds dimension filters (dims); above the projection metric filters
// (metrics); never both.
type filter struct {
	origin
	input   node
	dims    []dimFilter
	metrics []metricFilter
}

// distinct forms the distinct (dimension values, home primary key) rows
// of its input: each home row then counts once per group, however many
// rows a one-to-many join gave it. Column dN is dims[N], kN is key[N].
type distinct struct {
	origin
	input node
	home  string
	dims  []*dim
	key   []string // the home dataset's primary-key columns
	fan   []fanHop // the one-to-many hops that made the rows repeat
}

// fanHop is a one-to-many hop on the way from a home dataset to a member:
// from the relationship's one side (one) to its many side (many).
type fanHop struct {
	by        member // the dimension or filter that needs the hop
	rel       string
	one, many string
}

// member is a dimension or a dimension filter of the query, named in
// EXPLAIN as the reason a dataset is joined.
type member struct {
	dm     *dim // nil: a measure's read
	filter bool
}

// keyJoin joins the home dataset's rows back to a distinct on its primary
// key: one home row per (group, key).
type keyJoin struct {
	origin
	left  *distinct
	right node // the home scan or rowFilter
}

// aggregate computes measures over its input's rows, grouped by dims. Its
// result has columns dN (dims[N]) and cols[M] (measures[M]); alias names
// it for combine.
type aggregate struct {
	origin
	input    node
	home     string
	alias    string
	dims     []*dim
	measures []*measure
	cols     []string
	// keyed: dims come from the distinct below (column "k"."dN") instead
	// of being computed from the home's joins.
	keyed bool
	// semi: the group holds one semi-additive measure, aggregated in two
	// stages (rewrite_semiadditive.go).
	semi *semiPick
	// conv: the group holds one conversion measure; its input ends in a
	// convJoin (rewrite_conversion.go).
	conv *convSpec
	// aliases: the dimensions and filters read along a second path to
	// their dataset, each with its join alias (rewrite_paths.go).
	aliases map[*dim]string
	// rollup: the group re-aggregates a rollup's rows (rewrite_rollup.go);
	// its input is a rollupScan, under a filter when the query has
	// dimension filters.
	rollup *rollupUse
}

// rollupScan reads every row of a built rollup's table (rewrite_rollup.go).
type rollupScan struct {
	origin
	use *rollupUse
}

// convJoin LEFT JOINs the rows of a conversion's event-B dataset (right,
// a scan or rowFilter) to each event-A row of left with the same entity
// from the A row's time to conv.count conv.unit after it.
type convJoin struct {
	origin
	left, right node
	conv        *convSpec
}

// combineMode is how the groups of a combine become one row set.
type combineMode int

const (
	combineOne   combineMode = iota // one group: its rows as they are
	combineCross                    // no dimensions: one row per group, cross joined
	combineStack                    // stacked with UNION ALL, grouped on the dimensions
)

// combine merges the results of the aggregates, one per home dataset, on
// the dimensions: a member present in one group only is kept.
type combine struct {
	origin
	groups []*aggregate
	dims   int
	mode   combineMode
}

// project computes the result columns from the combined measures: the
// dimensions and every metric's combining expression. hidden metrics
// (named by a filter or order_by only) are computed but not returned.
type project struct {
	origin
	input   *combine
	dims    []*dim
	metrics []*selMetric
	refs    map[string]measureRef // by measure key
}

// window computes the typed metrics (running totals, rolling windows,
// period over period; docs/metrics.md) over the projection's rows: every
// period of the time dimension from the first to the last one with rows
// (a spine generated in SQL), for every combination of the other
// dimensions, the typed metrics' per-period values windowed along time.
// after are the time filters moved above the window so they choose the
// periods returned without cutting the window's history short.
type window struct {
	origin
	input   *project
	time    int // index of the time dimension in input.dims
	metrics []*selMetric
	after   []dimFilter
	frames  map[string]frame // by metric name
}

// frame is how one typed metric reads the per-period values: SUM over the
// rows from preceding (-1: unbounded) to the current one, restarting at
// each period of reset; or, lag > 0, the value lag periods back.
type frame struct {
	preceding int
	reset     dialect.Grain
	lag       int
	output    string // lag or yearAgo: value, difference or ratio
	// yearAgo: the value of the same period a year earlier (day, hour
	// and week grain), joined from the per-period values instead of
	// counted back.
	yearAgo bool
	// fine (day or hour): a rolling window of count units that is not a
	// whole number of query periods, summed from the values per fine
	// period in the count units before each period's end.
	fine  dialect.Grain
	count int
	unit  string
}

// measureRef is where a measure's value is: column col of group alias.
type measureRef struct {
	alias, col string
	countLike  bool // COUNT-family: 0, not NULL, where its group has no row
}

// sort orders the projected rows; NULLs last on every engine.
type sortNode struct {
	origin
	input node
	keys  []orderKey
}

// limit returns at most n rows (n < 0: all) after skipping offset.
type limit struct {
	origin
	input  node
	n      int
	offset int
}

func (n *scan) inputs() []node       { return nil }
func (n *rollupScan) inputs() []node { return nil }
func (n *rowFilter) inputs() []node  { return nil }
func (n *join) inputs() []node       { return []node{n.left, n.right} }
func (n *filter) inputs() []node     { return []node{n.input} }
func (n *distinct) inputs() []node   { return []node{n.input} }
func (n *keyJoin) inputs() []node    { return []node{n.left, n.right} }
func (n *convJoin) inputs() []node   { return []node{n.left, n.right} }
func (n *aggregate) inputs() []node  { return []node{n.input} }
func (n *combine) inputs() []node {
	out := make([]node, len(n.groups))
	for i, g := range n.groups {
		out[i] = g
	}
	return out
}
func (n *project) inputs() []node  { return []node{n.input} }
func (n *window) inputs() []node   { return []node{n.input} }
func (n *sortNode) inputs() []node { return []node{n.input} }
func (n *limit) inputs() []node    { return []node{n.input} }
