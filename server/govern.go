package server

import (
	"context"
	"slices"
	"strings"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/server/auth"
	"github.com/ossie-dev/ossie/server/problem"
)

// visibleTo returns what the caller of ctx may see of m, and whether the
// model is visible at all: a governed model in which the caller can read
// no field and no metric is treated as if it were not loaded, so its name
// does not leak either.
func (m *model) visibleTo(ctx context.Context) (plan.Visibility, bool) {
	id := auth.IdentityFrom(ctx)
	if id == nil || m.art.Governance == nil {
		return plan.Visibility{}, true // ungoverned: everything, nothing to compute
	}
	v := m.planner.Visible(id.Caller())
	return v, !v.Governed || len(v.Fields) > 0 || len(v.Metrics) > 0
}

// lookupFor is lookup for the caller of ctx: a model the caller cannot
// see is an unknown model, and the names offered are the visible ones.
func (s *Server) lookupFor(ctx context.Context, name string) (*model, *problem.Error) {
	c := s.store.snapshot()
	name, e := c.resolve(ctx, name)
	if e != nil {
		return nil, e
	}
	if m, ok := c.Lookup(name); ok && c.inNamespaces(ctx, m) {
		if _, visible := m.visibleTo(ctx); visible {
			return m, nil
		}
	}
	// A caller who addressed namespace/name is offered namespace/name
	// addresses, not the bare name that also reaches a unique model.
	qualified := strings.Contains(name, "/")
	var known []string
	for _, m := range c.all {
		if _, visible := m.visibleTo(ctx); visible && c.inNamespaces(ctx, m) {
			if qualified && m.namespace != "" {
				known = append(known, Qualify(m.namespace, m.art.Name))
			} else {
				known = append(known, c.address(m))
			}
		}
	}
	return nil, problem.UnknownModel(name, known)
}

// CheckModel reports whether the caller of ctx may query model (a bare
// name or namespace/name): nil, or the *problem.Error of Plan for an
// unknown model (404 OSS5003, with the names the caller may use) or an
// ambiguous bare name (409 OSS5013). The HTTP routes check the model
// before they read a body, so an unknown model is 404 whatever the body.
func (s *Server) CheckModel(ctx context.Context, model string) *problem.Error {
	_, err := s.lookupFor(ctx, model)
	return err
}

// describe is the metadata of model as the caller of ctx may see it
// (GET /v1/models/{model}, the MCP describe_model tool).
func (s *Server) describe(ctx context.Context, name string) (ModelDetail, *problem.Error) {
	m, err := s.lookupFor(ctx, name)
	if err != nil {
		return ModelDetail{}, err
	}
	if v, _ := m.visibleTo(ctx); v.Governed {
		return governedDetail(m.detail, v), nil
	}
	return m.detail, nil
}

// visibleSummaries lists the models the caller of ctx can see, with
// counts of what it can see.
func (s *Server) visibleSummaries(ctx context.Context) []ModelSummary {
	c := s.store.snapshot()
	out := []ModelSummary{}
	for _, m := range c.all {
		v, visible := m.visibleTo(ctx)
		switch {
		case !visible || !c.inNamespaces(ctx, m):
		case !v.Governed:
			sum := withLoadState(m.summary, c.status[Qualify(m.namespace, m.art.Name)])
			sum.Rollups = s.rollupSummaries(m)
			out = append(out, sum)
		default:
			d := governedDetail(m.detail, v)
			sum := m.summary
			sum.Counts = ModelCounts{Datasets: len(d.Datasets), Metrics: len(d.Metrics), Relationships: len(d.Relationships)}
			for _, ds := range d.Datasets {
				sum.Counts.Dimensions += len(ds.Dimensions)
			}
			out = append(out, sum)
		}
	}
	return out
}

// governedDetail is full cut down to v: datasets, dimensions and metrics
// the caller cannot read are absent (not marked), a primary key is shown
// only when all its fields are readable, relationships only between
// visible datasets, and masked dimensions say how they are masked and are
// typed String (their values come out as text), without time grains.
// Free text (descriptions, ai_context) is shown as written.
func governedDetail(full ModelDetail, v plan.Visibility) ModelDetail {
	d := full
	d.Datasets = []DatasetInfo{}
	for _, ds := range full.Datasets {
		if !v.Dataset(ds.Name) {
			continue
		}
		info := ds
		info.Dimensions = []DimensionInfo{}
		for _, dim := range ds.Dimensions {
			if !v.Field(dim.Name) {
				continue
			}
			if mask, ok := v.Masked[dim.Name]; ok {
				dim.Masked = string(mask)
				dim.Datatype = ossie.TypeString
				dim.IsTime = false
				dim.Grains = nil
			}
			info.Dimensions = append(info.Dimensions, dim)
		}
		if slices.ContainsFunc(ds.PrimaryKey, func(f string) bool { return !v.Field(ds.Name + "." + f) }) {
			info.PrimaryKey = nil
		}
		d.Datasets = append(d.Datasets, info)
	}
	d.Relationships = []RelationshipRef{}
	for _, r := range full.Relationships {
		if v.Dataset(r.From) && v.Dataset(r.To) {
			d.Relationships = append(d.Relationships, r)
		}
	}
	d.Metrics = []MetricInfo{}
	for _, m := range full.Metrics {
		if !v.Metric(m.Name) {
			continue
		}
		m.Datasets = slices.DeleteFunc(slices.Clone(m.Datasets), func(ds string) bool { return !v.Dataset(ds) })
		d.Metrics = append(d.Metrics, m)
	}
	return d
}
