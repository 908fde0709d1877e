package compiler

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/ossie-dev/ossie/compiler/expr"
)

// Rollup refresh modes (docs/rollups.md).
const (
	RollupReconcile   = "reconcile"   // rebuilt when the model or its sources change
	RollupSchedule    = "schedule"    // rebuilt every Every
	RollupIncremental = "incremental" // the last Lookback partitions rebuilt every Every
)

// How a measure is re-aggregated from a rollup's columns
// (RollupMeasure.Reaggregate).
const (
	ReaggSum           = "sum"            // SUM of the partial (SUM and COUNT partials)
	ReaggMin           = "min"            // MIN of the partial
	ReaggMax           = "max"            // MAX of the partial
	ReaggAvg           = "avg"            // SUM of the sum partial divided by SUM of the count partial
	ReaggCountDistinct = "count_distinct" // COUNT(DISTINCT) of the kept key's group-by column
)

// ArtifactRollup is a compiled rollup (pre-aggregation) of the model,
// declared under the key "rollups" of the model's OSSIE custom extension
// (schema/rollup.v1.schema.json, docs/rollups.md). The operator
// materializes it as table Table, whose columns are Columns in order; the
// planner answers a query from it only when the answer is provably the
// base tables' (compiler/plan, rewrite_rollup.go).
type ArtifactRollup struct {
	Name string `json:"name"`
	// Table is the table's name (unqualified: the operator's write schema
	// holds it): ossie_rollup_<model>_<name>_<first 8 hex digits of the
	// sha256 of the definition>, lower case, at most 63 characters. The
	// definition is everything that decides the table's content (members,
	// grains, partial aggregates, the fields' expressions and stored zones,
	// the sources and relationships), not the refresh policy: a changed definition is a new
	// table, never a stale one read as current.
	Table string `json:"table"`
	// Metrics are the metric names the rollup serves, as declared.
	Metrics []string `json:"metrics"`
	// Dimensions are the group-by members kept as they are, "dataset.field".
	Dimensions []string `json:"dimensions,omitempty"`
	// Time is the time dimension and its grain; nil when there is none.
	Time *RollupTime `json:"time,omitempty"`
	// PartitionGrain partitions the table by Time's column ("" none).
	PartitionGrain string        `json:"partition_grain,omitempty"`
	Refresh        RollupRefresh `json:"refresh"`
	// Columns are the table's columns in order: the group-by columns (the
	// dimensions, then the time dimension at its grain), then the partial
	// aggregates.
	Columns []RollupColumn `json:"columns"`
	// Measures are the metrics' aggregates and how each is re-aggregated
	// from Columns.
	Measures []RollupMeasure `json:"measures"`
}

// RollupTime is a rollup's time dimension, "dataset.field", kept at Grain
// (hour, day, week, month, quarter, year).
type RollupTime struct {
	Field string `json:"field"`
	Grain string `json:"grain"`
}

// RollupRefresh is when a rollup is rebuilt: Mode is RollupReconcile,
// RollupSchedule or RollupIncremental; Every ("15m", "1h", "1d"; required
// but for reconcile) is also the age past which a build is stale; Lookback
// is how many of the latest partitions an incremental refresh rebuilds.
type RollupRefresh struct {
	Mode     string `json:"mode"`
	Every    string `json:"every,omitempty"`
	Lookback int    `json:"lookback,omitempty"`
}

// EveryDuration is Every as a duration; 0 when Every is "" (or, never for
// a compiled rollup, malformed).
func (r RollupRefresh) EveryDuration() time.Duration {
	if len(r.Every) < 2 {
		return 0
	}
	n, err := strconv.Atoi(r.Every[:len(r.Every)-1])
	if err != nil {
		return 0
	}
	unit := map[byte]time.Duration{'m': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour}[r.Every[len(r.Every)-1]]
	return time.Duration(n) * unit
}

// RollupColumn is one column of a rollup's table. A group-by column has
// Member ("dataset.field") and, for the time dimension, Grain; a partial
// column has Aggregate, the aggregate call computed at build (SUM, COUNT,
// MIN or MAX), and Metric, a metric in which the call occurs (whose
// rows_of a COUNT(*) counts).
type RollupColumn struct {
	Name      string     `json:"name"`
	Member    string     `json:"member,omitempty"`
	Grain     string     `json:"grain,omitempty"`
	Aggregate *expr.Expr `json:"aggregate,omitempty"`
	Metric    string     `json:"metric,omitempty"`
}

