package plan

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/expr"
)

// measureQualifier marks a Ref that stands for a measure inside a metric's
// combiner expression; it cannot collide with a dataset name because
// dataset names never contain a NUL byte.
const measureQualifier = "\x00measure"

// measure is one aggregate call of a metric, computed at its home dataset.
type measure struct {
	key       string   // home + rendered SQL: identical aggregates share a column
	home      string   // dataset whose rows the aggregate consumes
	sql       string   // rendered aggregate over dataset aliases
	reads     []string // datasets its column references read (besides home)
	countLike bool     // COUNT-family: 0, not NULL, where a group has no rows
	// semi: a semi-additive metric's measure, summed per time value of
	// the along field and then picked (rewrite_semiadditive.go).
	semi *semiPick
	// conv: a conversion metric's measure (rewrite_conversion.go).
	conv *convSpec
}

// convSpec is a conversion: rows of home (event A) whose entity has a row
// of dataset to (event B) with the same entity from at to within after.
type convSpec struct {
	to                         string
	entity, at, toEntity, toAt string // SQL over the datasets' aliases
	count                      int
	unit                       string // DATEADD unit: DAY, WEEK, MONTH, …
	// toFilter is the metric's to_filter rendered over B's alias ("" when
	// none): a B row that fails it is no conversion.
	toFilter string
	// count: the measure is the number of converted entities, not their
	// share (calculation: conversions).
	counts bool
}

// semiPick is how a semi-additive measure picks one value along time:
// along is the field's SQL, pick one of last, first, min, max; per, when
// set, the SQL of the entity fields perNames the pick is made for
// (rewrite_semiadditive.go).
type semiPick struct {
	along, alongName, pick string
	per, perNames          []string
}

// metricPlan is a metric decomposed into measures plus the expression that
// combines them (derived metrics inlined).
type metricPlan struct {
	combiner expr.Node
	measures []*measure
	problem  *compiler.Problem
	datatype ossie.Datatype // the metric's declared or inferred result type
	// integer: the metric's expression is Integer and it answers Integer
	// (compiler.MetricDatatype.Integer): the final SELECT casts it to
	// BIGINT, which the engines' own types for it (NUMERIC, HUGEINT) are
	// not.
	integer bool
	// typ is the metric's type (running total, rolling window, period
	// over period): combiner is then the per-period value the window node
	// reads (rewrite_window.go). nil for a plain metric.
	typ *compiler.MetricType
	// countLike: the metric is one COUNT-family measure, 0 where a
	// period has no row.
	countLike bool
	// post: the metric is computed after the window from the window's
	// columns (prepare_post.go); combiner and measures are then nil.
	post *postWindow
	// over: a typed metric whose expression is another windowed typed
	// metric (the prior year of a year-to-date): typ windows that
	// metric's windowed values (render_window.go, "w2"); combiner and
	// measures are nil.
	over string
}

// prepared caches everything about an artifact that depends only on the
// dialect, so that planning a query is string assembly.
type prepared struct {
	d        dialect.Dialect
	fieldSQL map[string]string // "dataset.field" → SQL over alias "dataset"
	source   map[string]string // dataset → FROM item without alias
	metrics  map[string]*metricPlan
	// quoted holds the identifiers a plan names, quoted once: dataset
	// aliases, "dataset.field" and metric result columns, and the
	// generated column and alias names.
	quoted map[string]string
	// colRefs holds `"alias"."column"` for the common group aliases and
	// measure columns, and coalesced the same wrapped in COALESCE(…, 0).
	colRefs, coalesced map[[2]string]string
	// unsupported lists the model's calls this dialect cannot compute
	// (OSS3008); a model with any is not planned for this engine.
	unsupported compiler.Problems
}

func fieldKey(ds, f string) string { return ds + "." + f }

func (p *Planner) prepared(d dialect.Dialect) *prepared {
	p.mu.Lock()
	defer p.mu.Unlock()
	if pr, ok := p.cache[d.Name()]; ok {
		return pr
	}
	pr := p.prepare(d)
	p.cache[d.Name()] = pr
	return pr
}

