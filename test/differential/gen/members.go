package gen

import (
	"github.com/ossie-dev/ossie/test/reference"
)

// reaches lists the datasets ds reaches by many-to-one relationships, ds
// first.
func (b *builder) reaches(ds string) []string {
	out := []string{ds}
	for i := 0; i < len(out); i++ {
		for _, rel := range b.m.Relationships {
			if rel.From == out[i] {
				out = append(out, rel.To)
			}
		}
	}
	return out
}

// membersQuery draws a query without metrics whose dimensions are members
// of datasets one fact reaches (issue 26 item 2): one or two of them, the
// fact itself left out, sometimes a filter on another dataset it reaches
// (two hops in a snowflake), and the fact named by through or left to
// the planner. Now and then the through is a dataset that does not reach
// them (OSS4012) or comes with a metric (OSS4001). Its draws come from
// b.x, so that the rest of a case is drawn as before.
func (b *builder) membersQuery(qry *reference.Query) {
	x := b.x
	var facts []string
	for _, d := range b.m.Datasets {
		if len(b.reaches(d.Name)) > 1 {
			facts = append(facts, d.Name)
		}
	}
	fact := pick(x, facts)
	reached := b.reaches(fact)[1:]
	fieldsOf := func(ds string) []fieldInfo {
		var out []fieldInfo
		for _, f := range b.fields {
			if f.ds == ds && !f.key && !f.isTime {
				out = append(out, f)
			}
		}
		return out
	}
	for _, ds := range pickSome(x, reached, 1+x.Intn(2)) {
		if fs := fieldsOf(ds); len(fs) > 0 {
			qry.Dimensions = append(qry.Dimensions, reference.Dimension{Field: pick(x, fs).member()})
		}
	}
	if len(qry.Dimensions) == 0 {
		qry.Dimensions = append(qry.Dimensions, reference.Dimension{Field: pick(x, fieldsOf(fact)).member()})
	}
	if chance(x, 0.4) {
		if fs := fieldsOf(pick(x, reached)); len(fs) > 0 {
			qry.Filters = append(qry.Filters, b.filter(pick(x, fs)))
		}
	}
	switch p := x.Float64(); {
	case p < 0.55:
		qry.Through = fact
	case p < 0.65:
		qry.Through = pick(x, b.m.Datasets).Name
	case p < 0.7:
		qry.Through, qry.Metrics = fact, []string{"n_rows"}
	}
	if chance(x, 0.3) {
		n := 1 + x.Intn(4)
		qry.Limit = &n
	}
}
