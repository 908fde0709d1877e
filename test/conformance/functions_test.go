package conformance_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/plan"
)

// functionFiles hold the function cases: functions.yaml (one case per
// function of the Ossie expression language) and testdata/smoke.yaml
// (division, NULL and time-zone semantics). A missing file is skipped; an
// unreadable one fails.
var functionFiles = []string{"functions.yaml", filepath.Join("testdata", "smoke.yaml")}

// fnCase is one function case (format agreed in issue 4):
//
//	name      unique across files
//	function  the Ossie function the case is about (upper case)
//	kind      field: expr is a scalar field `out` of dataset t, queried as
//	          the dimension t.out (exactly one distinct value expected);
//	          metric: expr is the aggregate metric `out`, queried alone
//	expr      the Ossie SQL expression, over the columns
//	columns   column name → type: BIGINT, INTEGER, DOUBLE, DECIMAL(p,s),
//	          VARCHAR, BOOLEAN, DATE, TIMESTAMP, TIMESTAMPTZ, TIME
//	rows      the rows of t, values in column order (JSON scalars)
//	expected  the answer: a JSON scalar or null; dates YYYY-MM-DD,
//	          timestamps YYYY-MM-DDTHH:MM:SS[.fff] (UTC for TIMESTAMPTZ),
//	          times HH:MM:SS[.fff]
//	tolerance optional relative tolerance (default Tolerance)
//	engines   optional: the engines that run it; compiling for any other
//	          must report OSS3008 naming the function
type fnCase struct {
	Name      string        `yaml:"name"`
	Function  string        `yaml:"function"`
	Kind      string        `yaml:"kind"`
	Expr      string        `yaml:"expr"`
	Columns   yaml.MapSlice `yaml:"columns"`
	Rows      [][]any       `yaml:"rows"`
	Expected  any           `yaml:"expected"`
	Tolerance float64       `yaml:"tolerance"`
	Engines   []string      `yaml:"engines"`
	cols      []fnColumn
	file      string
}

type fnColumn struct{ name, typ string }

var columnType = regexp.MustCompile(`^(BIGINT|INTEGER|DOUBLE|VARCHAR|BOOLEAN|DATE|TIMESTAMP|TIMESTAMPTZ|TIME|DECIMAL\(\d+,\s*\d+\))$`)

