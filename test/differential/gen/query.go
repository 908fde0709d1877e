package gen

import (
	"cmp"
	"encoding/json"
	"sort"
	"strconv"
	"time"

	"github.com/ossie-dev/ossie/test/differential/dcase"
	"github.com/ossie-dev/ossie/test/reference"
)

var zones = []string{"", "UTC", "Europe/Amsterdam", "America/New_York", "Asia/Kolkata"}

// query draws a query over the model: metrics, dimensions with grains,
// filters of every op, a metric filter, order, limit, offset, total and
// a time zone.
func (b *builder) query() *reference.Query {
	r := b.r
	qry := &reference.Query{Timezone: pick(r, zones)}
	if len(b.m.Relationships) > 0 && chance(b.x, 0.12) {
		b.membersQuery(qry)
		return qry
	}
	if len(b.typed) > 0 {
		switch x := r.Float64(); {
		case x < 0.3:
			b.windowQuery(qry)
			return b.finishQuery(qry)
		case x < 0.4:
			b.specialQuery(qry, b.semi)
			return b.finishQuery(qry)
		case x < 0.5 && len(b.conv) > 0:
			b.specialQuery(qry, b.conv)
			return b.finishQuery(qry)
		}
	}
	nm := r.Intn(4)
	if nm == 0 && chance(r, 0.6) {
		nm = 1
	}
	for _, n := range pickSome(r, b.plain, nm) {
		qry.Metrics = append(qry.Metrics, n)
	}
	nd := r.Intn(4)
	if nm == 0 && nd == 0 {
		nd = 1
	}
	for _, f := range pickSome(r, b.dimFields(), nd) {
		qry.Dimensions = append(qry.Dimensions, b.dimension(f))
	}
	for i := r.Intn(3); i > 0; i-- {
		qry.Filters = append(qry.Filters, b.filter(pick(r, b.fields)))
	}
	return b.finishQuery(qry)
}

// finishQuery adds a metric filter, order, limit, offset and total.
func (b *builder) finishQuery(qry *reference.Query) *reference.Query {
	r := b.r
	b.roles(qry)
	if len(qry.Metrics) > 0 && chance(r, 0.25) {
		b.metricFilter(qry)
	}
	if chance(r, 0.4) {
		b.order(qry)
	}
	if chance(r, 0.3) {
		n := 1 + r.Intn(5)
		qry.Limit = &n
	}
	if chance(r, 0.2) {
		qry.Offset = r.Intn(4)
	}
	qry.Total = chance(r, 0.2)
	return qry
}

// pickSome is k distinct elements of xs in random order (fewer when xs
// is shorter).
func pickSome[T any](r interface{ Perm(int) []int }, xs []T, k int) []T {
	var out []T
	for _, i := range r.Perm(len(xs)) {
		if len(out) == k {
			break
		}
		out = append(out, xs[i])
	}
	return out
}

// dimFields are the fields a query groups by: not timestamps without a
// grain (their answer form is the subject of no documented rule yet).
func (b *builder) dimFields() []fieldInfo {
	var out []fieldInfo
	for _, f := range b.fields {
		if f.key && chance(b.r, 0.7) {
			continue
		}
		out = append(out, f)
	}
	return out
}

func (b *builder) dimension(f fieldInfo) reference.Dimension {
	d := reference.Dimension{Field: f.member()}
	if f.ct == dcase.Timestamp || f.ct == dcase.TimestampTz || (f.isTime && chance(b.r, 0.8)) {
		grains := []string{"day", "week", "month", "quarter", "year"}
		if f.ct != dcase.Date {
			grains = append(grains, "hour", "hour")
		}
		d.Grain = pick(b.r, grains)
		if d.Grain == "week" && chance(b.r, 0.3) {
			d.WeekStart = "sunday"
		}
	}
	return d
}

// jsonValue is a canonical value as a filter value in the query body.
func jsonValue(v any, ct dcase.ColumnType, asDate bool) any {
	switch x := v.(type) {
	case int64:
		return json.Number(strconv.FormatInt(x, 10))
	case float64:
		return json.Number(strconv.FormatFloat(x, 'f', -1, 64))
	case time.Time:
		if asDate || ct == dcase.Date {
			return x.Format("2006-01-02")
		}
		return x.Format("2006-01-02 15:04:05")
	}
	return v
}

