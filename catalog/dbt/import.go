package dbt

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ossie-dev/ossie/api/ossie"
)

// Options are the choices of one import.
type Options struct {
	// ModelName names the semantic model (default: the project's name,
	// else "dbt").
	ModelName string
	// Database and Schema prefix the table of every `ref('x')` source:
	// database.schema.x. With a manifest they replace the node_relation's
	// database and schema when set.
	Database, Schema string
}

// Unmapped is one dbt item (or part of one) that has no place in the
// imported document: Path is the dbt file and path, Why the reason.
type Unmapped struct {
	Path string `json:"path"`
	Why  string `json:"why"`
}

func (u Unmapped) String() string { return u.Path + ": " + u.Why }

// Import maps p onto one Ossie semantic model (docs/dbt.md): a dataset
// per semantic model, a field per entity, dimension and measure
// expression, keys and relationships from entities, a metric per measure
// and per dbt metric. The document it returns validates; every dbt item
// it could not map, or that the compiler refused once mapped, is listed in
// the second result with its dbt path and the reason. The error is set
// only when nothing can be imported (no semantic models).
func Import(p *Project, opts Options) (*ossie.Document, []Unmapped, error) {
	if len(p.SemanticModels) == 0 {
		return nil, nil, fmt.Errorf("no semantic_models found: the input has no dbt semantic layer to import")
	}
	name := opts.ModelName
	if name == "" {
		name = p.Name
	}
	if name == "" {
		name = "dbt"
	}
	im := &importer{p: p, opts: opts, byName: map[string]*modelInfo{}, measures: map[string]*measureInfo{}, metrics: map[string]*Metric{}, origin: map[string]string{}, unmapped: slices.Clone(p.Skipped)}
	sm := ossie.SemanticModel{Name: name, Description: "Imported from the dbt semantic layer" + projectSuffix(p.Name) + "."}
	im.datasets(&sm)
	sm.Relationships = im.relationships()
	for i := range p.Metrics {
		im.metrics[p.Metrics[i].Name] = &p.Metrics[i]
	}
	sm.Metrics = im.allMetrics()
	doc := &ossie.Document{Version: ossie.Version020Dev0, SemanticModel: []ossie.SemanticModel{sm}}
	if err := im.settle(doc); err != nil {
		return nil, im.unmapped, err
	}
	return doc, im.unmapped, nil
}

func projectSuffix(name string) string {
	if name == "" {
		return ""
	}
	return " of dbt project " + name
}

type importer struct {
	p        *Project
	opts     Options
	models   []*modelInfo
	byName   map[string]*modelInfo
	measures map[string]*measureInfo
	metrics  map[string]*Metric
	// origin maps an Ossie metric, relationship or "dataset.field" name to
	// the dbt path it came from, for problems found after mapping.
	origin   map[string]string
	unmapped []Unmapped
}

type modelInfo struct {
	sm           *SemanticModel
	name         string
	dims         map[string]dimInfo // dimension name -> field
	entityFields map[string]string  // entity name -> field
	entityTypes  map[string]string  // entity name -> primary, unique, foreign, natural
	columns      map[string]string  // expression text of a plain field -> field
}

type dimInfo struct{ field, grain string }

type measureInfo struct {
	m     *Measure
	model *modelInfo
	field string // the field the aggregate reads
	path  string
}

func (im *importer) skip(path, format string, args ...any) {
	im.unmapped = append(im.unmapped, Unmapped{Path: path, Why: fmt.Sprintf(format, args...)})
}

func (im *importer) source(sm *SemanticModel) (ossie.Source, bool) {
	var parts []string
	switch {
	case sm.Relation != nil:
		db, schema := sm.Relation.Database, sm.Relation.Schema
		if im.opts.Database != "" {
			db = im.opts.Database
		}
		if im.opts.Schema != "" {
			schema = im.opts.Schema
		}
		parts = []string{db, schema, sm.Relation.Alias}
	case sm.Ref != "":
		parts = []string{im.opts.Database, im.opts.Schema, sm.Ref}
	default:
		return ossie.Source{}, false
	}
	var kept []string
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	return ossie.Source{Form: ossie.SourceFormString, Object: strings.Join(kept, ".")}, true
}

