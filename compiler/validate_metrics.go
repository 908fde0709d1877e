package compiler

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ossie-dev/ossie/compiler/expr"
)

// checkedMetric is a metric after parsing and reference resolution.
type checkedMetric struct {
	checkedExpr
	deps     []string // metrics used by name, sorted, unique
	direct   []int    // datasets read by the metric's own aggregates
	star     int      // dataset whose rows ref-less aggregates count, or -1
	datasets []string // every dataset read, through dependencies too, sorted
}

// checkMetrics applies the metric rules of DESIGN.md section 3 (see
// resolveMetric), then rejects cycles between derived metrics and computes
// the datasets each metric reads.
func (mc *modelCheck) checkMetrics() {
	mc.metricExprs = make([]checkedMetric, len(mc.m.Metrics))
	facts := mc.factDatasets()
	for i := range mc.m.Metrics {
		mt := &mc.m.Metrics[i]
		path := mc.metricPath(i) + ".expression"
		ce := mc.parsePortable(path, "metric", mt.Name, mt.Expression)
		if !ce.ok {
			continue
		}
		mc.metricExprs[i] = mc.resolveMetric(i, ce.path, ce, facts)
	}
	mc.checkMetricCycles()
	mc.metricDatasets()
}

// metricWalk is the state of resolving one metric expression.
type metricWalk struct {
	mc      *modelCheck
	name    string
	path    string
	bad     bool
	hasAgg  bool
	deps    map[string]bool
	direct  map[int]bool
	qualDS  map[int]bool // datasets named by qualified refs (for bare refs)
	agg     *aggWalk     // the aggregate being walked, nil outside
	refless []string     // ref-less aggregates (COUNT(*), SUM(1))
}

type aggWalk struct {
	name     string
	datasets map[int]bool
}

// resolveMetric resolves every reference of a metric:
//   - outside aggregates a reference must name a metric (derived metrics);
//     a field there means the metric does not aggregate it (CodeMetricNoAgg);
//   - inside an aggregate `dataset.field` must name a field (unquoted names
//     match case-insensitively when unambiguous); a bare name is a field of
//     the only dataset that declares it, or of the only one among the
//     datasets the metric names elsewhere; a metric there would be an
//     aggregate of an aggregate (CodeNestedAggregate);
//   - aggregates do not nest, each aggregate reads datasets connected in
//     the join graph (CodeDisconnected), and a metric that neither
//     aggregates nor uses a metric is CodeMetricNoAgg.
func (mc *modelCheck) resolveMetric(i int, path string, ce checkedExpr, facts []int) checkedMetric {
	w := &metricWalk{mc: mc, name: mc.m.Metrics[i].Name, path: path,
		deps: map[string]bool{}, direct: map[int]bool{}, qualDS: map[int]bool{}}
	w.collectQualified(ce.node)
	node := w.rewrite(ce.node)
	cm := checkedMetric{star: -1}
	if len(w.refless) > 0 && !w.bad {
		cm.star = w.starDataset(facts)
	}
	if !w.hasAgg && len(w.deps) == 0 && !w.bad {
		w.errorf(CodeMetricNoAgg, "metric %q neither aggregates (SUM, COUNT, AVG, ...) nor combines other metrics; a metric is an aggregate such as SUM(dataset.field)", w.name)
	}
	if w.bad {
		return cm
	}
	cm.checkedExpr = ce
	cm.node = node
	for d := range w.deps {
		cm.deps = append(cm.deps, d)
	}
	sort.Strings(cm.deps)
	for d := range w.direct {
		cm.direct = append(cm.direct, d)
	}
	if cm.star >= 0 && !w.direct[cm.star] {
		cm.direct = append(cm.direct, cm.star)
	}
	sort.Ints(cm.direct)
	return cm
}

func (w *metricWalk) errorf(code, format string, args ...any) {
	w.bad = true
	w.mc.errorf(code, w.path, format, args...)
}

// collectQualified records the datasets named as `dataset.field` anywhere,
// which decide between datasets for bare field names.
func (w *metricWalk) collectQualified(n expr.Node) {
	for _, r := range expr.Refs(n) {
		if r.Qualifier == "" {
			continue
		}
		if d, ok := w.mc.datasets.find(r.Qualifier, false); ok {
			w.qualDS[d] = true
		}
	}
}