// RollupMeasure is one aggregate call of the rollup's metrics, as the
// metric writes it (Aggregate, occurring in Metric), and how its value is
// re-aggregated (Reaggregate, one of the Reagg constants) from the named
// Columns: the partial for sum, min and max; the sum then the count
// partial for avg; the kept key's group-by column for count_distinct.
type RollupMeasure struct {
	Aggregate   expr.Expr `json:"aggregate"`
	Metric      string    `json:"metric"`
	Reaggregate string    `json:"reaggregate"`
	Columns     []string  `json:"columns"`
}

// Rollup returns the rollup named name, or nil.
func (a *Artifact) Rollup(name string) *ArtifactRollup {
	for i := range a.Rollups {
		if a.Rollups[i].Name == name {
			return &a.Rollups[i]
		}
	}
	return nil
}

// GroupColumn returns the group-by column holding member ("dataset.field";
// the time dimension's column when it is Time.Field), or nil.
func (r *ArtifactRollup) GroupColumn(member string) *RollupColumn {
	for i := range r.Columns {
		if r.Columns[i].Member == member {
			return &r.Columns[i]
		}
	}
	return nil
}

// GrainNests reports whether every period of grain coarse is a whole
// number of periods of grain fine (both among hour, day, week, month,
// quarter, year), so values at fine re-aggregate to coarse: any grain to
// itself, hour and day to every coarser grain, month to quarter and year,
// quarter to year; weeks (ISO) nest in no month, quarter or year.
func GrainNests(fine, coarse string) bool {
	if fine == coarse {
		return true
	}
	order := []string{"hour", "day", "week", "month", "quarter", "year"}
	i, j := slices.Index(order, fine), slices.Index(order, coarse)
	switch {
	case i < 0 || j <= i:
		return false
	case fine == "hour" || fine == "day":
		return true
	case fine == "week":
		return false
	}
	return coarse != "week"
}

// RollupSchemaJSON is the JSON Schema (draft 2020-12) of the "rollups"
// value, version 1, published for editors and other tools.
//
//go:embed schema/rollup.v1.schema.json
var RollupSchemaJSON []byte

var rollupSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	return compileSchema("https://ossie.dev/schema/rollup.v1.schema.json", RollupSchemaJSON)
})

// rollupDecl is one declared rollup, after the schema check.
type rollupDecl struct {
	Version       int         `json:"version"`
	Name          string      `json:"name"`
	Measures      []string    `json:"measures"`
	Dimensions    []string    `json:"dimensions"`
	TimeDimension *RollupTime `json:"time_dimension"`
	Partition     string      `json:"partition_grain"`
	Refresh       *struct {
		Mode     string `json:"mode"`
		Every    string `json:"every"`
		Lookback int    `json:"lookback"`
	} `json:"refresh"`
}

const rollupHelp = "lookback applies to refresh mode incremental only (docs/rollups.md)"

// checkRollups validates the model's rollups (the "rollups" key of its
// OSSIE extension) and compiles them into mc.rollups. Problems: OSS2050
// (a schema violation, at its path), OSS2051 (two rollups with one name),
// OSS2052 (a metric or dimension that does not exist), OSS2053 (a time
// dimension that is not a time field, a partition grain the time grain
// does not nest in, partitions without a time dimension, incremental
// refresh without partitions), OSS2054 (an aggregate that cannot be
// re-aggregated from partial results), OSS2055 (a dimension no
// relationship path joins to a dataset a metric reads).
func (mc *modelCheck) checkRollups() {
	raw := mc.rollupRaw
	if raw.raw == nil || !mc.checkSchema(rollupSchema, CodeRollupSchema, raw.path, raw.raw, rollupHelp) {
		return
	}
	var decls []rollupDecl
	if err := json.Unmarshal(raw.raw, &decls); err != nil {
		mc.errorf(CodeRollupSchema, raw.path, "%v", err)
		return
	}
	names := map[string]int{}
	for i := range decls {
		path := raw.path + "[" + strconv.Itoa(i) + "]"
		if first, dup := names[decls[i].Name]; dup {
			mc.errorf(CodeRollupDuplicate, path+".name", "rollup name %q is already used by rollup %d", decls[i].Name, first)
			continue
		}
		names[decls[i].Name] = i
		if r, ok := mc.rollup(path, &decls[i]); ok {
			mc.rollups = append(mc.rollups, r)
		}
	}
}

