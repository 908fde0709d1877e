package compiler

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/ossie-dev/ossie/api/ossie"

	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/expr"
)

// CompileOptions are install defaults applied while resolving sources: a
// table path with fewer parts than catalog.schema.table gets DefaultSchema
// and then DefaultCatalog prepended, when they are set (DESIGN.md section 3).
type CompileOptions struct {
	DefaultCatalog string
	DefaultSchema  string
	// Dialect, when set, is the engine the artifact is compiled for: a
	// call it cannot compute is problem OSS3008 (validate_engine.go).
	Dialect dialect.Dialect
	// StoredTimezone is the install-wide IANA zone of the instants in naive
	// DateTime fields whose field, dataset and model declare none (OSSIE
	// extension `timezone`); "" means UTC. It is written into the
	// artifact's fields (stored_timezone), so every planner of the artifact
	// agrees. The caller checks it with CheckTimezone.
	StoredTimezone string
}

// CheckTimezone returns an error naming tz unless it is "" (UTC) or an
// IANA zone name time.LoadLocation knows ("Local" is refused: the
// machine's zone would make answers depend on where they are computed).
func CheckTimezone(tz string) error {
	if tz == "" {
		return nil
	}
	if _, err := time.LoadLocation(tz); err != nil || tz == "Local" {
		return fmt.Errorf("%q is not an IANA time zone name (e.g. UTC, Europe/Amsterdam)", tz)
	}
	return nil
}

// Compile validates p (see Validate) and, when no problem is an error,
// returns one artifact per semantic model in document order, plus any
// warnings. With errors it returns nil artifacts and every problem. The
// artifact layout is documented in docs/artifact.md.
func Compile(p *Parsed, opts CompileOptions) ([]*Artifact, Problems) {
	a := analyze(p)
	if opts.Dialect != nil {
		for _, mc := range a.models {
			mc.checkEngine(opts.Dialect)
		}
		a.probs.Sort()
	}
	if a.probs.HasErrors() {
		return nil, a.probs
	}
	arts := make([]*Artifact, 0, len(a.models))
	for _, mc := range a.models {
		art, err := mc.artifact(a.doc.Version, opts)
		if err != nil {
			// Only reachable if the API types stop being JSON-encodable.
			return nil, append(a.probs, p.At(CodeSchema, SeverityError, mc.base, "cannot encode the model canonically: "+err.Error()))
		}
		arts = append(arts, art)
	}
	return arts, a.probs
}

// Load is Parse then Compile: it returns the artifacts of a YAML or JSON
// Ossie document, or every parse problem (compilation is skipped when
// parsing failed, so nothing is reported twice).
func Load(data []byte, opts CompileOptions) ([]*Artifact, Problems) {
	p, probs := Parse(data)
	if probs.HasErrors() {
		return nil, probs
	}
	arts, more := Compile(p, opts)
	all := append(probs, more...)
	all.Sort()
	return arts, all
}

