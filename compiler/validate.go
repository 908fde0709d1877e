package compiler

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/compiler/expr"
)

// Validate checks a parsed document against the model rules of DESIGN.md
// section 3 and returns every problem at once, sorted (line, column, path,
// code). It is pure and deterministic. An empty result, or one holding only
// warnings, means the document compiles. The rules, by concern:
//   - names (validate_names.go): non-empty, at most 128 characters, unique
//     per model (datasets, metrics, relationships) and per dataset (fields);
//     key columns are fields or physical columns (checked at bind);
//   - sources (source.go): readable as a table path, a query or a data file;
//   - relationships (validate_relationships.go): existing datasets, equal
//     column counts, to_columns a declared key of `to`;
//   - join graph (validate_graph.go): a tree;
//   - expressions (validate_exprs.go): a portable dialect entry that parses,
//     fields scalar over bare columns;
//   - metrics (validate_metrics.go): aggregate or combine metrics, resolved
//     references, no nested aggregates, no cycles, connected datasets.
func Validate(p *Parsed) Problems {
	a := analyze(p)
	return a.probs
}

// maxNameLen is the identifier limit of the Ossie expression language
// (OSSIE.md, "identifiers up to 128 characters").
const maxNameLen = 128

// analysis is the result of checking a document, kept so that Compile does
// not parse or resolve anything twice.
type analysis struct {
	doc    *ossie.Document
	models []*modelCheck
	probs  Problems
}

// modelCheck holds the indexes and intermediate results for one
// semantic_model entry; every lookup is a map so that validation stays
// linear in the size of the model.
type modelCheck struct {
	p     *Parsed
	m     *ossie.SemanticModel
	base  string // "semantic_model[i]"
	probs *Problems

	datasets      nameIndex
	fields        []nameIndex // per dataset
	metrics       nameIndex
	fieldOwners   map[string][]int // exact field name -> datasets declaring it
	foldedOwners  map[string][]fieldAt
	sources       []ResolvedSource
	fieldExprs    [][]checkedExpr // per dataset, per field
	metricExprs   []checkedMetric
	relPhysical   []relColumns       // per relationship: columns that name no field
	keyPhysical   [][]string         // per dataset: key columns that name no field
	metricColumns map[int][]expr.Ref // per dataset: physical columns metrics read (no field)
	fieldZones    [][]string         // per dataset, per field: declared stored time zone
	metricVia     [][]string         // per metric: relationships it pins
	metricTypes   []*MetricType      // per metric, nil when untyped (metric_type.go)
	metricTypeRaw []metricTypeData   // per metric: its OSSIE extension's "metric" value (checkExtensions)
	rollupRaw     metricTypeData     // the model's OSSIE extension's "rollups" value (checkExtensions)
	rollups       []ArtifactRollup   // compiled rollups (rollup.go)
	graph         *joinGraph
	datasetNames  []string
	metricNames   []string
	relationships []bool                // relationship usable in the join graph
	parsed        map[string]parsedExpr // by expression text (preparse)
	governance    *ArtifactGovernance   // this model's share of the governance (governance_validate.go)
}

type fieldAt struct {
	dataset int
	name    string
}

// relColumns records relationship columns that are not fields: DESIGN.md
// section 3 reads them as physical columns of the source, checked at bind.
type relColumns struct {
	from, to []string
}

// checkedExpr is a field or metric expression after dialect selection and
// parsing; ok is false when it had an error (the item is then skipped by
// later rules so that one mistake yields one problem).
type checkedExpr struct {
	ok      bool
	dialect ossie.Dialect
	sql     string
	node    expr.Node
	path    string // of the selected dialect entry's text
}

