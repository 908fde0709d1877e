package reference

import (
	"fmt"
	"math/big"
	"sort"
	"strings"
	"time"

	"github.com/ossie-dev/ossie/test/differential/dcase"
)

// Input is what the reference answers: a model, its tables, the query
// body, and optionally a governance document with the caller asking.
type Input struct {
	Model      *Model
	Governance *Governance   // nil: no governance
	Caller     *dcase.Caller // nil: ungoverned
	Tables     []dcase.Table
	Query      []byte
}

// Refused is the answer to a query the product refuses: Code is the
// documented problem code (docs/problems.md).
type Refused struct {
	Code   string
	Reason string
}

func (r *Refused) Error() string { return r.Code + ": " + r.Reason }

// dsInfo is one dataset with its table.
type dsInfo struct {
	d     *Dataset
	table *dcase.Table
	col   map[string]int    // field name → column index
	field map[string]*Field // field name → field
}

type evaluator struct {
	m       *Model
	ds      map[string]*dsInfo
	metric  map[string]*Metric
	q       *Query
	loc     *time.Location
	gov     *governed // nil: ungoverned
	visMemo map[string][][]any
}

// rdim is a resolved dimension (or a member a filter reads).
type rdim struct {
	ds, field string
	grain     string
	weekStart string
	name      string
	via       string // the relationship its path takes ("" for the model's path)
}

// Evaluate answers in.Query over in.Tables as docs/query-semantics.md,
// docs/metrics.md and docs/governance.md define it. The error is a
// *Refused for a query the product must refuse, another error for input
// the reference does not cover.
func Evaluate(in Input) (*dcase.Result, error) {
	q, err := ParseQuery(in.Query)
	if err != nil {
		return nil, err
	}
	e, err := newEvaluator(in, q)
	if err != nil {
		return nil, err
	}
	return e.answer()
}

func newEvaluator(in Input, q *Query) (*evaluator, error) {
	e := &evaluator{m: in.Model, ds: map[string]*dsInfo{}, metric: map[string]*Metric{}, q: q, visMemo: map[string][][]any{}}
	tables := map[string]*dcase.Table{}
	for i := range in.Tables {
		tables[in.Tables[i].Name] = &in.Tables[i]
	}
	for i := range e.m.Datasets {
		d := &e.m.Datasets[i]
		t := tables[d.Table]
		if t == nil {
			return nil, fmt.Errorf("dataset %s: no table %s", d.Name, d.Table)
		}
		info := &dsInfo{d: d, table: t, col: map[string]int{}, field: map[string]*Field{}}
		for j := range d.Fields {
			f := &d.Fields[j]
			idx := -1
			for k, c := range t.Columns {
				if c.Name == f.Column {
					idx = k
				}
			}
			if idx < 0 {
				return nil, fmt.Errorf("field %s.%s: no column %s", d.Name, f.Name, f.Column)
			}
			info.col[f.Name] = idx
			info.field[f.Name] = f
		}
		e.ds[d.Name] = info
	}
	for i := range e.m.Metrics {
		e.metric[e.m.Metrics[i].Name] = &e.m.Metrics[i]
	}
	zone := q.Timezone
	if zone == "" {
		zone = "UTC"
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return nil, &Refused{Code: "OSS4006", Reason: err.Error()}
	}
	e.loc = loc
	if in.Governance != nil && in.Caller != nil {
		e.gov = newGoverned(in.Governance, in.Caller)
	}
	return e, nil
}

// splitMember splits "dataset.field".
func splitMember(s string) (ds, field string) {
	i := strings.Index(s, ".")
	if i < 0 {
		return "", s
	}
	return s[:i], s[i+1:]
}

// resolve checks a member and returns it.
func (e *evaluator) resolve(member, grain, weekStart, via string) (rdim, error) {
	ds, f := splitMember(member)
	d := e.ds[ds]
	if d == nil || d.field[f] == nil || (e.gov != nil && !e.gov.fieldReadable(member)) {
		return rdim{}, &Refused{Code: "OSS4003", Reason: "unknown field " + member}
	}
	r := rdim{ds: ds, field: f, grain: grain, weekStart: weekStart, name: member, via: via}
	if grain != "" {
		r.name = member + "." + grain
		dt := e.datatype(ds, f)
		if !isTimeType(dt) || e.mask(member) != nil {
			return rdim{}, &Refused{Code: "OSS4004", Reason: "grain on " + member}
		}
	}
	if via != "" {
		if e.relationship(via) == nil {
			return rdim{}, &Refused{Code: "OSS4013", Reason: "via " + via + " names no relationship"}
		}
		r.name += "@" + via
	}
	return r, nil
}

// datatype is a field's Ossie datatype: declared, else the column's.
func (e *evaluator) datatype(ds, f string) string {
	fl := e.ds[ds].field[f]
	if fl.Datatype != "" {
		return fl.Datatype
	}
	return DatatypeOf(e.colType(ds, f))
}