// filter draws a dimension filter on f with an op its type takes and
// values from its column.
func (b *builder) filter(f fieldInfo) reference.Filter {
	r := b.r
	val := func() any {
		if len(f.values) == 0 || chance(r, 0.1) {
			switch f.ct {
			case dcase.Varchar:
				return "zz"
			case dcase.Boolean:
				return true
			case dcase.Date, dcase.Timestamp, dcase.TimestampTz:
				return b.span.anchor
			}
			return int64(999)
		}
		return pick(r, f.values)
	}
	var ops []string
	switch f.ct {
	case dcase.Integer, dcase.Double, dcase.Decimal:
		ops = []string{"=", "!=", "in", "not_in", "gt", "gte", "lt", "lte", "between", "is_null", "is_not_null"}
	case dcase.Varchar:
		ops = []string{"=", "!=", "in", "not_in", "contains", "starts_with", "is_null", "is_not_null", "gt", "lte"}
	case dcase.Boolean:
		ops = []string{"=", "!=", "is_null", "is_not_null"}
	default:
		ops = []string{"in_date_range", "in_date_range", "between", "gt", "gte", "lt", "lte", "is_null", "is_not_null"}
	}
	flt := reference.Filter{Field: f.member(), Op: pick(r, ops)}
	asDate := f.ct == dcase.Date || chance(r, 0.5)
	add := func(v any) { flt.Values = append(flt.Values, jsonValue(v, f.ct, asDate)) }
	switch flt.Op {
	case "is_null", "is_not_null":
	case "in", "not_in":
		for i := 1 + r.Intn(3); i > 0; i-- {
			add(val())
		}
	case "between", "in_date_range":
		x, y := val(), val()
		if c, _ := cmpAny(x, y); c > 0 {
			x, y = y, x
		}
		add(x)
		add(y)
	case "contains", "starts_with":
		s, _ := val().(string)
		if len(s) > 1 {
			i := r.Intn(len(s))
			if flt.Op == "starts_with" {
				s = s[:1+r.Intn(len(s))]
			} else {
				s = s[i:]
			}
		}
		if flt.Op == "contains" && chance(r, 0.4) {
			s = upper(s) // contains is case-insensitive
		}
		flt.Values = []any{s}
	default:
		add(val())
	}
	return flt
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 32
		}
	}
	return string(b)
}

func cmpAny(x, y any) (int, bool) {
	switch a := x.(type) {
	case int64:
		if b, ok := y.(int64); ok {
			return cmp.Compare(a, b), true
		}
	case float64:
		if b, ok := y.(float64); ok {
			return cmp.Compare(a, b), true
		}
	case string:
		if b, ok := y.(string); ok {
			return cmp.Compare(a, b), true
		}
	case time.Time:
		if b, ok := y.(time.Time); ok {
			return a.Compare(b), true
		}
	}
	return 0, false
}