func (mc *modelCheck) artifact(docVersion string, opts CompileOptions) (*Artifact, error) {
	m := mc.m
	version, err := ModelVersion(docVersion, *m)
	if err != nil {
		return nil, err
	}
	if mc.governance != nil {
		if version, err = governedVersion(version, mc.governance); err != nil {
			return nil, err
		}
	}
	art := &Artifact{
		Governance:      mc.governance,
		Format:          ArtifactFormat,
		Version:         version,
		DocumentVersion: docVersion,
		Name:            m.Name,
		Doc:             Doc{Description: m.Description, AIContext: m.AIContext},
		Datasets:        make([]ArtifactDataset, len(m.Datasets)),
	}
	for d := range m.Datasets {
		ds := &m.Datasets[d]
		src := mc.sources[d]
		if src.Kind == SourceTable {
			src.Table = withDefaults(src.Table, opts)
		}
		ad := ArtifactDataset{
			Name:        ds.Name,
			Doc:         Doc{Description: ds.Description, AIContext: ds.AIContext},
			Source:      src,
			PrimaryKey:  slices.Clone(ds.PrimaryKey),
			KeyPhysical: mc.keyPhysical[d],
			Fields:      make([]ArtifactField, len(ds.Fields)),
		}
		for _, k := range ds.UniqueKeys {
			ad.UniqueKeys = append(ad.UniqueKeys, slices.Clone(k))
		}
		for f := range ds.Fields {
			fl := &ds.Fields[f]
			ce := mc.fieldExprs[d][f]
			ad.Fields[f] = ArtifactField{
				Name: fl.Name,
				FieldDoc: FieldDoc{Label: fl.Label, Description: fl.Description, Datatype: fl.Datatype,
					IsTime: fl.IsTime(), AIContext: fl.AIContext},
				Dialect:        ce.dialect,
				SQL:            ce.sql,
				Expr:           exprOf(ce),
				Dialects:       slices.Clone(fl.Expression.Dialects),
				StoredTimezone: mc.fieldZones[d][f],
			}
			if ad.Fields[f].StoredTimezone == "" && fl.Datatype == ossie.TypeDateTime {
				ad.Fields[f].StoredTimezone = opts.StoredTimezone
			}
		}
		// Columns metrics read without a declared field become implicit
		// fields, so the planner resolves them like any field and bind
		// checks them (validate_metrics.go, physicalColumn).
		for _, col := range mc.metricColumns[d] {
			ad.Fields = append(ad.Fields, ArtifactField{
				Name: col.Name, Implicit: true, Dialect: ossie.OssieSQL2026,
				SQL: expr.Format(col), Expr: expr.Expr{Node: col},
			})
		}
		art.Datasets[d] = ad
	}
	for i := range m.Relationships {
		r := &m.Relationships[i]
		art.Relationships = append(art.Relationships, ArtifactRelationship{
			Name:         r.Name,
			From:         r.From,
			To:           r.To,
			FromColumns:  slices.Clone(r.FromColumns),
			ToColumns:    slices.Clone(r.ToColumns),
			FromPhysical: mc.relPhysical[i].from,
			ToPhysical:   mc.relPhysical[i].to,
		})
	}
	for _, c := range mc.graph.choices {
		jc := ArtifactJoinChoice{From: m.Datasets[c.from].Name, To: m.Datasets[c.to].Name}
		for _, p := range c.paths {
			names := make([]string, len(p))
			for k, rel := range p {
				names[k] = m.Relationships[rel].Name
			}
			jc.Paths = append(jc.Paths, names)
		}
		art.JoinChoices = append(art.JoinChoices, jc)
	}
	slices.SortFunc(art.JoinChoices, func(a, b ArtifactJoinChoice) int {
		return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To))
	})
	for i := range m.Metrics {
		mt := &m.Metrics[i]
		cm := mc.metricExprs[i]
		am := ArtifactMetric{
			Name:      mt.Name,
			MetricDoc: MetricDoc{Description: mt.Description, Datatype: mt.Datatype, AIContext: mt.AIContext},
			Dialect:   cm.dialect,
			SQL:       cm.sql,
			Expr:      exprOf(cm.checkedExpr),
			Dialects:  slices.Clone(mt.Expression.Dialects),
			DependsOn: cm.deps,
			Datasets:  cm.datasets,
			Via:       mc.metricVia[i],
		}
		if mc.metricTypes != nil {
			am.Type = mc.metricTypes[i]
		}
		if cm.star >= 0 {
			am.RowsOf = m.Datasets[cm.star].Name
		}
		art.Metrics = append(art.Metrics, am)
	}
	art.Rollups = slices.Clone(mc.rollups)
	for i := range art.Rollups {
		art.Rollups[i].Table = rollupTable(art, &art.Rollups[i])
	}
	return art, nil
}

func exprOf(ce checkedExpr) expr.Expr { return expr.Expr{Node: ce.node} }