// storedZone is the zone a naive timestamp field's wall times are in
// (field, dataset, model; UTC when none says).
func (e *evaluator) storedZone(ds, f string) string {
	d := e.ds[ds]
	for _, z := range []string{d.field[f].Timezone, d.d.Timezone, e.m.Timezone} {
		if z != "" {
			return z
		}
	}
	return "UTC"
}

// value is a member's value in a joined row as the query sees it: the
// mask's text for a masked field; a time as wall time in the query zone
// (a DateTimeTz instant converted, a naive DateTime read in its stored
// zone and converted when that differs from the query zone, a Date as
// is), truncated to the grain.
func (e *evaluator) value(c combo, m rdim) any {
	v := e.raw(m.ds, c[m.node()], m.field)
	if mk := e.mask(m.ds + "." + m.field); mk != nil {
		return applyMask(mk, v)
	}
	if v == nil {
		return nil
	}
	t, ok := v.(time.Time)
	if !ok {
		return v
	}
	switch e.datatype(m.ds, m.field) {
	case "DateTimeTz":
		t = wall(t.In(e.loc))
	case "DateTime":
		if sz := e.storedZone(m.ds, m.field); sz != e.loc.String() {
			sl, err := time.LoadLocation(sz)
			if err == nil {
				t = wall(time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), sl).In(e.loc))
			}
		}
	}
	if m.grain != "" {
		t = truncate(t, m.grain, m.weekStart)
	}
	return t
}

// keyOf is a canonical text key of a tuple of values.
func keyOf(vals []any) string {
	var b strings.Builder
	for _, v := range vals {
		if t, ok := v.(time.Time); ok {
			b.WriteString("t" + t.UTC().Format(time.RFC3339Nano))
		} else {
			b.WriteString(dcase.Value(v))
		}
		b.WriteByte(0)
	}
	return b.String()
}

// group is one group of the query's dimensions with the values computed
// in it: aggregates (by *Agg) and semi-additive and conversion metrics (by
// *Metric), each an exact number or nil (NULL).
type group struct {
	dims []any
	vals map[any]*big.Rat
	has  map[any]bool
}

func newGroup(dims []any) *group {
	return &group{dims: dims, vals: map[any]*big.Rat{}, has: map[any]bool{}}
}

// rowGroups groups the visible rows of home by dims, each row once per
// group it reaches, keeping only joined rows every filter admits. A
// one-to-many hop on the way needs home's primary key (OSS4008).
func (e *evaluator) rowGroups(home string, dims []rdim, filters []rfilter) (map[string]*group, map[string][][]any, *joinTree, error) {
	var need []rdim
	need = append(need, dims...)
	for _, f := range filters {
		need = append(need, f.m)
	}
	t, err := e.tree(home, need)
	if err != nil {
		return nil, nil, nil, err
	}
	if t.fanOut && len(e.ds[home].d.PrimaryKey) == 0 {
		return nil, nil, nil, &Refused{Code: "OSS4008", Reason: home + " has no primary key and is fanned out"}
	}
	groups := map[string]*group{}
	rows := map[string][][]any{}
	for _, r := range e.visible(home) {
		seen := map[string]bool{}
		for _, c := range e.combos(t, r) {
			if !e.admits(c, filters) {
				continue
			}
			vals := make([]any, len(dims))
			for i, d := range dims {
				vals[i] = e.value(c, d)
			}
			k := keyOf(vals)
			if seen[k] {
				continue
			}
			seen[k] = true
			if groups[k] == nil {
				groups[k] = newGroup(vals)
			}
			rows[k] = append(rows[k], r)
		}
	}
	return groups, rows, t, nil
}

// aggregate computes a over rows of its dataset (each row once).
func (e *evaluator) aggregate(a *Agg, rows [][]any) *big.Rat {
	var sum, best *big.Rat
	n := int64(0)
	distinct := map[string]bool{}
	for _, r := range rows {
		if a.When != nil && !e.when(a.Dataset, r, a.When) {
			continue
		}
		if a.Func == "COUNT_STAR" {
			n++
			continue
		}
		v := e.raw(a.Dataset, r, a.Field)
		if v == nil {
			continue
		}
		n++
		if a.Func == "COUNT_DISTINCT" {
			distinct[keyOf([]any{v})] = true
			continue
		}
		x := ratOf(v, e.colType(a.Dataset, a.Field))
		if x == nil {
			continue
		}
		if sum == nil {
			sum = new(big.Rat)
		}
		sum.Add(sum, x)
		if best == nil || (a.Func == "MIN" && x.Cmp(best) < 0) || (a.Func == "MAX" && x.Cmp(best) > 0) {
			best = x
		}
	}
	switch a.Func {
	case "COUNT", "COUNT_STAR":
		return new(big.Rat).SetInt64(n)
	case "COUNT_DISTINCT":
		return new(big.Rat).SetInt64(int64(len(distinct)))
	case "SUM":
		return sum
	case "AVG":
		if sum == nil {
			return nil
		}
		return new(big.Rat).Quo(sum, new(big.Rat).SetInt64(n))
	case "MIN", "MAX":
		return best
	}
	return nil
}