func (p *Planner) prepare(d dialect.Dialect) *prepared {
	pr := &prepared{d: d, fieldSQL: map[string]string{}, source: map[string]string{}, metrics: map[string]*metricPlan{}, quoted: map[string]string{}}
	quote := func(name string) { pr.quoted[name] = d.QuoteIdent(name) }
	for _, list := range [][]string{groupAliases[:], measureCols[:], dimCols[:], keyCols[:], {"q", "k", "c", "u"}, p.fieldNames, p.metricNames} {
		for _, name := range list {
			quote(name)
		}
	}
	pr.colRefs, pr.coalesced = map[[2]string]string{}, map[[2]string]string{}
	for _, alias := range append(groupAliases[:], "c") {
		for _, col := range measureCols {
			ref := pr.quoted[alias] + "." + pr.quoted[col]
			pr.colRefs[[2]string{alias, col}] = ref
			pr.coalesced[[2]string{alias, col}] = "COALESCE(" + ref + ", 0)"
		}
	}
	pr.unsupported = compiler.CheckEngine(p.art, d)
	for i := range p.art.Datasets {
		ds := &p.art.Datasets[i]
		pr.source[ds.Name] = SourceSQL(d, ds.Source)
		quote(ds.Name)
		alias := pr.quoted[ds.Name]
		for _, f := range ds.Fields {
			s, err := expr.Render(f.Expr.Node, d, func(r expr.Ref) (string, error) {
				if r.Qualifier != "" && r.Qualifier != ds.Name {
					return "", fmt.Errorf("field %s.%s refers to %s.%s; field expressions read their own dataset only", ds.Name, f.Name, r.Qualifier, r.Name)
				}
				return alias + "." + d.QuoteIdent(r.Name), nil
			})
			if err != nil {
				s = "NULL"
			}
			pr.fieldSQL[fieldKey(ds.Name, f.Name)] = s
		}
	}
	for i := range p.art.Metrics {
		m := &p.art.Metrics[i]
		if dep := p.windowedRef(m); dep != "" {
			pr.metrics[m.Name] = p.typed(m, &metricPlan{typ: m.Type, over: dep})
			continue
		}
		if p.reachesWindowed(m, map[string]bool{}) {
			pw, prob := p.postOf(m, map[string]bool{})
			pr.metrics[m.Name] = p.typed(m, &metricPlan{post: pw, problem: prob})
			continue
		}
		mp := p.typed(m, p.decompose(pr, m, map[string]bool{}))
		mp.typ = m.Type
		if m.Type != nil && m.Type.Type == compiler.MetricConversion {
			mp = p.conversionPlan(pr, m, mp)
		}
		if m.Type != nil && m.Type.Type == compiler.MetricSemi && mp.problem == nil && len(mp.measures) == 1 {
			// Its own measure, never shared with the plain aggregate.
			ms := *mp.measures[0]
			ms.semi = semiPickOf(pr, m.Type)
			ms.key += ms.semi.key()
			mp.measures = []*measure{&ms}
			mp.combiner = expr.Ref{Qualifier: measureQualifier, Name: ms.key}
		}
		if r, ok := mp.combiner.(expr.Ref); ok && len(mp.measures) == 1 && r.Qualifier == measureQualifier {
			mp.countLike = mp.measures[0].countLike
		}
		pr.metrics[m.Name] = mp
	}
	return pr
}

// typed sets mp's answer type for metric m (compiler.MetricDatatypes):
// declared, else inferred; and whether it is cast to BIGINT.
func (p *Planner) typed(m *compiler.ArtifactMetric, mp *metricPlan) *metricPlan {
	t := p.metricTypes[m.Name]
	mp.datatype, mp.integer = t.Answer, t.Integer()
	return mp
}

// SourceSQL renders a dataset source as a FROM item of dialect d: quoted
// table path parts, the dialect's file reader, or the query in parentheses.
func SourceSQL(d dialect.Dialect, s compiler.ResolvedSource) string {
	switch s.Kind {
	case compiler.SourceQuery:
		return "(" + s.Query + ")"
	case compiler.SourceFile:
		if sql, ok := d.FileSource(s.Path); ok {
			return sql
		}
		return d.QuoteIdent(s.Path)
	}
	parts := make([]string, len(s.Table))
	for i, t := range s.Table {
		parts[i] = d.QuoteIdent(t)
	}
	return strings.Join(parts, ".")
}

// colSQL renders a column of a relationship: the field's expression when a
// field has that name, else the physical column.
func (pr *prepared) colSQL(ds, col string) string {
	if s, ok := pr.fieldSQL[fieldKey(ds, col)]; ok {
		return s
	}
	return pr.d.QuoteIdent(ds) + "." + pr.d.QuoteIdent(col)
}

