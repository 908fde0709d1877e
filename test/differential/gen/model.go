package gen

import (
	"math/rand"
	"time"

	"github.com/ossie-dev/ossie/test/differential/dcase"
	"github.com/ossie-dev/ossie/test/reference"
)

// builder accumulates one case.
type builder struct {
	r *rand.Rand
	// tz draws whether a timestamp time field declares its datatype. It
	// is a stream of its own (version 3), so that the draws of r, and with
	// them every other part of a version 2 case, stay as they were.
	tz *rand.Rand
	// v4 draws the variants of version 4 (variants.go), a stream of its
	// own for the same reason.
	v4 *rand.Rand
	// pr draws the parallel relationships and the vias of their members
	// (version 4, paths.go): a stream of its own for the same reason.
	pr *rand.Rand
	// x draws the parts version 4 added (conversion counts and
	// filters, queries without metrics across datasets), a stream of its
	// own for the same reason.
	x      *rand.Rand
	o      Options
	shape  string
	m      reference.Model
	tables []dcase.Table
	fields []fieldInfo
	span   timeSpan
	scale  string // the grain windowed queries use: hour, day or month scale
	gov    *reference.Governance
	caller *dcase.Caller
	// metric kinds, by name, for the query generator
	plain, typed, semi, conv []string
	hasG, hasD2, hasD3       bool
	parallel                 bool // fact reaches d1 along two relationships (paths.go)
}

// fieldInfo is what the query generator knows of a field.
type fieldInfo struct {
	ds, name string
	ct       dcase.ColumnType
	isTime   bool
	key      bool
	values   []any // the distinct non-NULL values of its column
}

func (f fieldInfo) member() string { return f.ds + "." + f.name }

// column is one generated column: its type and a value per row.
type column struct {
	name, field string
	ct          dcase.ColumnType
	isTime      bool
	key         bool
	zone        string // stored zone of a naive timestamp ("" UTC)
	vals        []any
}

// dataset adds a dataset over a new table of the given columns.
func (b *builder) dataset(name string, pk bool, cols []column) {
	t := dcase.Table{Name: "t_" + name}
	d := reference.Dataset{Name: name, Table: t.Name}
	if pk {
		d.PrimaryKey = []string{"id"}
	}
	n := len(cols[0].vals)
	for _, c := range cols {
		t.Columns = append(t.Columns, dcase.Column{Name: c.name, Type: c.ct})
		f := reference.Field{Name: c.field, Column: c.name, IsTime: c.isTime, Timezone: c.zone}
		if b.declare(c) {
			f.Datatype = reference.DatatypeOf(c.ct)
		}
		d.Fields = append(d.Fields, f)
		fi := fieldInfo{ds: name, name: c.field, ct: c.ct, isTime: c.isTime, key: c.key}
		seen := map[any]bool{}
		for _, v := range c.vals {
			if v != nil && !seen[v] {
				seen[v] = true
				fi.values = append(fi.values, v)
			}
		}
		b.fields = append(b.fields, fi)
	}
	for i := 0; i < n; i++ {
		row := make([]any, len(cols))
		for j, c := range cols {
			row[j] = c.vals[i]
		}
		t.Rows = append(t.Rows, row)
	}
	b.tables = append(b.tables, t)
	b.m.Datasets = append(b.m.Datasets, d)
}

// declare: whether the document states c's datatype. Left out often,
// time fields included: the engine's type must then be used.
func (b *builder) declare(c column) bool {
	if c.isTime && c.ct != dcase.Date {
		return chance(b.tz, 0.5)
	}
	return chance(b.r, 0.5)
}

func (b *builder) ids(n int) column {
	c := column{name: "id", field: "id", ct: dcase.Integer, key: true}
	for i := 1; i <= n; i++ {
		c.vals = append(c.vals, int64(i))
	}
	return c
}

// fk is a foreign key column of n rows into ids 1..m: some unmatched
// (m+1), some NULL.
func (b *builder) fk(name string, n, m int) column { return fkFrom(b.r, name, n, m) }

func (b *builder) nulls(p float64, n int, gen func() any) []any {
	out := make([]any, n)
	for i := range out {
		if !chance(b.r, p) {
			out[i] = gen()
		}
	}
	return out
}

func (b *builder) numberCol(name string, ct dcase.ColumnType, n int) column {
	return column{name: "c_" + name, field: name, ct: ct, vals: b.nulls(0.15, n, func() any { return numberValue(b.r, ct) })}
}