// when evaluates an aggregate's CASE condition on a row of ds.
func (e *evaluator) when(ds string, row []any, c *Cond) bool {
	v := e.raw(ds, row, c.Field)
	if v == nil {
		return false
	}
	cmp, ok := compare(v, c.Value)
	if !ok {
		return false
	}
	return cmpOp(c.Op, cmp)
}

func cmpOp(op string, cmp int) bool {
	switch op {
	case "=":
		return cmp == 0
	case "<>", "!=":
		return cmp != 0
	case ">":
		return cmp > 0
	case ">=":
		return cmp >= 0
	case "<":
		return cmp < 0
	case "<=":
		return cmp <= 0
	}
	return false
}

// isCount: a COUNT-family aggregate is 0, not NULL, in a group its
// dataset has no rows in (query-semantics.md, BC-03).
func isCount(a *Agg) bool {
	return a.Func == "COUNT" || a.Func == "COUNT_STAR" || a.Func == "COUNT_DISTINCT"
}

// aggs lists the aggregates of m's expression, through plain metrics it
// names (not through typed ones, which are computed on their own).
func (e *evaluator) aggs(x Expr, out *[]*Agg) {
	switch v := x.(type) {
	case *Agg:
		*out = append(*out, v)
	case Ref:
		if m := e.metric[v.Metric]; m != nil {
			e.aggs(m.Expr, out)
		}
	case *Bin:
		e.aggs(v.L, out)
		e.aggs(v.R, out)
	}
}

// metricType is the answer datatype of a metric: declared, else the
// type its expression has (docs/query-semantics.md, "Answer types");
// "" for AVG, whose type differs by engine (its value is a float either
// way).
func (e *evaluator) metricType(m *Metric) string {
	if m.Datatype != "" {
		return m.Datatype
	}
	if m.Type != nil {
		switch {
		case m.Type.Type == "conversion" && m.Type.Calculation == "conversions":
			return "Integer"
		case m.Type.Type == "conversion", m.Type.Type == "period_over_period" && m.Type.Output == "ratio":
			return "Float"
		}
	}
	return e.exprType(m.Expr)
}

func (e *evaluator) exprType(x Expr) string {
	switch v := x.(type) {
	case *Agg:
		switch v.Func {
		case "COUNT", "COUNT_STAR", "COUNT_DISTINCT":
			return "Integer"
		case "AVG":
			return ""
		}
		return e.datatype(v.Dataset, v.Field)
	case Ref:
		return e.metricType(e.metric[v.Metric])
	case Const:
		if _, ok := v.Value.(int64); ok {
			return "Integer"
		}
		return "Float"
	case *Bin:
		if v.Op == "/" {
			return "Float"
		}
		l, r := e.exprType(v.L), e.exprType(v.R)
		switch {
		case l == "Integer" && r == "Integer":
			return "Integer"
		case l == "" || r == "":
			return ""
		case l == "Float" || r == "Float":
			return "Float"
		}
		return "Decimal"
	}
	return ""
}

// arith is l op r on exact numbers; nil is NULL; / by zero is NULL.
func arith(op string, l, r *big.Rat) *big.Rat {
	if l == nil || r == nil {
		return nil
	}
	switch op {
	case "+":
		return new(big.Rat).Add(l, r)
	case "-":
		return new(big.Rat).Sub(l, r)
	case "*":
		return new(big.Rat).Mul(l, r)
	case "/":
		if r.Sign() == 0 {
			return nil
		}
		return new(big.Rat).Quo(l, r)
	}
	return nil
}

// outRow is one answer row before projection.
type outRow struct {
	dims    []any
	metrics map[string]any // canonical values
}

// sortRows orders rows by the query's order_by keys, then by every
// selected dimension ascending; NULLs last for every key.
func (e *evaluator) sortRows(rows []outRow, dims []rdim) error {
	type key struct {
		dim  int // index into dims, or -1
		name string
		desc bool
	}
	var keys []key
	for _, o := range e.q.OrderBy {
		k := key{dim: -1, name: o.Key, desc: strings.EqualFold(o.Dir, "desc")}
		for i, d := range dims {
			if d.name == o.Key {
				k.dim = i
			}
		}
		if k.dim < 0 && e.metric[o.Key] == nil {
			return &Refused{Code: "OSS4007", Reason: "order_by " + o.Key}
		}
		keys = append(keys, k)
	}
	for i := range dims {
		keys = append(keys, key{dim: i})
	}
	val := func(r outRow, k key) any {
		if k.dim >= 0 {
			return r.dims[k.dim]
		}
		return r.metrics[k.name]
	}
	sort.SliceStable(rows, func(i, j int) bool {
		for _, k := range keys {
			a, b := val(rows[i], k), val(rows[j], k)
			switch {
			case a == nil && b == nil:
				continue
			case a == nil:
				return false
			case b == nil:
				return true
			}
			c, _ := compare(a, b)
			if c == 0 {
				continue
			}
			if k.desc {
				return c > 0
			}
			return c < 0
		}
		return false
	})
	return nil
}