// rollup checks one declaration and compiles it; ok is false when it had
// a problem (reported).
func (mc *modelCheck) rollup(path string, d *rollupDecl) (ArtifactRollup, bool) {
	before := len(*mc.probs)
	r := ArtifactRollup{Name: d.Name, Metrics: d.Measures, Dimensions: d.Dimensions, PartitionGrain: d.Partition,
		Refresh: RollupRefresh{Mode: RollupReconcile}}
	if d.Refresh != nil {
		r.Refresh = RollupRefresh{Mode: d.Refresh.Mode, Every: d.Refresh.Every, Lookback: d.Refresh.Lookback}
		if r.Refresh.Mode == RollupIncremental && r.Refresh.Lookback == 0 {
			r.Refresh.Lookback = 1
		}
	}
	for i, m := range d.Dimensions {
		if mc.member(m) < 0 {
			mc.errorf(CodeRollupMember, path+".dimensions["+strconv.Itoa(i)+"]", "dimension %s does not exist%s", m, hint(m, mc.memberNames()))
		}
		r.Columns = append(r.Columns, RollupColumn{Name: "d" + strconv.Itoa(i), Member: m})
	}
	if t := d.TimeDimension; t != nil {
		switch mc.member(t.Field) {
		case -1:
			mc.errorf(CodeRollupMember, path+".time_dimension.field", "time dimension %s does not exist%s", t.Field, hint(t.Field, mc.memberNames()))
		case 0:
			mc.errorf(CodeRollupGrain, path+".time_dimension.field", "%s is not a time field; a time dimension with a grain needs one", t.Field)
		}
		r.Time = &RollupTime{Field: t.Field, Grain: t.Grain}
		r.Columns = append(r.Columns, RollupColumn{Name: "d" + strconv.Itoa(len(d.Dimensions)), Member: t.Field, Grain: t.Grain})
	}
	switch {
	case d.Partition != "" && d.TimeDimension == nil:
		mc.errorf(CodeRollupGrain, path+".partition_grain", "partitions are periods of the time dimension; declare time_dimension")
	case d.Partition != "" && !GrainNests(d.TimeDimension.Grain, d.Partition):
		mc.errorf(CodeRollupGrain, path+".partition_grain", "a %s partition does not hold whole %s periods of the time dimension", d.Partition, d.TimeDimension.Grain)
	}
	if r.Refresh.Mode == RollupIncremental && d.Partition == "" {
		mc.errorf(CodeRollupGrain, path+".refresh.mode", "incremental refresh rebuilds the latest partitions; declare partition_grain")
	}
	mc.rollupMeasures(path, &r)
	mc.rollupJoins(path, d)
	return r, len(*mc.probs) == before // Table is named at compile (rollupTable)
}

// rollupJoins requires every dimension to be joinable to every dataset
// the rollup's metrics read, by one join path (OSS2055): the build groups
// each metric's rows by every dimension, and its partials are no metric
// that could pin one of several paths.
func (mc *modelCheck) rollupJoins(path string, d *rollupDecl) {
	members := slices.Clone(d.Dimensions)
	if d.TimeDimension != nil {
		members = append(members, d.TimeDimension.Field)
	}
	for i, m := range members {
		ds, _, _ := strings.Cut(m, ".")
		di, ok := mc.datasets.find(ds, true)
		if !ok {
			continue // reported
		}
		where := path + ".dimensions[" + strconv.Itoa(i) + "]"
		if i == len(d.Dimensions) {
			where = path + ".time_dimension.field"
		}
		for _, name := range d.Measures {
			k, ok := mc.metrics.find(name, true)
			if !ok {
				continue
			}
			for _, read := range mc.metricExprs[k].datasets {
				ri, ok := mc.datasets.find(read, true)
				if !ok {
					continue
				}
				if !mc.graph.connected(di, ri) {
					mc.errorf(CodeRollupUnjoinable, where, "%s cannot be joined to dataset %s, which metric %s reads: no relationship path connects them", m, read, name)
					return
				}
				for _, c := range mc.graph.choices {
					if c.from == ri && mc.graph.directedPath(c.to, di) != nil {
						mc.errorf(CodeRollupUnjoinable, where, "%s is joined to dataset %s, which metric %s reads, by one of several many-to-one paths to %s; a rollup cannot choose one yet", m, read, name, mc.m.Datasets[c.to].Name)
						return
					}
				}
			}
		}
	}
}

