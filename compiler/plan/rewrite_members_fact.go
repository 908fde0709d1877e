package plan

import (
	"fmt"
	"strings"

	"github.com/ossie-dev/ossie/compiler"
)

// through checks a query's through (Query.Through): a dataset of the
// model (OSS4003 otherwise, with a suggestion), on a query without metrics,
// in filters and order_by too (OSS4001: a metric's rows are its own
// dataset's). Whether it reaches
// the members is the members rewrite's question (OSS4012).
func (s *resolver) through(q *Query) {
	if q.Through == "" {
		return
	}
	if len(s.b.metrics) > 0 {
		s.fail(compiler.CodeBadQuery, "through", "through names whose rows a query without metrics lists; a metric's rows are those of its own dataset, so leave through out or the metrics")
		return
	}
	var names []string
	for i := range s.p.art.Datasets {
		if s.p.art.Datasets[i].Name == q.Through {
			return
		}
		names = append(names, s.p.art.Datasets[i].Name)
	}
	msg := fmt.Sprintf("through %q is not a dataset of the model", q.Through)
	if dm := compiler.DidYouMean(q.Through, names); dm != "" {
		msg += fmt.Sprintf("; did you mean %q?", dm)
	}
	s.fail(compiler.CodeUnknownMember, "through", msg)
}

// membersHome picks whose rows a query without metrics lists
// (query-semantics.md, "Dimension-only queries"), given cands, the
// datasets its dimensions and filters read, in request order:
//
//  1. the query's through, which must reach every one of cands by
//     many-to-one hops;
//  2. else the first of cands that reaches all the others so (its own
//     members, as before);
//  3. else the linking fact: the one dataset of the model that reaches
//     every one of cands by many-to-one hops, as a metric's measures are
//     homed at the dataset that reaches what they read. Of several, one
//     that reaches another of them is passed over for it (returns →
//     orders → customers: orders, whose rows hold every combination the
//     returns' rows do); several left is a choice the query must make.
//
// It returns "" after reporting OSS4012 (none, or several, listed).
func (bl *builder) membersHome(cands []string) string {
	reachesAll := func(h string) bool {
		for _, o := range cands {
			if !bl.p.graph.reachesToOne(h, o) {
				return false
			}
		}
		return true
	}
	if t := bl.b.q.Through; t != "" {
		var missed []string
		for _, o := range cands {
			if !bl.p.graph.reachesToOne(t, o) {
				missed = append(missed, o)
			}
		}
		if len(missed) > 0 {
			bl.fail(compiler.CodeNoMembersHome, "through", fmt.Sprintf("through %s: its rows do not reach %s by many-to-one relationships, so they carry no members of them; name a dataset that reaches %s", t, strings.Join(missed, ", "), strings.Join(cands, ", ")))
			return ""
		}
		return t
	}
	for _, h := range cands {
		if reachesAll(h) {
			return h
		}
	}
	var facts []string
	for i := range bl.p.art.Datasets {
		if ds := bl.p.art.Datasets[i].Name; reachesAll(ds) {
			facts = append(facts, ds)
		}
	}
	nearest := facts[:0:0]
	for _, f := range facts {
		further := false
		for _, o := range facts {
			if o != f && bl.p.graph.reachesToOne(f, o) {
				further = true
				break
			}
		}
		if !further {
			nearest = append(nearest, f)
		}
	}
	switch len(nearest) {
	case 1:
		return nearest[0]
	case 0:
		bl.fail(compiler.CodeNoMembersHome, "dimensions", fmt.Sprintf("a query without metrics lists the members present in the rows of one dataset that reaches every one of %s by many-to-one relationships; no dataset does: add a metric to say whose rows to group", strings.Join(cands, ", ")))
	default:
		bl.fail(compiler.CodeNoMembersHome, "dimensions", fmt.Sprintf("the rows of several datasets reach %s by many-to-one relationships: %s; name whose members to list with \"through\" (e.g. \"through\": %q)", strings.Join(cands, ", "), strings.Join(nearest, ", "), nearest[0]))
	}
	return ""
}
