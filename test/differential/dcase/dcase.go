// Package dcase is the contract between the differential test's three
// parts: the generator (a seed → a Case), the reference evaluator
// (test/reference: a Case's model, data and query → the expected Result)
// and the runners (a Case → the Result an entry point, an output format and
// an engine give). Nothing here knows how an answer is computed.
//
// Values are canonical Go values, the same whichever format carried them:
//
//	nil        SQL NULL
//	int64      Integer
//	float64    Float and Decimal (compared with a relative tolerance)
//	string     String
//	bool       Boolean
//	time.Time  Date (midnight, UTC location), DateTime (wall time, UTC
//	           location), DateTimeTz (the instant; compared with Equal)
//
// A runner decodes each format with a reader that is not ours
// (encoding/json, encoding/csv, arrow-go's IPC reader) and converts into
// these values using the answer's column datatypes; a format that cannot
// carry a type (CSV) is converted using the types the reference reports.
package dcase

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// ColumnType is a physical column type of a generated table, spelled in
// the portable form each engine's loader translates: INTEGER (64-bit),
// DOUBLE, DECIMAL (18,4), VARCHAR, BOOLEAN, DATE, TIMESTAMP (naive),
// TIMESTAMPTZ (an instant).
type ColumnType string

// The column types a generated table may have.
const (
	Integer     ColumnType = "INTEGER"
	Double      ColumnType = "DOUBLE"
	Decimal     ColumnType = "DECIMAL"
	Varchar     ColumnType = "VARCHAR"
	Boolean     ColumnType = "BOOLEAN"
	Date        ColumnType = "DATE"
	Timestamp   ColumnType = "TIMESTAMP"
	TimestampTz ColumnType = "TIMESTAMPTZ"
)

// Column is one column of a generated table.
type Column struct {
	Name string
	Type ColumnType
}

// Table is one generated table: rows hold canonical values (see the
// package comment; a TIMESTAMP is wall time in the UTC location, a
// TIMESTAMPTZ an instant) in column order.
type Table struct {
	Name    string
	Columns []Column
	Rows    [][]any
}

// Caller is the identity a governed case is asked under: the roles of the
// case's governance document and the caller attributes its row filters read.
type Caller struct {
	Roles      []string
	Attributes map[string]string
}

// Case is one generated, replayable differential case.
type Case struct {
	// Seed regenerates the case exactly (generator version included in Name).
	Seed int64
	// Name is a short label: the generator's shape and the seed.
	Name string
	// Model is the Ossie document (YAML) with one semantic_model named ModelName.
	Model     []byte
	ModelName string
	// Governance is the governance document (YAML), nil when the case has none.
	Governance []byte
	// Caller is nil for an ungoverned query.
	Caller *Caller
	// Tables are loaded into every engine under these names.
	Tables []Table
	// Query is the HTTP query body (compiler/plan.Query JSON); every entry
	// point is given exactly this.
	Query []byte
	// Ordered: the row order is part of the answer (the query has order_by
	// keys that make it total).
	Ordered bool
	// Want is the reference evaluator's answer, or WantCode the problem code
	// the query must be refused with on every entry point.
	Want     *Result
	WantCode string
}

// ResultColumn is one answer column: its name as the planner names it
// (dimension "dataset.field" or "dataset.field.grain", metric name) and
// its Ossie datatype (Integer, Float, Decimal, String, Boolean, Date,
// DateTime, DateTimeTz) where known.
type ResultColumn struct {
	Name     string
	Datatype string
}

// Result is an answer: columns and rows of canonical values.
type Result struct {
	Columns []ResultColumn
	Rows    [][]any
	// Total is the row count without limit and offset when the query asked
	// for it (`"total": true`, an answer option of the server); nil
	// otherwise. Compare checks it only when both answers carry one (an
	// entry point without the option, such as ossiectl, has none).
	Total *int64
}

// Tolerance is the relative tolerance for float64 values.
const Tolerance = 1e-9