func (w *metricWalk) rewrite(n expr.Node) expr.Node {
	switch v := n.(type) {
	case expr.Ref:
		if w.agg == nil {
			return w.outsideRef(v)
		}
		return w.insideRef(v)
	case expr.Func:
		if !isAggregate(v) {
			break
		}
		if w.agg != nil {
			w.errorf(CodeNestedAggregate, "metric %q nests aggregate %s inside %s; aggregate once, or define the inner aggregate as its own metric and combine metrics", w.name, v.Name, w.agg.name)
			return n
		}
		w.hasAgg = true
		w.agg = &aggWalk{name: v.Name, datasets: map[int]bool{}}
		out := mapChildren(n, w.rewrite)
		w.finishAggregate()
		w.agg = nil
		return out
	}
	return mapChildren(n, w.rewrite)
}

func (w *metricWalk) finishAggregate() {
	a := w.agg
	if len(a.datasets) == 0 {
		w.refless = append(w.refless, a.name)
		return
	}
	ds := make([]int, 0, len(a.datasets))
	for d := range a.datasets {
		ds = append(ds, d)
		w.direct[d] = true
	}
	sort.Ints(ds)
	g := w.mc.graph
	for _, d := range ds[1:] {
		if !g.connected(ds[0], d) {
			names := make([]string, len(ds))
			for j, x := range ds {
				names[j] = fmt.Sprintf("%q", w.mc.m.Datasets[x].Name)
			}
			w.errorf(CodeDisconnected, "metric %q: aggregate %s reads datasets %s, but no chain of relationships joins %q and %q; add a relationship, or aggregate each dataset in its own metric and combine the metrics",
				w.name, a.name, strings.Join(names, ", "), w.mc.m.Datasets[ds[0]].Name, w.mc.m.Datasets[d].Name)
			return
		}
	}
}

// outsideRef: outside an aggregate only metrics may be named.
func (w *metricWalk) outsideRef(v expr.Ref) expr.Node {
	if v.Qualifier != "" {
		w.errorf(CodeMetricNoAgg, "metric %q uses %s.%s outside an aggregate; a metric must aggregate row values, e.g. SUM(%s.%s)", w.name, v.Qualifier, v.Name, v.Qualifier, v.Name)
		return v
	}
	if m, ok := w.mc.metrics.find(v.Name, v.Quoted); ok {
		name := w.mc.m.Metrics[m].Name
		w.deps[name] = true
		return expr.Ref{Name: name, Quoted: v.Quoted}
	}
	if owners := w.bareOwners(v); len(owners) > 0 {
		w.errorf(CodeMetricNoAgg, "metric %q uses field %s outside an aggregate and no metric has that name; aggregate it, e.g. SUM(%s.%s)", w.name, v.Name, w.mc.m.Datasets[owners[0].dataset].Name, owners[0].name)
		return v
	}
	w.errorf(CodeUnknownReference, "metric %q references %q, which is not a metric%s", w.name, v.Name, hint(v.Name, w.mc.metricNames))
	return v
}

// insideRef: inside an aggregate references are fields.
func (w *metricWalk) insideRef(v expr.Ref) expr.Node {
	mc := w.mc
	if v.Qualifier != "" {
		d, ok := mc.datasets.find(v.Qualifier, false)
		if !ok {
			w.errorf(CodeUnknownReference, "metric %q references %s.%s, but there is no dataset %q%s", w.name, v.Qualifier, v.Name, v.Qualifier, hint(v.Qualifier, mc.datasetNames))
			return v
		}
		f, ok := mc.fields[d].find(v.Name, v.Quoted)
		if !ok {
			return w.physicalColumn(d, v)
		}
		w.agg.datasets[d] = true
		return expr.Ref{Qualifier: mc.m.Datasets[d].Name, Name: mc.m.Datasets[d].Fields[f].Name, Quoted: v.Quoted}
	}
	owners := w.bareOwners(v)
	if len(owners) > 1 {
		var narrowed []fieldAt
		for _, o := range owners {
			if w.qualDS[o.dataset] {
				narrowed = append(narrowed, o)
			}
		}
		if len(narrowed) == 1 {
			owners = narrowed
		}
	}
	switch len(owners) {
	case 1:
		o := owners[0]
		w.agg.datasets[o.dataset] = true
		return expr.Ref{Qualifier: mc.m.Datasets[o.dataset].Name, Name: o.name, Quoted: v.Quoted}
	case 0:
		if _, ok := mc.metrics.find(v.Name, v.Quoted); ok {
			w.errorf(CodeNestedAggregate, "metric %q uses metric %q inside aggregate %s; a metric is already an aggregate — use it outside aggregates (e.g. %s / 2)", w.name, v.Name, w.agg.name, v.Name)
			return v
		}
		if d, ok := w.onlyDataset(); ok {
			return w.physicalColumn(d, v)
		}
		w.errorf(CodeUnknownReference, "metric %q references %q inside %s, but no dataset has a field of that name; write dataset.field%s", w.name, v.Name, w.agg.name, hint(v.Name, mc.allFieldNames()))
		return v
	default:
		names := make([]string, len(owners))
		for j, o := range owners {
			names[j] = fmt.Sprintf("%s.%s", mc.m.Datasets[o.dataset].Name, o.name)
		}
		w.errorf(CodeUnknownReference, "metric %q references %q, which is ambiguous: %s; qualify it as dataset.field", w.name, v.Name, strings.Join(names, ", "))
		return v
	}
}