// member classifies "dataset.field": -1 no such declared field, 0 a field,
// 1 a time field.
func (mc *modelCheck) member(m string) int {
	ds, f, _ := strings.Cut(m, ".")
	d, ok := mc.datasets.find(ds, true)
	if !ok {
		return -1
	}
	fi, ok := mc.fields[d].exact[f]
	if !ok {
		return -1
	}
	if mc.m.Datasets[d].Fields[fi].IsTime() {
		return 1
	}
	return 0
}

func (mc *modelCheck) memberNames() []string {
	var out []string
	for _, ds := range mc.m.Datasets {
		for _, f := range ds.Fields {
			out = append(out, ds.Name+"."+f.Name)
		}
	}
	return out
}

// rollupMeasures collects the aggregate calls of r's metrics (through the
// metrics they refer to) and how each re-aggregates, adding the partial
// columns.
func (mc *modelCheck) rollupMeasures(path string, r *ArtifactRollup) {
	partials := map[string]string{} // partial key → column
	seen := map[string]bool{}
	partial := func(f expr.Func, metric, key string) string {
		if col, ok := partials[key]; ok {
			return col
		}
		col := "m" + strconv.Itoa(len(partials))
		partials[key] = col
		e := expr.Expr{Node: f}
		r.Columns = append(r.Columns, RollupColumn{Name: col, Aggregate: &e, Metric: metric})
		return col
	}
	for i, name := range r.Metrics {
		mpath := path + ".measures[" + strconv.Itoa(i) + "]"
		k, ok := mc.metrics.find(name, true)
		if !ok {
			mc.errorf(CodeRollupMember, mpath, "metric %s does not exist%s", name, hint(name, mc.metricNames))
			continue
		}
		if t := mc.metricTypes[k]; t != nil && (t.Type == MetricSemi || t.Type == MetricConversion) {
			mc.errorf(CodeRollupNotReaggregatable, mpath, "metric %s is a %s metric%s; its value cannot be re-aggregated from partial results", name, t.Type, perNote(t))
			continue
		}
		mc.eachAggregate(k, map[int]bool{}, func(metric int, f expr.Func) {
			rowsOf := ""
			if s := mc.metricExprs[metric].star; s >= 0 {
				rowsOf = mc.m.Datasets[s].Name
			}
			owner := mc.m.Metrics[metric].Name
			text := expr.Format(f)
			key := text + "\x00" + rowsOf
			if seen[key] {
				return
			}
			seen[key] = true
			rm := RollupMeasure{Aggregate: expr.Expr{Node: f}, Metric: owner}
			fn := strings.ToUpper(f.Name)
			switch {
			case fn == "COUNT" && f.Distinct:
				ref, isRef := derefNode(f.Args).(expr.Ref)
				col := r.GroupColumn(ref.Qualifier + "." + ref.Name)
				if !isRef || col == nil || col.Grain != "" || f.Filter != nil {
					mc.errorf(CodeRollupNotReaggregatable, mpath, "metric %s: %s is re-aggregatable only when it counts a field (without FILTER) that the rollup keeps as one of its dimensions", name, text)
					return
				}
				rm.Reaggregate, rm.Columns = ReaggCountDistinct, []string{col.Name}
			case f.Distinct || f.WithinGroup != nil:
				mc.errorf(CodeRollupNotReaggregatable, mpath, "metric %s: %s cannot be re-aggregated from partial results", name, text)
				return
			case fn == "SUM" || fn == "COUNT":
				rm.Reaggregate, rm.Columns = ReaggSum, []string{partial(f, owner, key)}
			case fn == "MIN" || fn == "MAX":
				rm.Reaggregate, rm.Columns = strings.ToLower(fn), []string{partial(f, owner, key)}
			case fn == "AVG":
				sum, count := f, f
				sum.Name, count.Name = "SUM", "COUNT"
				rm.Reaggregate = ReaggAvg
				rm.Columns = []string{partial(sum, owner, expr.Format(sum)+"\x00"+rowsOf), partial(count, owner, expr.Format(count)+"\x00"+rowsOf)}
			default:
				mc.errorf(CodeRollupNotReaggregatable, mpath, "metric %s: %s cannot be re-aggregated from partial results (SUM, COUNT, MIN, MAX and AVG can; COUNT(DISTINCT x) with x a dimension of the rollup)", name, text)
				return
			}
			r.Measures = append(r.Measures, rm)
		})
	}
}

