package plan

import (
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/expr"
)

// policy is what one set of roles may read in one artifact, independent of
// the dialect and of the caller's attribute values (those are bound when a
// query is planned). A nil *policy is ungoverned.
type policy struct {
	metrics map[string]bool          // readable metric names
	fields  map[string]bool          // readable "dataset.field"
	masks   map[string]compiler.Mask // readable but masked "dataset.field"
	// rows maps a restricted dataset to its alternatives: the dataset's
	// visible rows are those at least one alternative admits, and an
	// alternative admits a row when all its filters do. An empty list
	// admits nothing. Datasets not in rows are unrestricted.
	rows map[string][][]compiler.ArtifactRowFilter

	metricNames []string // readable, for did-you-mean
	fieldNames  []string
	attrs       map[string]string
}

// policyFor resolves c against the artifact's governance: nil when the
// model is ungoverned or c is nil. Role resolution is cached per set of
// defined roles; attributes are attached per call.
func (p *Planner) policyFor(c *Caller) *policy {
	g := p.art.Governance
	if g == nil || c == nil {
		return nil
	}
	var roles []string
	for _, r := range c.Roles {
		if g.Role(r) != nil && !slices.Contains(roles, r) {
			roles = append(roles, r)
		}
	}
	sort.Strings(roles)
	key := strings.Join(roles, "\x00")
	p.mu.Lock()
	base, ok := p.policies[key]
	p.mu.Unlock()
	if !ok {
		base = p.buildPolicy(roles)
		p.mu.Lock()
		if p.policies == nil {
			p.policies = map[string]*policy{}
		}
		p.policies[key] = base
		p.mu.Unlock()
	}
	pol := *base
	pol.attrs = c.Attributes
	return &pol
}

// buildPolicy is the union of the named roles (all defined in the
// artifact's governance); no roles at all reads nothing.
func (p *Planner) buildPolicy(roles []string) *policy {
	g := p.art.Governance
	pol := &policy{metrics: map[string]bool{}, fields: map[string]bool{}, masks: map[string]compiler.Mask{}, rows: map[string][][]compiler.ArtifactRowFilter{}}
	for _, ds := range p.art.Datasets {
		pol.rows[ds.Name] = nil // admits nothing until a role opens it
	}
	for _, name := range roles {
		r := g.Role(name)
		masked := map[string]compiler.Mask{}
		for _, m := range r.Masks {
			masked[m.Field] = m
		}
		// Fields: readable under any role; unmasked if any role reading it
		// leaves it unmasked.
		for _, key := range p.fieldNames {
			if !allowed(r.Fields, key) {
				continue
			}
			m, isMasked := masked[key]
			switch {
			case !pol.fields[key] && isMasked:
				pol.masks[key] = m
			case !isMasked:
				delete(pol.masks, key)
			}
			pol.fields[key] = true
		}
		for i := range p.art.Metrics {
			m := &p.art.Metrics[i]
			if allowed(r.Metrics, m.Name) && p.metricReadable(r, masked, m, map[string]bool{}) {
				pol.metrics[m.Name] = true
			}
		}
		for _, ds := range p.art.Datasets {
			alts, restricted := pol.rows[ds.Name]
			if !restricted {
				continue // another role already reads every row
			}
			var mine []compiler.ArtifactRowFilter
			for _, rf := range r.RowFilters {
				if rf.Dataset == ds.Name {
					mine = append(mine, rf)
				}
			}
			if len(mine) == 0 {
				delete(pol.rows, ds.Name)
				continue
			}
			pol.rows[ds.Name] = append(alts, mine)
		}
	}
	for _, m := range p.art.Metrics {
		if pol.metrics[m.Name] {
			pol.metricNames = append(pol.metricNames, m.Name)
		}
	}
	for _, key := range p.fieldNames {
		if pol.fields[key] {
			pol.fieldNames = append(pol.fieldNames, key)
		}
	}
	return pol
}