// physicalColumn reads dataset.column, where column is no declared field,
// as a physical column of the dataset's source (converter outputs write
// metrics over columns): a CodeMetricColumn warning, an implicit field in
// the artifact, and a check at bind time (drift when it is missing).
func (w *metricWalk) physicalColumn(d int, v expr.Ref) expr.Node {
	mc := w.mc
	ds := mc.m.Datasets[d].Name
	mc.add(CodeMetricColumn, SeverityWarning, w.path, fmt.Sprintf(
		"metric %q reads %s.%s, which is not a declared field of %q: it is read as a physical column of the source and checked when the model is bound to an engine%s",
		w.name, ds, v.Name, ds, hint(v.Name, mc.fieldNames(d))))
	w.agg.datasets[d] = true
	mc.addMetricColumn(d, v)
	return expr.Ref{Qualifier: ds, Name: v.Name, Quoted: v.Quoted}
}

// onlyDataset is the dataset a bare column of a metric belongs to: the
// only one the metric names as dataset.field, else the model's only one.
func (w *metricWalk) onlyDataset() (int, bool) {
	if len(w.qualDS) == 1 {
		for d := range w.qualDS {
			return d, true
		}
	}
	if len(w.qualDS) == 0 && len(w.mc.datasetNames) == 1 {
		return w.mc.datasets.exact[w.mc.datasetNames[0]], true
	}
	return 0, false
}

// addMetricColumn records a physical column a metric reads (once).
func (mc *modelCheck) addMetricColumn(d int, v expr.Ref) {
	if mc.metricColumns == nil {
		mc.metricColumns = map[int][]expr.Ref{}
	}
	for _, r := range mc.metricColumns[d] {
		if r.Name == v.Name {
			return
		}
	}
	mc.metricColumns[d] = append(mc.metricColumns[d], expr.Ref{Name: v.Name, Quoted: v.Quoted})
}

// bareOwners lists the fields a bare name can mean: exact name first; an
// unquoted name also matches case-insensitively.
func (w *metricWalk) bareOwners(v expr.Ref) []fieldAt {
	var out []fieldAt
	for _, d := range w.mc.fieldOwners[v.Name] {
		out = append(out, fieldAt{d, v.Name})
	}
	if len(out) == 0 && !v.Quoted {
		out = w.mc.foldedOwners[strings.ToLower(v.Name)]
	}
	return out
}

// starDataset decides whose rows a ref-less aggregate (COUNT(*), SUM(1))
// counts: the only dataset the metric's other aggregates read; else, the
// model's only dataset; else the only fact dataset (one that is no
// relationship's `to`, i.e. the root of the join tree).
func (w *metricWalk) starDataset(facts []int) int {
	var cands []int
	for d := range w.direct {
		cands = append(cands, d)
	}
	if len(cands) == 0 {
		for d := range w.mc.m.Datasets {
			if w.mc.isOwnDataset(d) {
				cands = append(cands, d)
			}
		}
	}
	sort.Ints(cands)
	if len(cands) == 1 {
		return cands[0]
	}
	var narrowed []int
	for _, d := range cands {
		if _, ok := slices.BinarySearch(facts, d); ok {
			narrowed = append(narrowed, d)
		}
	}
	if len(narrowed) == 1 {
		return narrowed[0]
	}
	w.errorf(CodeUnknownReference, "metric %q: %s names no column, so it is unclear which dataset's rows it counts; name one, e.g. COUNT(dataset.key)", w.name, w.refless[0])
	return -1
}