// labelContext carries a dbt label where Ossie has no label (datasets,
// metrics) as text ai_context. (Not as synonyms: catalog.Render cannot
// yet write an object ai_context.)
func labelContext(label string) *ossie.AIContext {
	if label == "" {
		return nil
	}
	return &ossie.AIContext{IsText: true, Text: "Label in dbt: " + label}
}

func plain(e string) ossie.Expression {
	return ossie.Expression{Dialects: []ossie.DialectExpression{{Dialect: ossie.OssieSQL2026, Expression: e}}}
}

func yes() *bool { t := true; return &t }
func no() *bool  { f := false; return &f }

// datasets adds one dataset per semantic model.
func (im *importer) datasets(out *ossie.SemanticModel) {
	for i := range im.p.SemanticModels {
		sm := &im.p.SemanticModels[i]
		src, ok := im.source(sm)
		if !ok {
			im.skip(sm.Path, "no model: ref('<model>') (or node_relation) names its table; the semantic model is not imported")
			continue
		}
		if _, dup := im.byName[sm.Name]; dup {
			im.skip(sm.Path, "a second semantic model named %q is not imported", sm.Name)
			continue
		}
		for _, k := range sm.Unread {
			im.skip(sm.Path, "%s is not mapped", k)
		}
		ds := ossie.Dataset{Name: sm.Name, Source: src, Description: sm.Description, AIContext: labelContext(sm.Label)}
		mi := &modelInfo{sm: sm, name: sm.Name, dims: map[string]dimInfo{}, entityFields: map[string]string{}, entityTypes: map[string]string{}, columns: map[string]string{}}
		used := map[string]bool{}
		addField := func(f ossie.Field, path string) bool {
			if used[f.Name] {
				im.skip(path, "field name %q is already used by another entity, dimension or measure of %s", f.Name, sm.Name)
				return false
			}
			used[f.Name] = true
			ds.Fields = append(ds.Fields, f)
			im.origin[sm.Name+"."+f.Name] = path
			return true
		}
		for _, e := range sm.Entities {
			path := sm.Path + ".entities." + e.Name
			col := orName(e.Expr, e.Name)
			if !addField(ossie.Field{Name: e.Name, Expression: plain(col), Dimension: &ossie.Dimension{IsTime: no()}, Label: e.Label, Description: e.Description}, path) {
				continue
			}
			mi.entityFields[e.Name], mi.entityTypes[e.Name] = e.Name, e.Type
			mi.columns[normExpr(col)] = e.Name
			switch e.Type {
			case "primary":
				ds.PrimaryKey = []string{e.Name}
			case "unique":
				ds.UniqueKeys = append(ds.UniqueKeys, []string{e.Name})
			case "natural":
				im.skip(path, "a natural entity (the key of a slowly changing dimension, unique only within its validity window) is imported as a field, not a key")
			case "foreign":
			default:
				im.skip(path, "entity type %q is not one of primary, unique, foreign, natural; imported as a field", e.Type)
			}
			if e.Role != "" {
				im.skip(path, "role %q is not mapped", e.Role)
			}
		}
		if sm.PrimaryEntity != "" && len(ds.PrimaryKey) == 0 {
			im.skip(sm.Path, "primary_entity %q names no column, so the dataset declares no primary key", sm.PrimaryEntity)
		}
		for _, d := range sm.Dimensions {
			path := sm.Path + ".dimensions." + d.Name
			f, grain := dimensionField(d)
			if d.Type == "time" && d.Granularity == "" {
				im.skip(path, "a time dimension without type_params.time_granularity is imported at day granularity")
			}
			if d.Validity {
				im.skip(path, "validity_params (an SCD type II window) are not mapped: joins to this model ignore the validity window")
			}
			if d.Type != "time" && d.Type != "categorical" {
				im.skip(path, "dimension type %q is not categorical or time; imported as categorical", d.Type)
			}
			if addField(f, path) {
				mi.dims[d.Name] = dimInfo{field: f.Name, grain: grain}
				if d.Type != "time" {
					mi.columns[normExpr(orName(d.Expr, d.Name))] = f.Name
				}
			}
		}
		for j := range sm.Measures {
			ms := &sm.Measures[j]
			path := sm.Path + ".measures." + ms.Name
			col := orName(ms.Expr, ms.Name)
			field, ok := mi.columns[normExpr(col)]
			if !ok {
				field = ms.Name
				if used[field] {
					field = ms.Name + "_measure"
				}
				if !addField(ossie.Field{Name: field, Expression: plain(col), Description: "The value dbt measure " + ms.Name + " aggregates."}, path) {
					continue
				}
				mi.columns[normExpr(col)] = field
			}
			if _, dup := im.measures[ms.Name]; dup {
				im.skip(path, "a second measure named %q is not imported", ms.Name)
				continue
			}
			im.measures[ms.Name] = &measureInfo{m: ms, model: mi, field: field, path: path}
		}
		im.models = append(im.models, mi)
		im.byName[sm.Name] = mi
		out.Datasets = append(out.Datasets, ds)
	}
}

