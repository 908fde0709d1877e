// Package views plans the governed views of a SemanticModel (spec.views)
// with the planner of the semantic server, under each view's role. It is
// pure (no engine I/O): the operator creates the planned views on its
// engine, and ossiectl validate/manifest use it to refuse, before
// publishing, a view the operator would refuse (docs/governance.md).
package views

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/plan"
)

// Plan is one spec.views entry planned for a dialect.
type Plan struct {
	View    *v1alpha1.View
	SQL     string   // the SELECT the view holds
	Columns []string // result column names, in order
	Digest  string   // "sha256:<hex>" of SQL (the operator keeps it in the view's ownership comment)
}

// Two clocks 400 days apart: a view whose SQL differs between them depends
// on the date it is planned on (a relative date range).
var (
	viewClockA = time.Date(2001, 1, 1, 12, 0, 0, 0, time.UTC)
	viewClockB = viewClockA.AddDate(0, 0, 400)
)

// PlanSpec plans every spec.views entry with the same planner the
// semantic server uses, under the view's role, for dialect d. Problems
// (all at once, paths starting at views[i]) are validation problems:
//   - OSS2009 a role that is not a governance role, or a model that is
//     not in the document (or none named when it holds several);
//   - the planner's own OSS4xxx problems (unknown metric or member, bad
//     grain or filter), which under a role include members the role may
//     not read (reported as unknown, so names do not leak);
//   - OSS2017 a role whose row filters read caller attributes: a view
//     has no caller, and such a filter admits no rows without one;
//   - OSS4005 a relative date range: a view is planned once, and its SQL
//     would freeze the date it was planned on.
func PlanSpec(spec *v1alpha1.SemanticModelSpec, arts []*compiler.Artifact, d dialect.Dialect) ([]Plan, compiler.Problems) {
	var probs compiler.Problems
	fail := func(code, path, msg string) {
		probs = append(probs, compiler.Problem{Code: code, Severity: compiler.SeverityError, Path: path, Message: msg})
	}
	roles := map[string]bool{}
	callerBound := map[string]bool{} // roles with a row filter reading {{ caller.x }}
	if spec.Governance != nil {
		for _, r := range spec.Governance.Roles {
			roles[r.Name] = true
			for _, rf := range r.RowFilters {
				if strings.Contains(rf.Expression, "{{") {
					callerBound[r.Name] = true
				}
			}
		}
	}
	planners := map[*compiler.Artifact][2]*plan.Planner{}
	var out []Plan
	for i := range spec.Views {
		v := &spec.Views[i]
		at := "views[" + strconv.Itoa(i) + "]"
		if !roles[v.Role] {
			fail(compiler.CodeUnknownReference, at+".role", fmt.Sprintf("role %q is not declared in governance.roles", v.Role))
		}
		if callerBound[v.Role] {
			fail(compiler.CodeUnknownAttribute, at+".role", fmt.Sprintf("role %q has row filters reading caller attributes ({{ caller.* }}); a view has no caller, so it would show no rows: give the view a role whose filters are fixed", v.Role))
		}
		art, msg := viewArtifact(arts, v.Model)
		if art == nil {
			fail(compiler.CodeUnknownReference, at+".model", msg)
			continue
		}
		q, qprobs := viewQuery(v, at, art)
		probs = append(probs, qprobs...)
		if q == nil {
			continue
		}
		pl, ok := planners[art]
		if !ok {
			a, errA := plan.New(art)
			b, errB := plan.New(art)
			if errA != nil || errB != nil {
				fail(compiler.CodeBadQuery, at, fmt.Sprintf("cannot plan model %s: %v", art.Name, errA))
				continue
			}
			a.Now = func() time.Time { return viewClockA }
			b.Now = func() time.Time { return viewClockB }
			pl = [2]*plan.Planner{a, b}
			planners[art] = pl
		}
		caller := &plan.Caller{Roles: []string{v.Role}}
		pa, pprobs := pl[0].PlanFor(q, d, caller)
		if len(pprobs) > 0 {
			for _, pr := range pprobs {
				pr.Path = joinPath(at, pr.Path)
				probs = append(probs, pr)
			}
			continue
		}
		if pb, _ := pl[1].PlanFor(q, d, caller); pb == nil || pb.SQL != pa.SQL {
			fail(compiler.CodeBadFilter, at+".filters", "a view cannot use a relative date range (\"last 7 days\", \"this month\"...): it is planned once and would keep the dates of that day; give absolute dates")
			continue
		}
		vp := Plan{View: v, SQL: pa.SQL}
		for _, c := range pa.Columns {
			vp.Columns = append(vp.Columns, c.Name)
		}
		sum := sha256.Sum256([]byte(pa.SQL))
		vp.Digest = "sha256:" + hex.EncodeToString(sum[:])
		out = append(out, vp)
	}
	if probs.HasErrors() {
		return nil, probs
	}
	return out, probs
}

// viewArtifact picks the artifact a view reads: the one named model, or
// the only one when model is empty.
func viewArtifact(arts []*compiler.Artifact, model string) (*compiler.Artifact, string) {
	if model == "" {
		if len(arts) == 1 {
			return arts[0], ""
		}
		return nil, fmt.Sprintf("the document holds %d models: name the one the view reads", len(arts))
	}
	for _, a := range arts {
		if a.Name == model {
			return a, ""
		}
	}
	return nil, fmt.Sprintf("model %q is not in the document", model)
}

// viewQuery is the server query a view stands for. Filter values are
// decoded as the server decodes a request body (numbers kept exact). A
// field written `dataset.field@relationship` names its join path (the
// query's via, as ossiectl spells it), so a view may read one dataset
// along several paths.
func viewQuery(v *v1alpha1.View, at string, art *compiler.Artifact) (*plan.Query, compiler.Problems) {
	q := &plan.Query{Metrics: v.Metrics, Timezone: v.Timezone}
	for _, d := range v.Dimensions {
		field, via := splitVia(d.Field, art)
		q.Dimensions = append(q.Dimensions, plan.Dimension{Field: field, Via: via, Grain: d.Grain, WeekStart: d.WeekStart})
	}
	var probs compiler.Problems
	for i, f := range v.Filters {
		field, via := splitVia(f.Field, art)
		pf := plan.Filter{Field: field, Via: via, Metric: f.Metric, Grain: f.Grain, Op: f.Op}
		for j, raw := range f.Values {
			dec := json.NewDecoder(bytes.NewReader(raw.Raw))
			dec.UseNumber()
			var val any
			if err := dec.Decode(&val); err != nil {
				probs = append(probs, compiler.Problem{Code: compiler.CodeBadFilter, Severity: compiler.SeverityError,
					Path: fmt.Sprintf("%s.filters[%d].values[%d]", at, i, j), Message: "not a JSON value: " + err.Error()})
				continue
			}
			pf.Values = append(pf.Values, val)
		}
		q.Filters = append(q.Filters, pf)
	}
	if len(probs) > 0 {
		return nil, probs
	}
	return q, nil
}

// splitVia splits `member@relationship` when relationship is one of the
// model's; anything else is the member as written (a misspelt
// relationship then comes back as an unknown member, with a suggestion).
func splitVia(field string, art *compiler.Artifact) (string, string) {
	i := strings.LastIndexByte(field, '@')
	if i < 0 {
		return field, ""
	}
	for _, r := range art.Relationships {
		if r.Name == field[i+1:] {
			return field[:i], r.Name
		}
	}
	return field, ""
}

// joinPath prefixes a planner path ("metrics[0]") with the view's path.
func joinPath(at, p string) string {
	if p == "" {
		return at
	}
	return at + "." + p
}