// factDatasets lists (sorted) the datasets that are the `to` of no usable
// relationship: the many-side roots of the join forest.
func (mc *modelCheck) factDatasets() []int {
	isTo := make([]bool, len(mc.m.Datasets))
	for i, ok := range mc.relationships {
		if ok {
			isTo[mc.datasets.exact[mc.m.Relationships[i].To]] = true
		}
	}
	var out []int
	for d := range mc.m.Datasets {
		if !isTo[d] && mc.isOwnDataset(d) {
			out = append(out, d)
		}
	}
	return out
}

func (mc *modelCheck) allFieldNames() []string {
	out := make([]string, 0, len(mc.fieldOwners))
	for n := range mc.fieldOwners {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// checkMetricCycles finds strongly connected components of the derived-
// metric graph (Tarjan); each component with more than one metric, or a
// metric using itself, is one CodeMetricCycle at its first metric.
func (mc *modelCheck) checkMetricCycles() {
	n := len(mc.metricExprs)
	adj := make([][]int, n)
	for i := range mc.metricExprs {
		if !mc.metricExprs[i].ok {
			continue
		}
		for _, dep := range mc.metricExprs[i].deps {
			j := mc.metrics.exact[dep]
			if mc.metricExprs[j].ok {
				adj[i] = append(adj[i], j)
			}
		}
	}
	index := make([]int, n)
	low := make([]int, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	var stack []int
	next := 0
	var comps [][]int
	var strong func(v int)
	strong = func(v int) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for _, u := range adj[v] {
			if index[u] < 0 {
				strong(u)
				low[v] = min(low[v], low[u])
			} else if onStack[u] {
				low[v] = min(low[v], index[u])
			}
		}
		if low[v] == index[v] {
			var comp []int
			for {
				u := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[u] = false
				comp = append(comp, u)
				if u == v {
					break
				}
			}
			if len(comp) > 1 || slices.Contains(adj[v], v) {
				comps = append(comps, comp)
			}
		}
	}
	for i := 0; i < n; i++ {
		if index[i] < 0 {
			strong(i)
		}
	}
	for _, comp := range comps {
		slices.Sort(comp)
		in := map[int]bool{}
		for _, c := range comp {
			in[c] = true
		}
		cycle := mc.cycleThrough(comp[0], adj, in)
		names := make([]string, len(cycle))
		for k, c := range cycle {
			names[k] = mc.m.Metrics[c].Name
		}
		mc.errorf(CodeMetricCycle, mc.metricExprs[comp[0]].path,
			"derived metrics form a cycle: %s; a metric cannot depend on itself", strings.Join(names, " → "))
		for _, c := range comp {
			mc.metricExprs[c].ok = false
		}
	}
}

// cycleThrough returns a cycle start → ... → start inside one strongly
// connected component (breadth-first, so it is a shortest one).
func (mc *modelCheck) cycleThrough(start int, adj [][]int, in map[int]bool) []int {
	prev := map[int]int{}
	queue := []int{start}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, u := range adj[v] {
			if !in[u] {
				continue
			}
			if u == start {
				path := []int{start}
				for x := v; x != start; x = prev[x] {
					path = append(path, x)
				}
				slices.Reverse(path[1:])
				return append(path, start)
			}
			if _, seen := prev[u]; !seen {
				prev[u] = v
				queue = append(queue, u)
			}
		}
	}
	return []int{start, start}
}

// metricDatasets fills checkedMetric.datasets: the datasets a metric reads
// itself plus those of every metric it depends on, transitively.
func (mc *modelCheck) metricDatasets() {
	memo := make([]map[int]bool, len(mc.metricExprs))
	var collect func(i int) map[int]bool
	collect = func(i int) map[int]bool {
		if memo[i] != nil {
			return memo[i]
		}
		set := map[int]bool{}
		memo[i] = set // cycles were rejected; this also stops any leftover loop
		for _, d := range mc.metricExprs[i].direct {
			set[d] = true
		}
		for _, dep := range mc.metricExprs[i].deps {
			j := mc.metrics.exact[dep]
			if !mc.metricExprs[j].ok {
				continue
			}
			for d := range collect(j) {
				set[d] = true
			}
		}
		return set
	}
	for i := range mc.metricExprs {
		if !mc.metricExprs[i].ok {
			continue
		}
		set := collect(i)
		names := make([]string, 0, len(set))
		for d := range set {
			names = append(names, mc.m.Datasets[d].Name)
		}
		sort.Strings(names)
		mc.metricExprs[i].datasets = names
	}
}