// Compare reports every difference between want and got, value by value
// and type by type, or nil when they are the same answer. Columns are
// matched by name (their order is not part of the answer); rows are
// compared in order when ordered is true, else as multisets.
func Compare(want, got Result, ordered bool) error {
	var diffs []string
	idx := make([]int, len(want.Columns))
	byName := map[string]int{}
	for i, c := range got.Columns {
		byName[c.Name] = i
	}
	for i, c := range want.Columns {
		j, ok := byName[c.Name]
		if !ok {
			diffs = append(diffs, fmt.Sprintf("column %q missing (got %s)", c.Name, names(got.Columns)))
			continue
		}
		idx[i] = j
		if c.Datatype != "" && got.Columns[j].Datatype != "" && c.Datatype != got.Columns[j].Datatype {
			diffs = append(diffs, fmt.Sprintf("column %q: datatype %s, want %s", c.Name, got.Columns[j].Datatype, c.Datatype))
		}
	}
	if len(got.Columns) != len(want.Columns) {
		diffs = append(diffs, fmt.Sprintf("columns %s, want %s", names(got.Columns), names(want.Columns)))
	}
	if want.Total != nil && got.Total != nil && *want.Total != *got.Total {
		diffs = append(diffs, fmt.Sprintf("total %d, want %d", *got.Total, *want.Total))
	}
	if len(diffs) > 0 {
		return fmt.Errorf("%s", strings.Join(diffs, "; "))
	}
	// got's rows in want's column order.
	proj := make([][]any, len(got.Rows))
	for r, row := range got.Rows {
		p := make([]any, len(idx))
		for i, j := range idx {
			if j < len(row) {
				p[i] = row[j]
			}
		}
		proj[r] = p
	}
	wantRows := want.Rows
	if !ordered {
		wantRows = sorted(wantRows)
		proj = sorted(proj)
	}
	if len(proj) != len(wantRows) {
		diffs = append(diffs, fmt.Sprintf("%d rows, want %d", len(proj), len(wantRows)))
	}
	for r := 0; r < len(proj) && r < len(wantRows); r++ {
		for i := range want.Columns {
			if msg := compareValue(wantRows[r][i], proj[r][i]); msg != "" {
				diffs = append(diffs, fmt.Sprintf("row %d column %q: %s", r, want.Columns[i].Name, msg))
			}
		}
		if len(diffs) > 20 {
			diffs = append(diffs, "…")
			break
		}
	}
	if len(diffs) > 0 {
		return fmt.Errorf("%s\nwant rows: %s\n got rows: %s", strings.Join(diffs, "; "), Format(wantRows), Format(proj))
	}
	return nil
}

func names(cs []ResultColumn) string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Name
	}
	return "[" + strings.Join(out, ", ") + "]"
}

// compareValue is "" when got is want (same kind, equal value), else why not.
func compareValue(want, got any) string {
	switch w := want.(type) {
	case nil:
		if got == nil {
			return ""
		}
	case float64:
		if g, ok := got.(float64); ok {
			if w == g || math.Abs(w-g) <= Tolerance*math.Max(math.Abs(w), math.Abs(g)) {
				return ""
			}
		}
	case time.Time:
		if g, ok := got.(time.Time); ok && w.Equal(g) {
			return ""
		}
	default:
		if got == want {
			return ""
		}
	}
	return fmt.Sprintf("got %s, want %s", Value(got), Value(want))
}

// Value prints a canonical value with its kind, e.g. int64(3), "x", NULL.
func Value(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return fmt.Sprintf("%q", x)
	case time.Time:
		return "time(" + x.Format(time.RFC3339Nano) + ")"
	default:
		return fmt.Sprintf("%T(%v)", v, v)
	}
}

// Format prints rows one per line, values as Value prints them.
func Format(rows [][]any) string {
	var b strings.Builder
	for _, r := range rows {
		b.WriteString("\n  [")
		for i, v := range r {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(Value(v))
		}
		b.WriteString("]")
	}
	return b.String()
}

// sorted orders rows by their printed values so that two multisets compare
// row by row (floats are rounded so that values within the tolerance sort
// alike).
func sorted(rows [][]any) [][]any {
	out := append([][]any(nil), rows...)
	key := func(r []any) string {
		var b strings.Builder
		for _, v := range r {
			switch x := v.(type) {
			case float64:
				fmt.Fprintf(&b, "%.6g|", x)
			case time.Time:
				b.WriteString(x.UTC().Format(time.RFC3339Nano) + "|")
			default:
				b.WriteString(Value(v) + "|")
			}
		}
		return b.String()
	}
	sort.SliceStable(out, func(i, j int) bool { return key(out[i]) < key(out[j]) })
	return out
}
