package pgwire

import (
	"context"
	"strings"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/server"
)

// A model as SQL sees it (docs/sql-api.md, "Schemas, tables, columns"):
// the model is a schema holding one table of the same name, whose columns
// are the dimensions and metrics the caller's roles may read. A dimension
// `dataset.field` is the column dataset_field and a metric keeps its own
// name; when two members would get the same column name, both are named
// by their member name instead ("dataset.field", "metric"), so a name
// never means two things.

// column is one column of a model table.
type column struct {
	// Name is the SQL column name.
	Name string
	// Member is the query member: `dataset.field` or the metric name.
	Member string
	// Via is the relationship whose join path the dimension is read
	// along ("" for the model's one path, or the path the metrics pin).
	Via    string
	Metric bool
	// Datatype is the Ossie datatype of the values (String for a masked
	// field); IsTime lets DATE_TRUNC apply.
	Datatype    ossie.Datatype
	IsTime      bool
	Description string
}

// table is the table of one model for one caller.
type table struct {
	Schema      string // the model's address (name, or namespace/name)
	Name        string
	Description string
	Columns     []column
	byName      map[string]int // lower-cased SQL name → column
	byMember    map[string]int // member name, "@via" appended for a column along a path → column
	byField     map[string]int // bare field name → column, when unique; -1 ambiguous
	// viaFrom is each relationship's many side: the fact whose rows a
	// query without metrics lists when it reads a column along that
	// relationship's path (throughOfVias).
	viaFrom map[string]string
}

// newTable lays out d as a table (the column rule above).
func newTable(schema string, d *server.ModelDetail) *table {
	t := &table{Schema: schema, Name: d.Name, Description: d.Description,
		byName: map[string]int{}, byMember: map[string]int{}, byField: map[string]int{}}
	for _, ds := range d.Datasets {
		for _, f := range ds.Dimensions {
			t.Columns = append(t.Columns, dimColumn(ds.Name, f, ""))
			if j, seen := t.byField[f.Field]; seen || j < 0 {
				t.byField[f.Field] = -1
			} else {
				t.byField[f.Field] = len(t.Columns) - 1
			}
		}
	}
	t.viaFrom = map[string]string{}
	for _, r := range d.Relationships {
		t.viaFrom[r.Name] = r.From
	}
	vias := viaChoices(d.Relationships)
	for _, ds := range d.Datasets {
		for _, via := range vias[ds.Name] {
			for _, f := range ds.Dimensions {
				t.Columns = append(t.Columns, dimColumn(ds.Name, f, via))
			}
		}
	}
	for _, m := range d.Metrics {
		t.Columns = append(t.Columns, column{Name: m.Name, Member: m.Name, Metric: true, Datatype: m.Datatype, Description: m.Description})
	}
	count := map[string]int{}
	for _, c := range t.Columns {
		count[strings.ToLower(c.Name)]++
	}
	for i := range t.Columns {
		c := &t.Columns[i]
		if count[strings.ToLower(c.Name)] > 1 {
			c.Name = c.key()
		}
		t.byName[strings.ToLower(c.Name)] = i
		t.byMember[c.key()] = i
	}
	for f, i := range t.byField {
		if _, clash := t.byName[strings.ToLower(f)]; clash && i >= 0 {
			t.byField[f] = -1
		}
	}
	return t
}

// dimColumn is the column of dimension f of dataset ds, read along via
// when set: `ds_field`, or `ds_field@via` (the answer's own name for a
// dimension along a path, `ds.field@via`, with the dataset joined by _).
func dimColumn(ds string, f server.DimensionInfo, via string) column {
	c := column{Name: ds + "_" + f.Field, Member: f.Name, Via: via, Datatype: f.Datatype,
		IsTime: f.IsTime && f.Masked == "", Description: f.Description}
	if f.Masked != "" {
		c.Datatype = ossie.TypeString
	}
	if via != "" {
		c.Name += "@" + via
	}
	return c
}

// key is the column's member as byMember holds it.
func (c *column) key() string {
	if c.Via != "" {
		return c.Member + "@" + c.Via
	}
	return c.Member
}

// lookup finds a column by SQL name (case-insensitive, as unquoted
// PostgreSQL identifiers fold), by member name, or by a bare field name
// that only one dataset has.
func (t *table) lookup(name string) (int, bool) {
	if i, ok := t.byName[strings.ToLower(name)]; ok {
		return i, true
	}
	if i, ok := t.byMember[name]; ok {
		return i, true
	}
	if i, ok := t.byField[name]; ok && i >= 0 {
		return i, true
	}
	return 0, false
}

// catalog is what one caller may read: its model tables by schema.
type catalog struct {
	tables []*table
}

// loadCatalog describes every model the caller of ctx may read. A model
// named by several namespaces is addressed namespace/name, as over HTTP.
func loadCatalog(ctx context.Context, b Backend) *catalog {
	sums := b.VisibleModels(ctx)
	names := map[string]int{}
	for _, s := range sums {
		names[s.Name]++
	}
	c := &catalog{}
	for _, s := range sums {
		addr := s.Name
		if names[s.Name] > 1 && s.Namespace != "" {
			addr = s.Namespace + "/" + s.Name
		}
		d, err := b.DescribeModel(ctx, addr)
		if err != nil {
			continue // gone since the listing
		}
		c.tables = append(c.tables, newTable(addr, &d))
	}
	return c
}

// find returns the table schema.name; an empty schema matches any schema
// holding a table of that name when only one does.
func (c *catalog) find(schema, name string) (*table, bool) {
	var hit *table
	for _, t := range c.tables {
		if !strings.EqualFold(t.Name, name) || (schema != "" && !strings.EqualFold(t.Schema, schema)) {
			continue
		}
		if hit != nil {
			return nil, false
		}
		hit = t
	}
	return hit, hit != nil
}
