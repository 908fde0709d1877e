package catalog

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/compiler/expr"
)

// Options shape a drafted document.
type Options struct {
	// ModelName names the one semantic model (required; made a plain
	// name when it is not one).
	ModelName string
	// TypeSystem names the catalog's type spelling in Opaque notes
	// ("Glue", "DuckDB", "PostgreSQL", "Trino"); see MapType.
	TypeSystem string
}

// Report says what a draft contains and what the author must still add.
type Report struct {
	Datasets, Fields, Relationships int
	// WithoutPrimaryKey lists datasets that declare no primary_key.
	WithoutPrimaryKey []string
	// Opaque lists fields ("dataset.field") whose type has no Ossie datatype.
	Opaque []string
	// Renamed counts datasets and fields whose catalog name is not a plain
	// name; their expression or source quotes the catalog name exactly.
	Renamed int
	// Skipped explains each foreign key that did not become a relationship.
	Skipped []string
	// Numeric lists numeric fields ("dataset.field") outside the primary
	// key and foreign keys: candidates for SUM/AVG metrics.
	Numeric []string
	// Metrics counts the drafted metrics (draftMetrics): row counts and
	// sums, each of which validates in the draft.
	Metrics int
}

// Draft turns tables into an Ossie document (version 0.2.0.dev0, one
// semantic model): one dataset per table, in the given order, with
//   - name: the table name, or schema_table when two selected schemas hold
//     a table of that name; names that are not plain identifiers become
//     snake_case (see snake) and the source/expression keeps the exact
//     catalog name, quoted;
//   - source: catalog.schema.table (parts quoted where needed; an empty
//     Catalog is left out so the engine's default catalog applies);
//   - one field per column: expression = the column, quoted when needed;
//     datatype from MapType; description = the column comment plus the
//     MapType note; label = the column name when the field was renamed;
//   - primary_key and unique_keys from the catalog's constraints;
//   - one relationship per foreign key whose target is selected, as long as
//     the join graph stays a tree (compiler OSS2008/OSS2015): a second path
//     between two datasets, a cycle or a self-reference is left out and
//     explained in Report.Skipped;
//   - metrics that validate in the draft (draftMetrics): per dataset, the
//     row count over a one-column primary key and SUM of up to four
//     numeric fields outside the keys whose names are not identifiers,
//     codes, coordinates or calendar parts; each description says it was
//     drafted and asks for a check.
func Draft(tables []Table, opts Options) (*ossie.Document, Report) {
	var rep Report
	model := ossie.SemanticModel{Name: opts.ModelName}
	if !plainName(model.Name) {
		model.Name = snake(model.Name, "model")
	}

	tables = slices.DeleteFunc(slices.Clone(tables), func(t Table) bool {
		if hasControl(t.Schema) || hasControl(t.Name) || hasControl(t.Catalog) {
			rep.Skipped = append(rep.Skipped, fmt.Sprintf("table %q.%q: its name contains control characters, which no Ossie name or YAML scalar keeps reliably; rename it or add it by hand", t.Schema, t.Name))
			return true
		}
		return false
	})
	// Table names that occur in more than one schema get the schema in
	// their dataset name.
	count := map[string]int{}
	for _, t := range tables {
		count[strings.ToLower(t.Name)]++
	}
	dsNames := nameSet{}
	type dsInfo struct {
		fieldOf map[string]string // column name -> field name
		numeric []string          // measureCandidates
	}
	infos := make([]dsInfo, len(tables))
	index := map[[2]string]int{} // schema, table -> dataset index
	for i, t := range tables {
		want, renamed := pick(t.Name, "table")
		if count[strings.ToLower(t.Name)] > 1 && t.Schema != "" {
			want, renamed = pick(t.Schema+"_"+t.Name, "table")
		}
		if renamed {
			rep.Renamed++
		}
		ds := ossie.Dataset{
			Name:        dsNames.take(want),
			Source:      ossie.Source{Form: ossie.SourceFormString, Object: sourcePath(t.Catalog, t.Schema, t.Name)},
			Description: cleanText(t.Comment),
		}
		fieldNames := nameSet{}
		infos[i].fieldOf = make(map[string]string, len(t.Columns))
		for _, c := range t.Columns {
			if hasControl(c.Name) {
				rep.Skipped = append(rep.Skipped, fmt.Sprintf("column %q of %s: its name contains control characters; add the field by hand", c.Name, ds.Name))
				continue
			}
			want, renamed := pick(c.Name, "column")
			f := ossie.Field{
				Name: fieldNames.take(want),
				Expression: ossie.Expression{Dialects: []ossie.DialectExpression{{
					Dialect: ossie.OssieSQL2026, Expression: expr.Format(expr.Ref{Name: c.Name}),
				}}},
			}
			if renamed {
				rep.Renamed++
				f.Label = c.Name
			}
			dt, note := MapType(opts.TypeSystem, c.Type)
			f.Datatype = dt
			f.Description = joinText(c.Comment, note)
			if c.Partition {
				f.Description = joinText(f.Description, "Partition key of the table.")
			}
			if dt == ossie.TypeOpaque {
				rep.Opaque = append(rep.Opaque, ds.Name+"."+f.Name)
			}
			infos[i].fieldOf[c.Name] = f.Name
			ds.Fields = append(ds.Fields, f)
		}
		if pk, ok := mapColumns(t.PrimaryKey, infos[i].fieldOf); ok {
			ds.PrimaryKey = pk
		} else {
			rep.WithoutPrimaryKey = append(rep.WithoutPrimaryKey, ds.Name)
		}
		infos[i].numeric = measureCandidates(t, ds, infos[i].fieldOf)
		rep.Numeric = append(rep.Numeric, infos[i].numeric...)
		for _, uk := range t.UniqueKeys {
			if k, ok := mapColumns(uk, infos[i].fieldOf); ok && !slices.Equal(k, ds.PrimaryKey) {
				ds.UniqueKeys = append(ds.UniqueKeys, k)
			}
		}
		rep.Fields += len(ds.Fields)
		index[[2]string{t.Schema, t.Name}] = i
		model.Datasets = append(model.Datasets, ds)
	}
	rep.Datasets = len(model.Datasets)
	metricNames := nameSet{}
	// A numeric field name in several datasets gets the dataset in its
	// sum's name (total_orders_amount), so no sum's name is ambiguous.
	fieldCount := map[string]int{}
	for i, ds := range model.Datasets {
		for _, c := range infos[i].numeric {
			fieldCount[strings.ToLower(strings.TrimPrefix(c, ds.Name+"."))]++
		}
	}
	for i, ds := range model.Datasets {
		model.Metrics = append(model.Metrics, draftMetrics(ds, infos[i].numeric, metricNames, func(field string) bool { return fieldCount[strings.ToLower(field)] > 1 })...)
	}
	rep.Metrics = len(model.Metrics)

	// Relationships: a union-find over datasets keeps the join graph a
	// forest, so the draft always validates.
	parent := make([]int, len(tables))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	relNames := nameSet{}
	for i, t := range tables {
		from := model.Datasets[i].Name
		for _, fk := range t.ForeignKeys {
			what := fmt.Sprintf("foreign key %s of %s (%s)", fk.Name, from, strings.Join(fk.Columns, ", "))
			j, ok := index[[2]string{fk.RefSchema, fk.RefTable}]
			if !ok {
				rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s: it references %s, which is not selected", what, sourcePath(fk.RefSchema, fk.RefTable)))
				continue
			}
			to := model.Datasets[j].Name
			if i == j {
				rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s: it references its own table; declare a second dataset on the same source (e.g. %s_parent) and relate the two", what, from))
				continue
			}
			fromCols, ok1 := mapColumns(fk.Columns, infos[i].fieldOf)
			toCols, ok2 := mapColumns(fk.RefColumns, infos[j].fieldOf)
			if !ok1 || !ok2 || len(fromCols) != len(toCols) {
				rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s: its columns are not all columns of the selected tables", what))
				continue
			}
			if find(i) == find(j) {
				rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s: %s and %s are already joined through another path, and the join graph must be a tree; for a second role (e.g. origin and destination) declare another dataset on %s's source and relate it", what, from, to, to))
				continue
			}
			parent[find(i)] = find(j)
			model.Relationships = append(model.Relationships, ossie.Relationship{
				Name:        relNames.take(from + "_" + to),
				From:        from,
				To:          to,
				FromColumns: fromCols,
				ToColumns:   toCols,
			})
		}
	}
	rep.Relationships = len(model.Relationships)
	return &ossie.Document{Version: ossie.Version020Dev0, SemanticModel: []ossie.SemanticModel{model}}, rep
}

