package plan

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
)

// Comparing date ranges (Cube's compareDateRange; docs/query-semantics.md,
// "Comparing date ranges"): a query whose time dimension carries
// compare_date_range is answered once per range, as the same query with
// an in_date_range filter on that dimension's field, and the answers are
// stacked in the order of the ranges, each row labelled with its range.
// Every branch is a whole plan (governance, windows, time zones), so a
// year-to-date in each range still sums the months before it.

const (
	compareCol   = "compare_date_range" // the label column, first in the answer
	rowNumberCol = "__ossie_n"          // a branch row's position in the query's order
	maxRanges    = 12
)

// compare is the root of a compared query's logical plan: one branch per
// range, labelled.
type compare struct {
	origin
	field    string
	labels   []string
	branches []node
}

func (n *compare) inputs() []node { return n.branches }

// compareDim is the index of the first dimension with compare_date_range,
// or -1.
func compareDim(q *Query) int {
	for i, dd := range q.Dimensions {
		if dd.CompareDateRange != nil {
			return i
		}
	}
	return -1
}

// planCompare plans q, whose dimension i compares date ranges: all
// problems of the ranges (OSS4064) and of the query at once, then one
// branch per range.
func (p *Planner) planCompare(q *Query, i int, d dialect.Dialect, pol *policy) (*Plan, compiler.Problems) {
	dd := q.Dimensions[i]
	path := at("dimensions", i) + ".compare_date_range"
	var probs compiler.Problems
	bad := func(p, msg string) {
		probs = append(probs, compiler.Problem{Code: compiler.CodeCompareRange, Severity: compiler.SeverityError, Path: p, Message: msg})
	}
	for j, other := range q.Dimensions {
		if j > i && other.CompareDateRange != nil {
			bad(at("dimensions", j)+".compare_date_range", fmt.Sprintf("compare_date_range is already on dimensions[%d]; a query compares date ranges of one time dimension", i))
		}
	}
	if n := len(dd.CompareDateRange); n < 2 || n > maxRanges {
		bad(path, fmt.Sprintf("compare_date_range takes 2 to %d date ranges, got %d", maxRanges, n))
	}
	if df, ok := p.fields[unquoteMember(dd.Field)]; ok && !df.f.IsTime && pol.field(unquoteMember(dd.Field)) {
		bad(path, fmt.Sprintf("%s is not a time field; compare_date_range compares date ranges of a time dimension", dd.Field))
	}
	for _, m := range q.Metrics {
		if m == compareCol {
			bad(path, "the answer's column compare_date_range would collide with the selected metric of that name")
		}
	}
	// A bad zone is reported by the branches; the ranges resolve in UTC.
	loc, _ := queryZone(q)
	now := p.now()
	ranges := make([][]any, len(dd.CompareDateRange))
	labels := make([]string, len(dd.CompareDateRange))
	for j, r := range dd.CompareDateRange {
		vals, label, err := compareRange(r, now, loc)
		if err != nil {
			bad(path+"["+strconv.Itoa(j)+"]", err.Error())
			continue
		}
		ranges[j], labels[j] = vals, label
	}
	if len(probs) > 0 {
		return nil, probs
	}
	var (
		sqls  []string
		cmp   = &compare{origin: origin{rwCompare}, field: dd.Field, labels: labels}
		first *Plan
		notes []rollupNote
		used  = map[string]bool{}
	)
	for j := range ranges {
		bq := branchQuery(q, i, ranges[j])
		bq.numbered = true
		pl, bprobs := p.planOne(bq, d, pol)
		if len(bprobs) > 0 {
			return nil, branchProblems(bprobs, q, i, len(q.Filters), path+"["+strconv.Itoa(j)+"]")
		}
		if first == nil {
			first = pl
		}
		sqls = append(sqls, pl.SQL)
		cmp.branches = append(cmp.branches, pl.tree)
		for _, n := range pl.rollups {
			n.scope = labels[j]
			notes = append(notes, n)
		}
		used[pl.Rollup] = true
	}
	cols := append([]Column{{Name: compareCol, Kind: "dimension", Datatype: "String"}}, first.Columns...)
	out := &Plan{SQL: compareSQL(d, sqls, labels, cols), Columns: cols, ModelVersion: first.ModelVersion, tree: cmp, rollups: notes}
	// Rollup names one rollup only when every range reads it; the per-range
	// decisions are in RollupDecisions and EXPLAIN.
	if len(used) == 1 {
		out.Rollup = first.Rollup
	}
	return out, nil
}

