package dbt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/ossie-dev/ossie/compiler"
)

// skipDirs are the directories of a dbt project that hold no sources:
// build output, installed packages and logs.
var skipDirs = map[string]bool{"target": true, "dbt_packages": true, "dbt_modules": true, "logs": true, "node_modules": true}

// Read reads path: a semantic_manifest.json (any file ending in .json) or
// a dbt project directory, whose *.yml and *.yaml files are read in
// lexical order (skipping target/, dbt_packages/, logs/ and hidden
// directories). Every file that cannot be read or decoded is an error
// naming it; all of them are returned together.
func Read(path string) (*Project, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		if strings.HasSuffix(path, ".json") {
			return readManifest(path)
		}
		p := &Project{}
		if err := p.readYAML(path, filepath.Base(path)); err != nil {
			return nil, err
		}
		return p, nil
	}
	var files []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != path && (skipDirs[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if ext := filepath.Ext(p); ext == ".yml" || ext == ".yaml" {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	p := &Project{}
	var errs []string
	for _, f := range files {
		rel, _ := filepath.Rel(path, f)
		if err := p.readYAML(f, filepath.ToSlash(rel)); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return p, nil
}

// readYAML adds the semantic models and metrics of one YAML file (other
// keys, such as models: or sources:, are dbt's own business). name is how
// paths name the file. dbt_project.yml gives the project name.
func (p *Project) readYAML(file, name string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	return p.readData(data, filepath.Base(file), name)
}

// readData is readYAML over the content of a file whose base name is
// base. A file over the limits of a model document (compiler.CheckDocument:
// 1.5 MiB, 256 levels, 100,000 values, 256 keys in one block mapping) is
// refused with its line before it is decoded (issue 25: a dbt project is
// read in CI from contributors' branches). It is decoded as YAML 1.1, as
// dbt (PyYAML) reads it, in about 400 bytes per value.
func (p *Project) readData(data []byte, base, name string) error {
	if c := compiler.CheckDocument(data); c != nil {
		return fmt.Errorf("%s: %d:%d: %s %s", name, c.Line, c.Column, c.Code, c.Message)
	}
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return fmt.Errorf("%s: not YAML: %v", name, err)
	}
	if strings.TrimSpace(string(js)) == "null" {
		return nil
	}
	if base == "dbt_project.yml" || base == "dbt_project.yaml" {
		var proj struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(js, &proj) == nil {
			p.Name = proj.Name
		}
		return nil
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(js, &top) != nil || (top["semantic_models"] == nil && top["metrics"] == nil && top["saved_queries"] == nil) {
		return nil // not a file of the semantic layer
	}
	var f rawFile
	if err := json.Unmarshal(js, &f); err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	p.add(f, name)
	return nil
}

// readManifest reads a compiled semantic_manifest.json.
func readManifest(file string) (*Project, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var f rawFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: not a semantic manifest: %v", filepath.Base(file), err)
	}
	var proj struct {
		Config struct {
			Name string `json:"name"`
		} `json:"project_configuration"`
	}
	_ = json.Unmarshal(data, &proj)
	p := &Project{Name: proj.Config.Name}
	p.add(f, filepath.Base(file))
	return p, nil
}

// refPattern reads `ref('orders')`, `ref("orders")` and the two-argument
// form `ref('package', 'orders')`, inside Jinja braces or not.
var refPattern = regexp.MustCompile(`^\s*(?:\{\{\s*)?ref\(\s*(?:['"][^'"]+['"]\s*,\s*)?['"]([^'"]+)['"]\s*(?:,\s*v(?:ersion)?\s*=\s*[^)]*)?\)\s*(?:\}\})?\s*$`)

func (p *Project) add(f rawFile, file string) {
	for i, q := range f.SavedQueries {
		p.Skipped = append(p.Skipped, Unmapped{Path: fmt.Sprintf("%s: saved_queries[%d] (%s)", file, i, q.Name), Why: "saved queries are not imported (an Ossie query names the same metrics and dimensions)"})
	}
	for i, r := range f.SemanticModels {
		sm := SemanticModel{
			Path: fmt.Sprintf("%s: semantic_models[%d] (%s)", file, i, r.Name), Name: r.Name,
			Description: string(r.Description), Label: string(r.Label), PrimaryEntity: string(r.PrimaryEntity),
			Unread: append(r.unknown, r.set()...),
		}
		if r.Defaults != nil {
			sm.AggTime = string(r.Defaults.AggTime)
		}
		if r.NodeRelation != nil {
			sm.Relation = &Relation{Database: string(r.NodeRelation.Database), Schema: r.NodeRelation.SchemaName, Alias: r.NodeRelation.Alias}
		} else if m := refPattern.FindStringSubmatch(string(r.Model)); m != nil {
			sm.Ref = m[1]
		} else if r.Model != "" {
			sm.Unread = append(sm.Unread, "model: "+string(r.Model)+" is not ref('<model>')")
		}
		for _, e := range r.Entities {
			sm.Entities = append(sm.Entities, Entity{Name: e.Name, Type: strings.ToLower(e.Type), Expr: string(e.Expr), Description: string(e.Description), Label: string(e.Label), Role: string(e.Role)})
			sm.Unread = append(sm.Unread, prefixed("entities."+e.Name, append(e.unknown, e.set()...))...)
		}
		for _, d := range r.Dimensions {
			dim := Dimension{Name: d.Name, Type: strings.ToLower(d.Type), Expr: string(d.Expr), Description: string(d.Description), Label: string(d.Label)}
			unread := append(d.unknown, d.set()...)
			if tp := d.TypeParams; tp != nil {
				dim.Granularity = strings.ToLower(string(tp.TimeGranularity))
				dim.Validity = len(tp.ValidityParams) > 0 && string(tp.ValidityParams) != "null"
				unread = append(unread, prefixed("type_params", tp.unknown)...)
			}
			sm.Dimensions = append(sm.Dimensions, dim)
			sm.Unread = append(sm.Unread, prefixed("dimensions."+d.Name, unread)...)
		}
		for _, m := range r.Measures {
			ms := Measure{Name: m.Name, Agg: strings.ToLower(m.Agg), Expr: string(m.Expr), Description: string(m.Description), Label: string(m.Label), CreateMetric: m.CreateMetric, AggTime: string(m.AggTime)}
			unread := append(m.unknown, m.set()...)
			if ap := m.AggParams; ap != nil {
				if ap.Percentile != nil {
					ms.Percentile = *ap.Percentile
				}
				ms.Discrete, ms.Approximate = ap.Discrete, ap.Approximate
				unread = append(unread, prefixed("agg_params", ap.unknown)...)
			}
			if na := m.NonAdditive; na != nil {
				ms.NonAdditive = &NonAdditive{Name: na.Name, WindowChoice: strings.ToLower(na.WindowChoice), WindowGroupings: na.WindowGroupings}
				unread = append(unread, prefixed("non_additive_dimension", na.unknown)...)
			}
			sm.Measures = append(sm.Measures, ms)
			sm.Unread = append(sm.Unread, prefixed("measures."+m.Name, unread)...)
		}
		p.SemanticModels = append(p.SemanticModels, sm)
	}
	for i, r := range f.Metrics {
		tp := r.TypeParams
		m := Metric{
			Path: fmt.Sprintf("%s: metrics[%d] (%s)", file, i, r.Name), Name: r.Name, Type: strings.ToLower(r.Type),
			Description: string(r.Description), Label: string(r.Label), Filter: r.Filter,
			Measure: tp.Measure.input(), Numerator: tp.Numerator.input(), Denominator: tp.Denominator.input(),
			Expr: string(tp.Expr), GrainToDate: strings.ToLower(string(tp.GrainToDate)),
			Unread: append(append(r.unknown, r.set()...), prefixed("type_params", tp.unknown)...),
		}
		if r.TimeGranularity != "" {
			m.Unread = append(m.Unread, "time_granularity")
		}
		for _, in := range tp.Metrics {
			m.Inputs = append(m.Inputs, *in.input())
		}
		if tp.Window != nil {
			w := tp.Window.Window
			m.Window = &w
		}
		if c := tp.Cumulative; c != nil {
			if c.Window != nil {
				w := c.Window.Window
				m.Window = &w
			}
			if c.GrainToDate != "" {
				m.GrainToDate = strings.ToLower(string(c.GrainToDate))
			}
			m.PeriodAgg = strings.ToLower(string(c.PeriodAgg))
			m.Unread = append(m.Unread, prefixed("type_params.cumulative_type_params", c.unknown)...)
		}
		if c := tp.Conversion; c != nil {
			conv := &Conversion{Entity: c.Entity, Calculation: strings.ToLower(string(c.Calculation)), ConstantProperties: len(c.ConstantProperties)}
			if c.BaseMeasure != nil {
				conv.Base = *c.BaseMeasure.input()
			}
			if c.ConversionMeasure != nil {
				conv.Conversion = *c.ConversionMeasure.input()
			}
			if c.Window != nil {
				w := c.Window.Window
				conv.Window = &w
			}
			m.Conversion = conv
			m.Unread = append(m.Unread, prefixed("type_params.conversion_type_params", c.unknown)...)
		}
		p.Metrics = append(p.Metrics, m)
	}
}

// nonEmpty returns the names of the given (name, value) pairs whose value
// is present and not null or an empty object.
func nonEmpty(pairs ...any) []string {
	var out []string
	for i := 0; i+1 < len(pairs); i += 2 {
		var b bytes.Buffer
		_ = json.Compact(&b, pairs[i+1].(json.RawMessage))
		if v := b.String(); v != "" && v != "null" && v != "{}" && v != `{"meta":{}}` {
			out = append(out, pairs[i].(string))
		}
	}
	return out
}

func prefixed(prefix string, keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = prefix + "." + k
	}
	return out
}