// loadFunctionCases reads and checks every function file.
func loadFunctionCases(t *testing.T) []*fnCase {
	t.Helper()
	var out []*fnCase
	seen := map[string]string{}
	for _, f := range functionFiles {
		raw, err := os.ReadFile(f)
		if errors.Is(err, os.ErrNotExist) {
			t.Logf("%s: not present, skipped", f)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		var file struct {
			Cases []*fnCase `yaml:"cases"`
		}
		if err := yaml.UnmarshalWithOptions(raw, &file, yaml.Strict(), yaml.DisallowUnknownField(), yaml.UseOrderedMap()); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for i, c := range file.Cases {
			where := fmt.Sprintf("%s: cases[%d] (%s)", f, i, c.Name)
			c.file = f
			if c.Name == "" || seen[c.Name] != "" {
				t.Fatalf("%s: missing name, or also in %s", where, seen[c.Name])
			}
			seen[c.Name] = f
			if c.Function == "" || c.Expr == "" || (c.Kind != "field" && c.Kind != "metric") {
				t.Fatalf("%s: function, expr and kind (field or metric) are required", where)
			}
			for _, item := range c.Columns {
				name, _ := item.Key.(string)
				typ, _ := item.Value.(string)
				typ = strings.ToUpper(strings.TrimSpace(typ))
				if name == "" || !columnType.MatchString(typ) {
					t.Fatalf("%s: column %v: type %v is not one of the agreed types", where, item.Key, item.Value)
				}
				c.cols = append(c.cols, fnColumn{name, typ})
			}
			for j, r := range c.Rows {
				if len(r) != len(c.cols) {
					t.Fatalf("%s: rows[%d] has %d values for %d columns", where, j, len(r), len(c.cols))
				}
			}
			for _, e := range c.Engines {
				if !slices.Contains(engineNames, e) {
					t.Fatalf("%s: unknown engine %q (want %v)", where, e, engineNames)
				}
			}
			if c.Tolerance == 0 {
				c.Tolerance = Tolerance
			}
			out = append(out, c)
		}
	}
	return out
}

// runsOn reports whether the case is expected to run on engine name.
func (c *fnCase) runsOn(name string) bool {
	return len(c.Engines) == 0 || slices.Contains(c.Engines, name)
}

// table is the case's table name (one schema/database per engine holds
// every case's table).
func (c *fnCase) table(i int) string { return fmt.Sprintf("fn_%03d", i) }

// model is the Ossie document of the case: dataset t over its table, a
// field per column, and `out` as a field or a metric.
func (c *fnCase) model(table string) []byte {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	expr := func(e string) string {
		return `{dialects: [{dialect: OSSIE_SQL_2026, expression: ` + q(e) + `}]}`
	}
	var b strings.Builder
	b.WriteString("version: \"0.2.0.dev0\"\nsemantic_model:\n  - name: fn\n    datasets:\n      - name: t\n        source: " + q(table) + "\n        fields:\n")
	for _, col := range c.cols {
		b.WriteString("          - {name: " + q(col.name) + ", expression: " + expr(col.name) + "}\n")
	}
	if c.Kind == "field" {
		// A query needs a metric; the row count rides along.
		b.WriteString("          - {name: out, expression: " + expr(c.Expr) + "}\n")
		b.WriteString("    metrics:\n      - {name: row_count, expression: " + expr("COUNT(*)") + "}\n")
	} else {
		b.WriteString("    metrics:\n      - {name: out, expression: " + expr(c.Expr) + "}\n")
	}
	return []byte(b.String())
}

// query is t.out as the only dimension (with the row count), or the
// metric out alone; outColumn names the answer's column.
func (c *fnCase) query() (q *plan.Query, outColumn string) {
	if c.Kind == "field" {
		return &plan.Query{Dimensions: []plan.Dimension{{Field: "t.out"}}, Metrics: []string{"row_count"}}, "t.out"
	}
	return &plan.Query{Metrics: []string{"out"}}, "out"
}

// ddlType spells a case column type for an engine; the Trino spelling is
// Trino's own (microsecond precision), which the protocol server reads.
func ddlType(engineName, typ string) string {
	switch engineName {
	case postgresStr:
		if typ == "DOUBLE" {
			return "DOUBLE PRECISION"
		}
	case trinoName:
		switch typ {
		case "TIMESTAMP":
			return "TIMESTAMP(6)"
		case "TIMESTAMPTZ":
			return "TIMESTAMP(6) WITH TIME ZONE"
		case "TIME":
			return "TIME(6)"
		}
	}
	return typ
}

// literal renders one row value as a typed literal for an engine.
func literal(d dialect.Dialect, engineName, typ string, v any) string {
	t := ddlType(engineName, typ)
	switch x := v.(type) {
	case nil:
		return "CAST(NULL AS " + t + ")"
	case bool:
		return strings.ToUpper(strconv.FormatBool(x))
	case string:
		s := x
		if typ == "TIMESTAMP" || typ == "TIMESTAMPTZ" {
			s = strings.Replace(s, "T", " ", 1)
			s = strings.TrimSuffix(s, "Z")
			if typ == "TIMESTAMPTZ" && !hasOffset(s) {
				s += " +00:00"
			}
		}
		if typ == "VARCHAR" {
			return d.QuoteString(s)
		}
		return "CAST(" + d.QuoteString(s) + " AS " + t + ")"
	}
	return "CAST(" + fmt.Sprint(v) + " AS " + t + ")"
}

var offset = regexp.MustCompile(`(\s?[+-]\d\d(:?\d\d)?|\s[A-Za-z_]+(/[A-Za-z_]+)*)$`)

func hasOffset(s string) bool { return offset.MatchString(s[min(len(s), 19):]) }

// createTable makes the case's table on one target.
func (c *fnCase) createTable(tg target, table string) error {
	d := tg.eng.Dialect()
	var defs []string
	for _, col := range c.cols {
		defs = append(defs, d.QuoteIdent(col.name)+" "+ddlType(tg.name, col.typ))
	}
	stmts := []string{"CREATE TABLE " + d.QuoteIdent(table) + " (" + strings.Join(defs, ", ") + ")"}
	if len(c.Rows) > 0 {
		var rows []string
		for _, r := range c.Rows {
			var vals []string
			for i, v := range r {
				vals = append(vals, literal(d, tg.name, c.cols[i].typ, v))
			}
			rows = append(rows, "("+strings.Join(vals, ", ")+")")
		}
		stmts = append(stmts, "INSERT INTO "+d.QuoteIdent(table)+" VALUES "+strings.Join(rows, ", "))
	}
	for _, s := range stmts {
		if err := tg.eng.Exec(context.Background(), s); err != nil {
			return fmt.Errorf("%w\nstatement: %s", err, s)
		}
	}
	return nil
}

// TestFunctions runs every function case on the three engines: the case's
// table is created on each, the model is compiled for the engine, the
// query planned and run, and the single value compared with the expected
// one and with the other engines' values. On an engine the case excludes,
// compiling must report OSS3008 naming the function instead.
func TestFunctions(t *testing.T) {
	cs := loadFunctionCases(t)
	if len(cs) == 0 {
		t.Fatal("no function cases")
	}
	tgs, _ := openTargets(t, "functions")
	for i, c := range cs {
		t.Run(c.Name, func(t *testing.T) {
			table := c.table(i)
			values := map[string]any{}
			for _, tg := range tgs {
				if !c.runsOn(tg.name) {
					checkRefused(t, c, tg, table)
					continue
				}
				v, sql, err := c.run(tg, table)
				if err != nil {
					t.Errorf("function case %s (%s, %s) on %s: %v\nSQL:\n%s", c.Name, c.Function, c.file, tg.name, err, sql)
					continue
				}
				counts.add("functions", tg.name)
				values[tg.name] = v
				if ok, why := expectedEqual(c.Expected, v, c.Tolerance); !ok {
					t.Errorf("function case %s (%s, %s): %s = %s, expected %s (%s)\nexpr: %s\nSQL:\n%s",
						c.Name, c.Function, c.file, tg.name, show(v), show(c.Expected), why, c.Expr, sql)
				}
			}
			var ran []string
			for _, n := range engineNames {
				if _, ok := values[n]; ok {
					ran = append(ran, n)
				}
			}
			for i := 1; i < len(ran); i++ {
				a, b := values[ran[0]], values[ran[i]]
				if ok, why := sameValue(a, b, c.Tolerance); !ok {
					t.Errorf("function case %s (%s): %s = %s but %s = %s (%s)", c.Name, c.Function, ran[i], show(b), ran[0], show(a), why)
				}
			}
		})
	}
}

// run creates the table, compiles the case for tg's engine and returns
// the one value of the answer.
func (c *fnCase) run(tg target, table string) (any, string, error) {
	if err := c.createTable(tg, table); err != nil {
		return nil, "", fmt.Errorf("creating the case table: %w", err)
	}
	p, err := planner(c.model(table), tg.eng.Dialect())
	if err != nil {
		return nil, "", err
	}
	q, out := c.query()
	cols, rows, sql, err := answer(tg, p, q)
	if err != nil {
		return nil, sql, err
	}
	i := slices.Index(cols, out)
	if len(rows) != 1 || i < 0 {
		return nil, sql, fmt.Errorf("want exactly one row with column %s, got columns %v and %d rows: %v", out, cols, len(rows), rows)
	}
	return rows[0][i], sql, nil
}

// checkRefused asserts that compiling the case for an engine it excludes
// reports OSS3008 naming the function.
func checkRefused(t *testing.T, c *fnCase, tg target, table string) {
	t.Helper()
	_, probs := compiler.Load(c.model(table), compiler.CompileOptions{Dialect: tg.eng.Dialect()})
	for _, p := range probs {
		if p.Code == compiler.CodeExprUnsupported && strings.Contains(strings.ToUpper(p.Message), strings.ToUpper(c.Function)) {
			counts.add("functions refused as declared", tg.name)
			return
		}
	}
	t.Errorf("function case %s (%s): excluded on %s, but compiling for it does not report %s naming %s; problems:\n%s",
		c.Name, c.Function, tg.name, compiler.CodeExprUnsupported, c.Function, problemsText(probs))
}

var (
	dateRE      = regexp.MustCompile(`^\d{4}-\d\d-\d\d$`)
	timestampRE = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?$`)
	timeRE      = regexp.MustCompile(`^\d\d:\d\d:\d\d(\.\d+)?$`)
)

// expectedEqual compares an engine value with the expected JSON scalar.
// Types are strict: a date is expected as the engines' DATE text, a
// timestamp as a time.Time (the same instant), a time as TIME text.
func expectedEqual(want, got any, tol float64) (bool, string) {
	if want == nil || got == nil {
		return want == nil && got == nil, "NULL only equals NULL"
	}
	if wf, ok := yamlNumber(want); ok {
		gf, ok := number(got)
		if !ok {
			return false, fmt.Sprintf("a number was expected, got %T", got)
		}
		return within(wf, gf, tol), fmt.Sprintf("relative tolerance %g", tol)
	}
	switch w := want.(type) {
	case bool:
		g, ok := got.(bool)
		return ok && g == w, "booleans"
	case string:
		switch {
		case timestampRE.MatchString(w):
			g, ok := got.(time.Time)
			if !ok {
				return false, fmt.Sprintf("a timestamp was expected, got %T", got)
			}
			wt, _ := time.Parse("2006-01-02T15:04:05.999999999", w)
			return g.UTC().Equal(wt), "timestamps as UTC instants"
		case dateRE.MatchString(w):
			g, ok := got.(string)
			return ok && g == w, "dates as DATE values"
		case timeRE.MatchString(w):
			g, ok := got.(string)
			return ok && timeOfDay(g) == timeOfDay(w), "times of day"
		}
		g, ok := got.(string)
		return ok && g == w, "text"
	}
	return false, fmt.Sprintf("unsupported expected value %T", want)
}

// sameValue compares two engines' values: numbers within tol, everything
// else (text, booleans, instants) exactly and of the same Go type.
func sameValue(a, b any, tol float64) (bool, string) {
	if a == nil || b == nil {
		return a == nil && b == nil, "NULL only equals NULL"
	}
	if af, ok := number(a); ok {
		bf, ok := number(b)
		return ok && within(af, bf, tol), fmt.Sprintf("relative tolerance %g", tol)
	}
	switch x := a.(type) {
	case time.Time:
		y, ok := b.(time.Time)
		return ok && x.Equal(y), "instants"
	case string:
		y, ok := b.(string)
		if ok && timeRE.MatchString(x) && timeRE.MatchString(y) {
			return timeOfDay(x) == timeOfDay(y), "times of day"
		}
		return ok && x == y, "text"
	}
	return a == b, "values"
}

// timeOfDay drops trailing fractional zeros: 10:00:00.000 = 10:00:00.
func timeOfDay(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

func yamlNumber(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case uint64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

// number reads an engine's numeric value (int64, float64, or the exact
// text of a DECIMAL too large for int64).
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

// within applies Tolerance's rule: relative, absolute below 1 in magnitude.
func within(w, g, tol float64) bool {
	if math.IsNaN(w) || math.IsNaN(g) {
		return false
	}
	d := math.Abs(w - g)
	if scale := math.Max(math.Abs(w), math.Abs(g)); scale >= 1 {
		return d <= tol*scale
	}
	return d <= tol
}

// show renders a value with its Go type for failure messages.
func show(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case time.Time:
		return x.UTC().Format("2006-01-02T15:04:05.999999999Z") + " (timestamp)"
	case string:
		return strconv.Quote(x)
	}
	return fmt.Sprintf("%v (%T)", v, v)
}
