package gen

import (
	"math/rand"

	"github.com/ossie-dev/ossie/test/differential/dcase"
	"github.com/ossie-dev/ossie/test/reference"
)

// Parallel relationships (version 4): in some star and snowflake models
// the fact reaches d1 along two relationships, fact_d1 and fact_d1_alt
// (as orders reach one calendar by order day and by ship day). Queries
// over such a model name the path of each member of d1 (and of d3 behind
// it) with a via, and now and then select one field along both paths
// (two roles of one dimension, query-semantics.md "Choosing a path").
// Every draw for them comes from the builder's pr stream, so the cases
// of models without them are as version 3 made them.

const (
	relD1    = "fact_d1"
	relD1Alt = "fact_d1_alt"
)

// parallelPaths decides whether the model gets the second relationship,
// and if so returns the fact's column holding its key.
func (b *builder) parallelPaths(nf, nd1 int) (column, bool) {
	if b.shape != "star2" && b.shape != "star3" && b.shape != "snow" || !chance(b.pr, 0.35) {
		return column{}, false
	}
	b.parallel = true
	return fkFrom(b.pr, "d1_alt_id", nf, nd1), true
}

// fkFrom is a foreign key column of n rows into ids 1..m drawn from r:
// some unmatched (m+1), some NULL.
func fkFrom(r *rand.Rand, name string, n, m int) column {
	c := column{name: "c_" + name, field: name, ct: dcase.Integer, key: true}
	for i := 0; i < n; i++ {
		switch {
		case chance(r, 0.1):
			c.vals = append(c.vals, nil)
		default:
			c.vals = append(c.vals, int64(1+r.Intn(m+1)))
		}
	}
	return c
}

// roles gives every member of d1 or d3 a via when every metric of the
// query is the fact's (a metric of another dataset reaches d1 by one
// path, or is refused whatever the via), and selects one such dimension
// along the other path too now and then.
func (b *builder) roles(qry *reference.Query) {
	if !b.parallel || len(qry.Metrics) == 0 || !b.factOnly(qry.Metrics) {
		return
	}
	behind := func(member string) bool {
		ds, _, _ := cutMember(member)
		return ds == "d1" || ds == "d3"
	}
	rels := []string{relD1, relD1Alt}
	var both []reference.Dimension
	for i := range qry.Dimensions {
		d := &qry.Dimensions[i]
		if !behind(d.Field) {
			continue
		}
		d.Via = pick(b.pr, rels)
		if len(both) == 0 && chance(b.pr, 0.6) {
			o := *d
			o.Via = relD1Alt
			if d.Via == relD1Alt {
				o.Via = relD1
			}
			both = append(both, o)
		}
	}
	qry.Dimensions = append(qry.Dimensions, both...)
	for i := range qry.Filters {
		if f := &qry.Filters[i]; f.Field != "" && behind(f.Field) {
			f.Via = pick(b.pr, rels)
		}
	}
}

// factOnly: every aggregate the metrics read (through derived metrics
// too) is over the fact, and so is every dataset a typed metric names.
func (b *builder) factOnly(names []string) bool {
	var fact func(x reference.Expr) bool
	fact = func(x reference.Expr) bool {
		switch v := x.(type) {
		case *reference.Agg:
			return v.Dataset == "fact"
		case reference.Ref:
			return b.factOnly([]string{v.Metric})
		case *reference.Bin:
			return fact(v.L) && fact(v.R)
		}
		return true
	}
	for _, n := range names {
		for i := range b.m.Metrics {
			m := &b.m.Metrics[i]
			if m.Name != n {
				continue
			}
			if !fact(m.Expr) {
				return false
			}
			if t := m.Type; t != nil {
				for _, f := range []string{t.Along, t.Entity, t.At} {
					if ds, _, _ := cutMember(f); f != "" && ds != "fact" {
						return false
					}
				}
			}
		}
	}
	return true
}

func cutMember(member string) (ds, field string, ok bool) {
	for i := 0; i < len(member); i++ {
		if member[i] == '.' {
			return member[:i], member[i+1:], true
		}
	}
	return "", member, false
}