func analyze(p *Parsed) *analysis {
	a := &analysis{}
	if p == nil || p.Doc == nil {
		a.probs = Problems{{Code: CodeEmpty, Severity: SeverityError, Message: "no document to validate"}}
		return a
	}
	a.doc = p.Doc
	if !slices.Contains(ossie.SupportedVersions, p.Doc.Version) {
		a.probs = append(a.probs, p.At(CodeUnsupportedVersion, SeverityError, "version",
			fmt.Sprintf("version %q is not read by this build; supported versions: %s", p.Doc.Version, strings.Join(ossie.SupportedVersions, ", "))))
	}
	if len(p.Doc.SemanticModel) == 0 {
		a.probs = append(a.probs, p.At(CodeEmpty, SeverityError, "semantic_model", "the document defines no semantic_model"))
	}
	parsed := preparse(a)
	models := nameIndex{}
	for i := range p.Doc.SemanticModel {
		m := &p.Doc.SemanticModel[i]
		base := fmt.Sprintf("semantic_model[%d]", i)
		if checkName(p, &a.probs, base+".name", "semantic model", m.Name) {
			if first, dup := models.add(m.Name, i); dup {
				a.probs = append(a.probs, p.At(CodeDuplicateName, SeverityError, base+".name",
					fmt.Sprintf("semantic model name %q is already used by semantic_model[%d]", m.Name, first)))
			}
		}
		mc := &modelCheck{p: p, m: m, base: base, probs: &a.probs, parsed: parsed}
		mc.run()
		a.models = append(a.models, mc)
	}
	a.checkGovernance(p.Governance)
	a.probs.Sort()
	return a
}

// run applies every rule to one model, in dependency order: names and
// indexes first, then sources, relationships and the join graph, then
// expressions (fields before metrics, which refer to fields).
func (mc *modelCheck) run() {
	mc.indexNames()
	mc.checkSources()
	mc.checkKeys()
	mc.checkRelationships()
	mc.buildGraph()
	mc.checkFields()
	mc.checkMetrics()
	mc.checkExtensions()
	mc.checkMetricTypes()
	mc.checkRollups()
}

func (mc *modelCheck) add(code string, sev Severity, path, msg string) {
	*mc.probs = append(*mc.probs, mc.p.At(code, sev, path, msg))
}

func (mc *modelCheck) errorf(code, path, format string, args ...any) {
	mc.add(code, SeverityError, path, fmt.Sprintf(format, args...))
}

func (mc *modelCheck) datasetPath(d int) string {
	return fmt.Sprintf("%s.datasets[%d]", mc.base, d)
}

func (mc *modelCheck) fieldPath(d, f int) string {
	return fmt.Sprintf("%s.datasets[%d].fields[%d]", mc.base, d, f)
}

func (mc *modelCheck) metricPath(m int) string {
	return fmt.Sprintf("%s.metrics[%d]", mc.base, m)
}

func (mc *modelCheck) relPath(r int) string {
	return fmt.Sprintf("%s.relationships[%d]", mc.base, r)
}

// hint renders a did-you-mean suffix, or "" when nothing is close.
func hint(name string, candidates []string) string {
	if s := DidYouMean(name, candidates); s != "" {
		return fmt.Sprintf("; did you mean %q?", s)
	}
	return ""
}

// nameIndex maps names to their first position, with a case-folded view for
// unquoted SQL identifiers (which the expression parser folds to lower case).
type nameIndex struct {
	exact  map[string]int
	folded map[string][]int
}

// add records name at i and, when name was already present, returns the
// first position and true (the duplicate is not indexed).
func (x *nameIndex) add(name string, i int) (int, bool) {
	if x.exact == nil {
		x.exact = map[string]int{}
		x.folded = map[string][]int{}
	}
	if first, ok := x.exact[name]; ok {
		return first, true
	}
	x.exact[name] = i
	k := strings.ToLower(name)
	x.folded[k] = append(x.folded[k], i)
	return 0, false
}

// find looks name up exactly and, for an unquoted identifier, by case-
// insensitive match when exactly one name matches that way.
func (x *nameIndex) find(name string, quoted bool) (int, bool) {
	if i, ok := x.exact[name]; ok {
		return i, true
	}
	if !quoted {
		if is := x.folded[strings.ToLower(name)]; len(is) == 1 {
			return is[0], true
		}
	}
	return 0, false
}
