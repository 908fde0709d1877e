package gen

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/auth"
	"github.com/ossie-dev/ossie/server/load"
	"github.com/ossie-dev/ossie/test/differential/dcase"
)

// TestDuckDB is the generator's quick loop: cases run through the
// server's answer path (what `ossiectl query` runs: compile, bind to the
// engine, plan, DuckDB in-process) and are compared with the reference's
// answer. The full matrix of entry points, formats and engines is
// test/differential's. GEN_SEEDS=N runs N seeds (default 150);
// GEN_SEED=S runs one; GEN_BUGS=all (or a Bug bit mask) generates the
// cells of the known bugs too (testdata/found.txt; none open now).
func TestDuckDB(t *testing.T) {
	n := int64(150)
	if s := os.Getenv("GEN_SEEDS"); s != "" {
		n, _ = strconv.ParseInt(s, 10, 64)
	}
	from := int64(1)
	if s := os.Getenv("GEN_SEED"); s != "" {
		from, _ = strconv.ParseInt(s, 10, 64)
		n = 1
	}
	var o Options
	if s := os.Getenv("GEN_BUGS"); s == "all" {
		o.Bugs = ^Bug(0)
	} else if s != "" {
		bits, _ := strconv.ParseUint(s, 10, 32)
		o.Bugs = Bug(bits)
	}
	fails := 0
	for seed := from; seed < from+n; seed++ {
		c := GenerateWith(seed, o).Case
		if err := runDuckDB(c); err != nil {
			fails++
			t.Errorf("%s: %v\nquery %s", c.Name, err, c.Query)
			if n == 1 {
				t.Logf("model:\n%s", c.Model)
				for _, tb := range c.Tables {
					t.Logf("table %s %v:%s", tb.Name, tb.Columns, dcase.Format(tb.Rows))
				}
			}
			if fails > 10 {
				t.Fatal("too many failures")
			}
		}
	}
}

// runDuckDB answers c on an in-memory DuckDB and compares with c.Want
// (or c.WantCode).
func runDuckDB(c dcase.Case) error {
	ctx := context.Background()
	eng, err := duckdb.Open("")
	if err != nil {
		return err
	}
	defer eng.Close()
	for _, t := range c.Tables {
		if err := eng.Exec(ctx, createTable(t)); err != nil {
			return fmt.Errorf("loading %s: %w", t.Name, err)
		}
	}
	arts, probs := compiler.LoadGoverned(c.Model, c.Governance, compiler.CompileOptions{})
	if probs.HasErrors() {
		return fmt.Errorf("model: %s", probs)
	}
	// Bound as every answering path binds (server.BindModels): fields
	// without datatype take the engine's type.
	arts, err = load.BindModels(ctx, eng, arts, "model", 0)
	if err != nil {
		return fmt.Errorf("bind: %w", err)
	}
	store := server.NewStore(nil)
	if err := store.Set(server.Source{Key: "files"}, arts); err != nil {
		return err
	}
	srv, err := server.New(server.Config{Engine: eng, Store: store})
	if err != nil {
		return err
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal(c.Query, &body); err != nil {
		return err
	}
	total := string(body["total"]) == "true"
	delete(body, "total")
	qb, _ := json.Marshal(body)
	q, qprobs := plan.ParseQuery(qb)
	if qprobs.HasErrors() {
		return fmt.Errorf("query: %s", qprobs)
	}
	if c.Caller != nil {
		ctx = auth.WithIdentity(ctx, &auth.Identity{Name: "gen", Roles: c.Caller.Roles, Attributes: c.Caller.Attributes})
	}
	resp, err := srv.AnswerWith(ctx, c.ModelName, q, server.AnswerOptions{Total: total})
	if c.WantCode != "" {
		if err == nil || !strings.Contains(err.Error(), c.WantCode) {
			return fmt.Errorf("want refusal %s, got %v", c.WantCode, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("answer: %w", err)
	}
	got := dcase.Result{Total: resp.Total}
	for _, col := range resp.Columns {
		got.Columns = append(got.Columns, dcase.ResultColumn{Name: col.Name, Datatype: col.Type})
	}
	for _, row := range resp.Rows {
		out := make([]any, len(row))
		for i, v := range row {
			out[i] = canonical(v, resp.Columns[i].Type)
		}
		got.Rows = append(got.Rows, out)
	}
	return dcase.Compare(*c.Want, got, c.Ordered)
}

// createTable is the DuckDB DDL and data of a generated table (values
// are generated, never request text).
func createTable(t dcase.Table) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE %q (", t.Name)
	for i, c := range t.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		typ := string(c.Type)
		switch c.Type {
		case dcase.Integer:
			typ = "BIGINT"
		case dcase.Decimal:
			typ = "DECIMAL(18,4)"
		}
		fmt.Fprintf(&b, "%q %s", c.Name, typ)
	}
	b.WriteString(")")
	if len(t.Rows) == 0 {
		return b.String()
	}
	b.WriteString("; INSERT INTO " + strconv.Quote(t.Name) + " VALUES ")
	for i, r := range t.Rows {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(")
		for j, v := range r {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(sqlLiteral(v, t.Columns[j].Type))
		}
		b.WriteString(")")
	}
	return b.String()
}

func sqlLiteral(v any, ct dcase.ColumnType) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return "'" + strings.ReplaceAll(x, "'", "''") + "'"
	case time.Time:
		switch ct {
		case dcase.Date:
			return "DATE '" + x.Format("2006-01-02") + "'"
		case dcase.Timestamp:
			return "TIMESTAMP '" + x.Format("2006-01-02 15:04:05") + "'"
		}
		return "TIMESTAMPTZ '" + x.UTC().Format("2006-01-02 15:04:05") + "+00'"
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// canonical converts an answer value to dcase's canonical kind for the
// column's datatype.
func canonical(v any, dt string) any {
	if v == nil {
		return nil
	}
	switch dt {
	case "Integer":
		switch x := v.(type) {
		case int64:
			return x
		case int32:
			return int64(x)
		case int:
			return int64(x)
		case *big.Int:
			return x.Int64()
		case float64:
			return int64(x)
		}
	case "Float", "Decimal":
		switch x := v.(type) {
		case int64:
			return float64(x)
		case *big.Int:
			f, _ := new(big.Float).SetInt(x).Float64()
			return f
		case string:
			f, _ := strconv.ParseFloat(x, 64)
			return f
		}
	case "Date":
		switch x := v.(type) {
		case string:
			t, err := time.Parse("2006-01-02", x)
			if err == nil {
				return t
			}
		case time.Time:
			y, m, d := x.Date()
			return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
		}
	case "DateTime":
		if x, ok := v.(time.Time); ok {
			return time.Date(x.Year(), x.Month(), x.Day(), x.Hour(), x.Minute(), x.Second(), x.Nanosecond(), time.UTC)
		}
	}
	return v
}