// mapColumns maps physical column names to field names; false when cols
// is empty or names a column that is not there.
func mapColumns(cols []string, fieldOf map[string]string) ([]string, bool) {
	if len(cols) == 0 {
		return nil, false
	}
	out := make([]string, len(cols))
	for i, c := range cols {
		f, ok := fieldOf[c]
		if !ok {
			return nil, false
		}
		out[i] = f
	}
	return out, true
}

// hasControl reports control characters (tab and newline included), which
// compiler OSS2013 refuses in names.
func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f })
}

// cleanText trims a catalog comment and turns control characters other
// than line breaks into spaces: the YAML writer does not quote a tab, and a
// description is for reading, not for exact bytes.
func cleanText(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.Map(func(r rune) rune {
		if r != '\n' && (r < 0x20 || r == 0x7f) {
			return ' '
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}

func joinText(a, b string) string {
	a, b = cleanText(a), cleanText(b)
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	if !strings.HasSuffix(a, ".") && !strings.HasSuffix(a, "!") && !strings.HasSuffix(a, "?") {
		a += "."
	}
	return a + " " + b
}

// NextSteps lists, in order, what the author must add before the model is
// useful; each entry is one line for the terminal.
func (r Report) NextSteps() []string {
	var out []string
	if n := len(r.WithoutPrimaryKey); n > 0 {
		out = append(out, fmt.Sprintf("add primary_key to %d dataset(s) (%s): the catalog declares none, and queries across one-to-many joins need it", n, listSome(r.WithoutPrimaryKey, 8)))
	}
	if r.Relationships == 0 {
		out = append(out, "add relationships (from = the many side, to = the one side, from_columns/to_columns paired by position): the catalog declares no usable foreign keys")
	} else {
		out = append(out, fmt.Sprintf("review the %d relationship(s) drafted from foreign keys and add the ones the catalog does not declare", r.Relationships))
	}
	for _, s := range r.Skipped {
		out = append(out, "left out "+s)
	}
	if n := len(r.Opaque); n > 0 {
		out = append(out, fmt.Sprintf("%d field(s) have no scalar type and are Opaque (%s): derive scalar fields or remove them", n, listSome(r.Opaque, 5)))
	}
	out = append(out, "review the metrics, add descriptions and ai_context; then run ossiectl validate. "+r.MetricsHint())
	return out
}

// MetricsHint says what of the metrics is drafted and what to add: with
// none drafted, that the model answers no query until it has one (every
// query asks for at least one) and how to write a row count, which must
// name a column of the dataset (COUNT(*) names no dataset: OSS2009).
func (r Report) MetricsHint() string {
	if r.Metrics > 0 {
		return fmt.Sprintf("%d metric(s) were drafted (row counts over one-column primary keys, sums of numeric columns that are not keys, codes or coordinates): check each means what its name says, and add averages, ratios and filtered metrics", r.Metrics)
	}
	hint := "Without metrics the model answers no query; none could be drafted (no one-column primary key, no additive numeric column)"
	if len(r.Numeric) > 0 {
		hint += "; numeric columns: " + listSome(r.Numeric, 4)
	}
	return hint + ". A row count names a column that is never null, e.g. COUNT(dataset.id)"
}

// measureCandidates are the numeric fields of ds that are neither in t's
// primary key nor in one of its foreign keys (keys are counted, not
// summed); fieldOf maps t's column names to field names.
func measureCandidates(t Table, ds ossie.Dataset, fieldOf map[string]string) []string {
	keys := map[string]bool{}
	for _, c := range t.PrimaryKey {
		keys[fieldOf[c]] = true
	}
	for _, fk := range t.ForeignKeys {
		for _, c := range fk.Columns {
			keys[fieldOf[c]] = true
		}
	}
	var out []string
	for _, f := range ds.Fields {
		switch f.Datatype {
		case ossie.TypeInteger, ossie.TypeDecimal, ossie.TypeFloat:
			if !keys[f.Name] {
				out = append(out, ds.Name+"."+f.Name)
			}
		}
	}
	return out
}

// ReviewLine is the header line of a draft: what to check in what was
// drafted from the catalog's keys, and what to add that it did not
// declare, e.g. "Review before committing: check the drafted primary keys
// and 2 relationship(s), add metrics, then run ossiectl validate."
func (r Report) ReviewLine() string {
	var check, add []string
	withKey := r.Datasets - len(r.WithoutPrimaryKey)
	switch {
	case withKey > 0 && len(r.WithoutPrimaryKey) > 0:
		check = append(check, fmt.Sprintf("the %d drafted primary key(s)", withKey))
		add = append(add, fmt.Sprintf("primary keys of %d dataset(s)", len(r.WithoutPrimaryKey)))
	case withKey > 0:
		check = append(check, "the drafted primary keys")
	default:
		add = append(add, "primary keys")
	}
	if r.Relationships > 0 {
		check = append(check, fmt.Sprintf("%d relationship(s)", r.Relationships))
		add = append(add, "missing relationships")
	} else {
		add = append(add, "relationships")
	}
	if r.Metrics > 0 {
		check = append(check, fmt.Sprintf("%d drafted metric(s)", r.Metrics))
	} else {
		add = append(add, "metrics")
	}
	line := "Review before committing: "
	if len(check) > 0 {
		line += "check " + joinAnd(check) + ", "
	}
	return line + "add " + joinAnd(add) + ", then run ossiectl validate."
}

func joinAnd(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

func listSome(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:n], ", ") + fmt.Sprintf(", … %d more", len(items)-n)
}