// derefNode is the one argument of an aggregate call, or nil.
func derefNode(args []expr.Node) expr.Node {
	if len(args) != 1 {
		return nil
	}
	if r, ok := args[0].(*expr.Ref); ok {
		return *r
	}
	return args[0]
}

// eachAggregate calls fn for every aggregate call of metric k and of the
// metrics it refers to, with the metric the call occurs in.
func (mc *modelCheck) eachAggregate(k int, visiting map[int]bool, fn func(metric int, f expr.Func)) {
	if visiting[k] || !mc.metricExprs[k].ok {
		return
	}
	visiting[k] = true
	expr.Walk(mc.metricExprs[k].node, func(n expr.Node) bool {
		switch n := n.(type) {
		case expr.Func:
			if info, ok := expr.Lookup(n.Name); ok && info.Aggregate {
				fn(k, n)
				return false
			}
		case expr.Ref:
			if n.Qualifier == "" {
				if j, ok := mc.metrics.find(n.Name, n.Quoted); ok {
					mc.eachAggregate(j, visiting, fn)
				}
			}
		}
		return true
	})
}

// rollupTable names r's table from its definition (ArtifactRollup.Table)
// in art, whose datasets, fields and relationships are complete: sources
// with the install defaults, fields with their stored zones.
func rollupTable(art *Artifact, r *ArtifactRollup) string {
	def := struct {
		Name       string                 `json:"name"`
		Dimensions []string               `json:"dimensions"`
		Time       *RollupTime            `json:"time"`
		Partition  string                 `json:"partition"`
		Columns    []string               `json:"columns"`
		Fields     map[string]string      `json:"fields"`
		Sources    []ResolvedSource       `json:"sources"`
		Relations  []ArtifactRelationship `json:"relationships"`
	}{Name: r.Name, Dimensions: r.Dimensions, Time: r.Time, Partition: r.PartitionGrain,
		Fields: map[string]string{}, Relations: art.Relationships}
	for _, c := range r.Columns {
		if c.Aggregate != nil {
			def.Columns = append(def.Columns, c.Name+"="+expr.Format(c.Aggregate.Node)+"@"+c.Metric)
		} else {
			def.Columns = append(def.Columns, c.Name+"="+c.Member+"@"+c.Grain)
		}
	}
	for _, ds := range art.Datasets {
		def.Sources = append(def.Sources, ds.Source)
		for _, f := range ds.Fields {
			def.Fields[ds.Name+"."+f.Name] = expr.Format(f.Expr.Node) + "@" + f.StoredTimezone
		}
	}
	b, _ := json.Marshal(def) // plain strings and artifact types: always encodable
	sum := sha256.Sum256(b)
	base := "ossie_rollup_" + slug(art.Name) + "_" + slug(r.Name)
	if len(base) > 54 {
		base = base[:54]
	}
	return base + "_" + hex.EncodeToString(sum[:4])
}

// slug lower-cases s and replaces every character but a-z, 0-9 and _ by _.
func slug(s string) string {
	b := []byte(strings.ToLower(s))
	for i, c := range b {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			b[i] = '_'
		}
	}
	return string(b)
}

// String names the rollup's time dimension at its grain, "dataset.field.grain".
func (t RollupTime) String() string { return fmt.Sprintf("%s.%s", t.Field, t.Grain) }