// compareRange checks one range, [start, end] or a relative range, and
// returns it resolved as in_date_range values [start, end] and its label
// "start - end".
func compareRange(r any, now time.Time, loc *time.Location) ([]any, string, error) {
	var vals []any
	switch r := r.(type) {
	case string:
		vals = []any{r}
	case []any:
		if len(r) != 2 {
			return nil, "", fmt.Errorf("a date range is [start, end] or a relative range such as \"last month\", got %d values", len(r))
		}
		vals = r
	default:
		return nil, "", fmt.Errorf("a date range is [start, end] or a relative range such as \"last month\"")
	}
	start, end, err := rangeEnds(vals, now, loc)
	if err != nil {
		return nil, "", err
	}
	for _, v := range []string{start, end} {
		if _, err := timeLiteral(dialect.DuckDB, v, loc); err != nil {
			return nil, "", err
		}
	}
	a, _, _ := wallTime(start, loc)
	b, endIsDate, _ := wallTime(end, loc)
	if endIsDate {
		b = b.Add(24*time.Hour - time.Nanosecond)
	}
	if b.Before(a) {
		return nil, "", fmt.Errorf("the range ends (%s) before it starts (%s)", end, start)
	}
	// The branch filters on the resolved dates, so a relative range and
	// its label cannot resolve against two different clocks.
	return []any{start, end}, start + " - " + end, nil
}

// branchQuery is q for one range: the compared dimension without
// compare_date_range (dropped when it has no grain) and one more filter,
// in_date_range on its field, after the query's own.
func branchQuery(q *Query, i int, vals []any) *Query {
	bq := *q
	dd := q.Dimensions[i]
	bq.Dimensions = make([]Dimension, 0, len(q.Dimensions))
	for j, x := range q.Dimensions {
		switch {
		case j != i:
			bq.Dimensions = append(bq.Dimensions, x)
		case x.Grain != "" || dimGrainSuffix(x.Field):
			x.CompareDateRange = nil
			bq.Dimensions = append(bq.Dimensions, x)
		}
	}
	field := dd.Field
	if dd.Grain == "" && dimGrainSuffix(field) {
		field = field[:strings.LastIndexByte(field, '.')]
	}
	bq.Filters = append(append(make([]Filter, 0, len(q.Filters)+1), q.Filters...), Filter{Field: field, Via: dd.Via, Op: "in_date_range", Values: vals})
	return &bq
}

// dimGrainSuffix reports whether a member is written "dataset.field.grain".
func dimGrainSuffix(member string) bool {
	parts := strings.Split(unquoteMember(member), ".")
	return len(parts) == 3 && isGrain(parts[2])
}

// branchProblems maps a branch's problems back onto q: the added filter
// is the range (at rangePath), and the dimensions after a dropped
// compared dimension move back one place.
func branchProblems(probs compiler.Problems, q *Query, i, added int, rangePath string) compiler.Problems {
	dropped := q.Dimensions[i].Grain == "" && !dimGrainSuffix(q.Dimensions[i].Field)
	out := make(compiler.Problems, 0, len(probs))
	for _, pr := range probs {
		switch {
		case pr.Path == at("filters", added) || strings.HasPrefix(pr.Path, at("filters", added)+"."):
			pr.Path = rangePath
		case dropped:
			var k int
			var rest string
			if n, _ := fmt.Sscanf(pr.Path, "dimensions[%d]%s", &k, &rest); n >= 1 && k >= i {
				pr.Path = at("dimensions", k+1) + rest
			}
		}
		out = append(out, pr)
	}
	return out
}

// compareSQL stacks the branches' statements, each row labelled with its
// range, in the order of the ranges and, within one, the query's order:
//
//	SELECT "k"."compare_date_range", "k".<columns> FROM (
//	  SELECT 1 AS "__ossie_r", '<label>' AS "compare_date_range", "x".* FROM (<branch>) AS "x"
//	  UNION ALL …) AS "k" ORDER BY "k"."__ossie_r", "k"."__ossie_n"
func compareSQL(d dialect.Dialect, sqls, labels []string, cols []Column) string {
	var w strings.Builder
	w.WriteString("SELECT ")
	for j, c := range cols {
		if j > 0 {
			w.WriteString(", ")
		}
		w.WriteString(`"k".` + d.QuoteIdent(c.Name))
	}
	w.WriteString(" FROM (")
	for j, s := range sqls {
		if j > 0 {
			w.WriteString(" UNION ALL ")
		}
		w.WriteString("SELECT " + strconv.Itoa(j+1) + ` AS "__ossie_r", CAST(` + d.QuoteString(labels[j]) + " AS " + d.TypeName("VARCHAR") + ") AS " + d.QuoteIdent(compareCol) + `, "x".* FROM (` + s + `) AS "x"`)
	}
	w.WriteString(`) AS "k" ORDER BY "k"."__ossie_r", "k".` + d.QuoteIdent(rowNumberCol))
	return w.String()
}