// metricReadable: every field m reads (through derived metrics too) is
// readable under r, and none is masked unless its mask allows aggregates.
func (p *Planner) metricReadable(r *compiler.ArtifactRole, masked map[string]compiler.Mask, m *compiler.ArtifactMetric, visiting map[string]bool) bool {
	if visiting[m.Name] {
		return false
	}
	visiting[m.Name] = true
	defer delete(visiting, m.Name)
	for _, ref := range expr.Refs(m.Expr.Node) {
		if ref.Qualifier == "" {
			dep := p.art.Metric(ref.Name)
			if dep == nil || !p.metricReadable(r, masked, dep, visiting) {
				return false
			}
			continue
		}
		key := fieldKey(ref.Qualifier, ref.Name)
		if !allowed(r.Fields, key) {
			return false
		}
		if mk, ok := masked[key]; ok && !mk.AllowAggregates {
			return false
		}
	}
	// The type's fields are read too: a per or conversion entity is
	// grouped on, an along time compared.
	for _, key := range m.Type.Fields() {
		if mk, ok := masked[key]; !allowed(r.Fields, key) || (ok && !mk.AllowAggregates) {
			return false
		}
	}
	return true
}

// allowed applies an Access to a member name: nil allows all; otherwise
// the name must match Allow (nil Allow = all) and no Deny pattern.
func allowed(a *compiler.Access, name string) bool {
	if a == nil {
		return true
	}
	for _, pat := range a.Deny {
		if globMatch(pat, name) {
			return false
		}
	}
	if a.Allow == nil {
		return true
	}
	for _, pat := range a.Allow {
		if globMatch(pat, name) {
			return true
		}
	}
	return false
}

// globMatch is path.Match; a malformed pattern (refused by validation)
// matches nothing.
func globMatch(pat, name string) bool {
	ok, err := path.Match(pat, name)
	return err == nil && ok
}

func (pol *policy) metric(name string) bool { return pol == nil || pol.metrics[name] }
func (pol *policy) field(key string) bool   { return pol == nil || pol.fields[key] }

func (pol *policy) mask(key string) (compiler.Mask, bool) {
	if pol == nil {
		return compiler.Mask{}, false
	}
	m, ok := pol.masks[key]
	return m, ok
}

// redact keeps the model-level problems (paths `metrics.<m>` and
// `datasets.<d>.fields.<f>`) that name members the caller may read; the
// others become one problem without names, so a refusal never leaks a
// hidden member.
func (pol *policy) redact(probs compiler.Problems) compiler.Problems {
	if pol == nil {
		return probs
	}
	var out compiler.Problems
	hidden := false
	for _, pr := range probs {
		name, isMetric := strings.CutPrefix(pr.Path, "metrics.")
		rest, isField := strings.CutPrefix(pr.Path, "datasets.")
		ds, f, _ := strings.Cut(rest, ".fields.")
		if (isMetric && pol.metrics[name]) || (isField && pol.fields[fieldKey(ds, f)]) {
			out = append(out, pr)
			continue
		}
		if !hidden {
			hidden = true
			out = append(out, compiler.Problem{Code: pr.Code, Severity: pr.Severity,
				Message: "the model uses a function this engine cannot compute"})
		}
	}
	return out
}

func (pol *policy) visibility(a *compiler.Artifact) Visibility {
	v := Visibility{}
	if pol == nil {
		for _, ds := range a.Datasets {
			v.Datasets = append(v.Datasets, ds.Name)
			for _, f := range ds.Fields {
				v.Fields = append(v.Fields, fieldKey(ds.Name, f.Name))
			}
		}
		for _, m := range a.Metrics {
			v.Metrics = append(v.Metrics, m.Name)
		}
		return v
	}
	v.Governed = true
	v.Fields = slices.Clone(pol.fieldNames)
	v.Metrics = slices.Clone(pol.metricNames)
	v.Masked = map[string]compiler.MaskKind{}
	for k, m := range pol.masks {
		v.Masked[k] = m.Mask
	}
	seen := map[string]bool{}
	for _, ds := range a.Datasets {
		for _, f := range ds.Fields {
			if pol.fields[fieldKey(ds.Name, f.Name)] {
				seen[ds.Name] = true
			}
		}
	}
	for _, name := range v.Metrics {
		m := a.Metric(name)
		for _, ds := range m.Datasets {
			seen[ds] = true
		}
		if m.RowsOf != "" {
			seen[m.RowsOf] = true
		}
	}
	for _, ds := range a.Datasets {
		if seen[ds.Name] {
			v.Datasets = append(v.Datasets, ds.Name)
		}
	}
	return v
}