// metricFilter adds a filter on one of the query's metrics whose
// threshold lies between two of the metric's values in the unfiltered
// answer, so that no engine's rounding decides a row.
func (b *builder) metricFilter(qry *reference.Query) {
	name := pick(b.r, qry.Metrics)
	res, err := reference.Evaluate(reference.Input{Model: &b.m, Governance: b.gov, Caller: b.caller, Tables: b.tables, Query: qry.JSON()})
	if err != nil {
		return
	}
	col := -1
	for i, c := range res.Columns {
		if c.Name == name {
			col = i
		}
	}
	var vals []float64
	for _, row := range res.Rows {
		switch v := row[col].(type) {
		case int64:
			vals = append(vals, float64(v))
		case float64:
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return
	}
	sort.Float64s(vals)
	i := b.r.Intn(len(vals))
	thr := vals[i] - 0.5
	if i > 0 && vals[i] != vals[i-1] {
		thr = (vals[i] + vals[i-1]) / 2
	}
	op := pick(b.r, []string{"gt", "gte", "lt", "lte"})
	qry.Filters = append(qry.Filters, reference.Filter{Metric: name, Op: op, Values: []any{json.Number(strconv.FormatFloat(thr, 'g', -1, 64))}})
}

// order draws order_by keys: selected dimensions, selected metrics and
// sometimes an unselected metric, each metric of an exact type (so that
// no two engines' rounding can swap two rows).
func (b *builder) order(qry *reference.Query) {
	var keys []string
	for _, d := range qry.Dimensions {
		if !b.masked(d.Field) {
			keys = append(keys, d.Name())
		}
	}
	exact := func(n string) bool {
		for _, m := range b.m.Metrics {
			if m.Name == n {
				_, isAgg := m.Expr.(*reference.Agg)
				return isAgg && m.Type == nil && m.Expr.(*reference.Agg).Func != "AVG"
			}
		}
		return false
	}
	for _, m := range qry.Metrics {
		if exact(m) {
			keys = append(keys, m)
		}
	}
	if len(qry.Metrics) > 0 {
		if m := pick(b.r, b.plain); exact(m) {
			keys = append(keys, m)
		}
	}
	for _, k := range pickSome(b.r, keys, 1+b.r.Intn(2)) {
		o := reference.Order{Key: k}
		if chance(b.r, 0.5) {
			o.Dir = "desc"
		}
		qry.OrderBy = append(qry.OrderBy, o)
	}
}

// windowGrains are the query grains a case's time scale windows at.
var windowGrains = map[string][]string{"hour": {"hour", "day"}, "day": {"day", "week"}, "month": {"month", "quarter", "year"}}

// windowQuery draws a query of typed metrics along the fact's time field
// at the case's scale, maybe by one more dimension, with a date range on
// the window's field now and then (applied after the window).
func (b *builder) windowQuery(qry *reference.Query) {
	r := b.r
	qry.Metrics = pickSome(r, b.typed, 1+r.Intn(2))
	if chance(r, 0.4) {
		qry.Metrics = append(qry.Metrics, pick(r, []string{"n_rows", "amount_sum"}))
	}
	at := b.field("fact.at")
	grains := windowGrains[b.scale]
	if at.ct == dcase.Date && grains[0] == "hour" {
		grains = grains[1:]
	}
	d := reference.Dimension{Field: "fact.at", Grain: pick(r, grains)}
	if d.Grain == "week" && chance(r, 0.3) {
		d.WeekStart = "sunday"
	}
	qry.Dimensions = append(qry.Dimensions, d)
	if chance(r, 0.4) {
		others := []string{"fact.cat", "fact.flag"}
		if b.field("d1.name") != nil {
			others = append(others, "d1.name")
		}
		qry.Dimensions = append(qry.Dimensions, reference.Dimension{Field: pick(r, others)})
	}
	if chance(r, 0.3) {
		qry.Filters = append(qry.Filters, b.filter(*b.field(pick(r, []string{"fact.cat", "fact.qty", "fact.flag"}))))
	}
	if chance(r, 0.05) {
		qry.Dimensions = qry.Dimensions[1:] // no time dimension with a grain: OSS4060
	}
	if chance(r, 0.3) && len(at.values) > 1 {
		x, y := pick(r, at.values), pick(r, at.values)
		if c, _ := cmpAny(x, y); c > 0 {
			x, y = y, x
		}
		qry.Filters = append(qry.Filters, reference.Filter{Field: "fact.at", Op: pick(r, []string{"in_date_range", "between"}),
			Values: []any{jsonValue(x, at.ct, true), jsonValue(y, at.ct, true)}})
	}
}

// specialQuery draws a query of a semi-additive or conversion metric by
// members of its dataset and the datasets it reaches (and, now and then,
// of ones it must refuse: OSS4062, OSS4063).
func (b *builder) specialQuery(qry *reference.Query, ms []string) {
	r := b.r
	qry.Metrics = []string{pick(r, ms)}
	if chance(r, 0.3) {
		qry.Metrics = append(qry.Metrics, "n_rows")
	}
	var fields []fieldInfo
	for _, f := range b.dimFields() {
		if f.ds != "g" || chance(r, 0.2) {
			fields = append(fields, f)
		}
	}
	for _, f := range pickSome(r, fields, r.Intn(3)) {
		qry.Dimensions = append(qry.Dimensions, b.dimension(f))
	}
	if chance(r, 0.4) {
		qry.Filters = append(qry.Filters, b.filter(pick(r, b.fields)))
	}
}