// decompose splits metric m into measures. Each aggregate call becomes a
// measure at its home dataset; references to other metrics are inlined.
func (p *Planner) decompose(pr *prepared, m *compiler.ArtifactMetric, visiting map[string]bool) *metricPlan {
	if visiting[m.Name] {
		return &metricPlan{problem: &compiler.Problem{Code: compiler.CodeMetricCycle, Severity: compiler.SeverityError, Path: "metrics." + m.Name, Message: "metric " + m.Name + " refers to itself"}}
	}
	visiting[m.Name] = true
	defer delete(visiting, m.Name)
	mp := &metricPlan{}
	fail := func(code, msg string) {
		if mp.problem == nil {
			mp.problem = &compiler.Problem{Code: code, Severity: compiler.SeverityError, Path: "metrics." + m.Name, Message: msg}
		}
	}
	seen := map[string]*measure{}
	mp.combiner = expr.Rewrite(m.Expr.Node, func(n expr.Node) expr.Node {
		switch n := n.(type) {
		case expr.Ref:
			if n.Qualifier != "" {
				return n
			}
			dep := p.art.Metric(n.Name)
			if dep == nil {
				fail(compiler.CodeUnknownReference, fmt.Sprintf("metric %s refers to %q outside an aggregate, which is not a metric", m.Name, n.Name))
				return n
			}
			sub := p.decompose(pr, dep, visiting)
			if dep.Type != nil && dep.Type.Type == compiler.MetricConversion {
				sub = p.conversionPlan(pr, dep, sub)
			}
			if sub.problem != nil {
				fail(sub.problem.Code, sub.problem.Message)
				return n
			}
			for _, ms := range sub.measures {
				if _, ok := seen[ms.key]; !ok {
					seen[ms.key] = ms
					mp.measures = append(mp.measures, ms)
				}
			}
			return sub.combiner
		case expr.Func:
			info, ok := expr.Lookup(n.Name)
			if !ok || !info.Aggregate {
				return n
			}
			ms, err := p.measureOf(pr, m, n)
			if err != nil {
				fail(compiler.CodeDisconnected, err.Error())
				return n
			}
			if prev, ok := seen[ms.key]; ok {
				ms = prev
			} else {
				seen[ms.key] = ms
				mp.measures = append(mp.measures, ms)
			}
			return expr.Ref{Qualifier: measureQualifier, Name: ms.key}
		}
		return n
	})
	return mp
}

// measureOf renders one aggregate call and picks its home dataset: the one
// dataset among those it reads from which all the others are reachable by
// many-to-one hops, so joining them never repeats a home row.
func (p *Planner) measureOf(pr *prepared, m *compiler.ArtifactMetric, f expr.Func) (*measure, error) {
	var reads []string
	for _, r := range expr.Refs(f) {
		if r.Qualifier != "" && !contains(reads, r.Qualifier) {
			reads = append(reads, r.Qualifier)
		}
	}
	sort.Strings(reads)
	home := ""
	switch {
	case len(reads) == 1:
		home = reads[0]
	case len(reads) == 0:
		// COUNT(*) names no dataset; compile chose the one it counts.
		if m.RowsOf == "" {
			return nil, fmt.Errorf("metric %s: %s does not say which dataset it aggregates; write e.g. COUNT(dataset.key)", m.Name, expr.Format(f))
		}
		home = m.RowsOf
	default:
		for _, cand := range reads {
			ok := true
			for _, other := range reads {
				if !p.graph.reachesToOne(cand, other) {
					ok = false
					break
				}
			}
			if ok {
				home = cand
				break
			}
		}
		if home == "" {
			return nil, fmt.Errorf("metric %s: aggregate %s reads %s, but no one of them reaches the others by many-to-one relationships; split it into one aggregate per dataset", m.Name, expr.Format(f), strings.Join(reads, ", "))
		}
	}
	sql, err := expr.Render(f, pr.d, func(r expr.Ref) (string, error) {
		s, ok := pr.fieldSQL[fieldKey(r.Qualifier, r.Name)]
		if !ok {
			return "", fmt.Errorf("metric %s: unknown field %s.%s", m.Name, r.Qualifier, r.Name)
		}
		return "(" + s + ")", nil
	})
	if err != nil {
		return nil, err
	}
	others := make([]string, 0, len(reads))
	for _, r := range reads {
		if r != home {
			others = append(others, r)
		}
	}
	return &measure{key: home + "\x00" + sql, home: home, sql: sql, reads: others, countLike: isCountLike(f)}, nil
}

func isCountLike(f expr.Func) bool {
	switch f.Name {
	case "COUNT", "APPROX_COUNT_DISTINCT":
		return true
	}
	return false
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// distinctArg renders x of a COUNT(DISTINCT x) over the fields' SQL;
// ok=false for any other expression.
func distinctArg(pr *prepared, n expr.Node) (string, bool) {
	f, ok := n.(expr.Func)
	if !ok || f.Name != "COUNT" || !f.Distinct || len(f.Args) != 1 || f.Filter != nil {
		return "", false
	}
	if r, ok := f.Args[0].(expr.Ref); ok {
		s, ok := pr.fieldSQL[fieldKey(r.Qualifier, r.Name)]
		return s, ok
	}
	sql, err := expr.Render(f.Args[0], pr.d, func(r expr.Ref) (string, error) {
		s, ok := pr.fieldSQL[fieldKey(r.Qualifier, r.Name)]
		if !ok {
			return "", fmt.Errorf("unknown field %s.%s", r.Qualifier, r.Name)
		}
		return "(" + s + ")", nil
	})
	return sql, err == nil
}