func (b *builder) textCol(name string, n, distinct int) column {
	ws := words[:distinct]
	return column{name: "c_" + name, field: name, ct: dcase.Varchar, vals: b.nulls(0.1, n, func() any { return pick(b.r, ws) })}
}

// timeCol is a time column of type ct; a naive one is sometimes stored in
// Europe/Amsterdam (declared by the field's OSSIE timezone).
func (b *builder) timeCol(name string, ct dcase.ColumnType, n int, nullP float64) column {
	c := column{name: "c_" + name, field: name, ct: ct, isTime: true}
	stored := time.UTC
	if ct == dcase.Timestamp && chance(b.r, 0.35) {
		c.zone = "Europe/Amsterdam"
		stored, _ = time.LoadLocation(c.zone)
	}
	c.vals = b.nulls(nullP, n, func() any {
		for {
			if v := timeValue(ct, b.span.instant(b.r), stored); v != nil {
				return v
			}
		}
	})
	return c
}

var timeTypes = []dcase.ColumnType{dcase.Date, dcase.Timestamp, dcase.TimestampTz}
var numberTypes = []dcase.ColumnType{dcase.Integer, dcase.Double, dcase.Decimal}

// model draws the shape, the tables and the relationships.
func (b *builder) model() {
	r := b.r
	b.m.Name = "g"
	b.scale = pick(r, []string{"hour", "day", "month"})
	spread := map[string]time.Duration{"hour": 30 * time.Hour, "day": 18 * 24 * time.Hour, "month": 420 * 24 * time.Hour}[b.scale]
	b.span = timeSpan{anchor: pick(r, anchors), spread: spread}
	b.shape = b.o.Shape
	if b.shape == "" {
		b.shape = pick(r, []string{"fact", "star2", "star3", "snow", "constellation"})
	}
	nf := 10 + r.Intn(15)
	nd1 := 3 + r.Intn(4)
	factCols := []column{b.ids(nf)}
	if b.shape != "fact" {
		factCols = append(factCols, b.fk("d1_id", nf, nd1))
	}
	nd2 := 2 + r.Intn(3)
	if b.shape == "star3" {
		b.hasD2 = true
		factCols = append(factCols, b.fk("d2_id", nf, nd2))
	}
	if c, ok := b.parallelPaths(nf, nd1); ok {
		factCols = append(factCols, c)
	}
	atType := pick(r, timeTypes)
	factCols = append(factCols,
		b.numberCol("amount", pick(r, numberTypes), nf),
		b.numberCol("qty", dcase.Integer, nf),
		b.textCol("cat", nf, 4),
		column{name: "c_flag", field: "flag", ct: dcase.Boolean, vals: b.nulls(0.1, nf, func() any { return chance(r, 0.5) })},
		b.timeCol("at", atType, nf, 0.08),
	)
	b.dataset("fact", true, factCols)
	if b.shape == "fact" {
		return
	}
	d1 := []column{b.ids(nd1), b.textCol("name", nd1, 3), b.numberCol("tier", dcase.Integer, nd1)}
	nd3 := 2 + r.Intn(2)
	if b.shape == "snow" {
		b.hasD3 = true
		d1 = append(d1, b.fk("d3_id", nd1, nd3))
	}
	b.dataset("d1", true, d1)
	b.rel(relD1, "fact", "d1_id", "d1")
	if b.parallel {
		b.rel(relD1Alt, "fact", "d1_alt_id", "d1")
	}
	if b.hasD2 {
		b.dataset("d2", true, []column{b.ids(nd2), b.textCol("label", nd2, 3)})
		b.rel("fact_d2", "fact", "d2_id", "d2")
	}
	if b.hasD3 {
		b.dataset("d3", true, []column{b.ids(nd3), b.textCol("region", nd3, 2)})
		b.rel("d1_d3", "d1", "d3_id", "d3")
	}
	if b.shape == "constellation" {
		b.hasG = true
		ng := 6 + r.Intn(10)
		b.dataset("g", chance(r, 0.8), []column{b.ids(ng), b.fk("d1_id", ng, nd1), b.numberCol("val", pick(r, numberTypes), ng), b.timeCol("at", atType, ng, 0.1)})
		b.rel("g_d1", "g", "d1_id", "d1")
	}
}

func (b *builder) rel(name, from, fk, to string) {
	b.m.Relationships = append(b.m.Relationships, reference.Relationship{Name: name, From: from, To: to, FromColumns: []string{fk}, ToColumns: []string{"id"}})
}

// field is the generated field info of ds.name.
func (b *builder) field(member string) *fieldInfo {
	for i := range b.fields {
		if b.fields[i].member() == member {
			return &b.fields[i]
		}
	}
	return nil
}