func orName(expr, name string) string {
	if strings.TrimSpace(expr) != "" {
		return strings.TrimSpace(expr)
	}
	return name
}

func normExpr(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// dimensionField is the field of a dimension and its grain: a time
// dimension at day granularity or coarser is a Date truncated to that
// granularity (so it cannot be read finer, as in dbt), a finer one a
// DateTime.
func dimensionField(d Dimension) (ossie.Field, string) {
	col := orName(d.Expr, d.Name)
	f := ossie.Field{Name: d.Name, Label: d.Label, Description: d.Description}
	if d.Type != "time" {
		f.Expression, f.Dimension = plain(col), &ossie.Dimension{IsTime: no()}
		return f, ""
	}
	f.Dimension = &ossie.Dimension{IsTime: yes()}
	grain := d.Granularity
	switch grain {
	case "", "day":
		grain = "day"
		f.Expression, f.Datatype = plain("CAST("+col+" AS DATE)"), ossie.TypeDate
	case "week", "month", "quarter", "year":
		f.Expression, f.Datatype = plain("CAST(DATE_TRUNC('"+grain+"', "+col+") AS DATE)"), ossie.TypeDate
	default: // hour and finer
		f.Expression, f.Datatype = plain(col), ossie.TypeDateTime
	}
	return f, grain
}

// relationships adds a many-to-one relationship from every semantic model
// with a foreign entity to each other semantic model whose primary or
// unique entity has the same name (MetricFlow's join rule for foreign to
// primary/unique entities).
func (im *importer) relationships() []ossie.Relationship {
	var out []ossie.Relationship
	names := map[string]bool{}
	for _, a := range im.models {
		for _, e := range a.sm.Entities {
			if e.Type != "foreign" || a.entityFields[e.Name] == "" {
				continue
			}
			path := a.sm.Path + ".entities." + e.Name
			found := false
			for _, b := range im.models {
				t := b.entityTypes[e.Name]
				if b == a || (t != "primary" && t != "unique") {
					continue
				}
				found = true
				name := a.name + "_" + b.name
				if names[name] {
					name = a.name + "_" + e.Name + "_" + b.name
				}
				names[name] = true
				im.origin[name] = path
				out = append(out, ossie.Relationship{Name: name, From: a.name, To: b.name, FromColumns: []string{a.entityFields[e.Name]}, ToColumns: []string{b.entityFields[e.Name]}})
			}
			if !found {
				natural := false
				for _, b := range im.models {
					natural = natural || (b != a && b.entityTypes[e.Name] == "natural")
				}
				if natural {
					im.skip(path, "foreign entity %q matches only a natural entity (an SCD join on a validity window), which is not mapped", e.Name)
				} else {
					im.skip(path, "foreign entity %q is the primary or unique entity of no semantic model, so no relationship joins it", e.Name)
				}
			}
		}
	}
	return out
}
