package conformance_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/engine/duckdb"
)

// trinoTypes maps DuckDB column types to Trino's (microsecond precision,
// DuckDB's, for the temporal ones); DECIMAL(p,s) is spelled the same.
var trinoTypes = map[string]string{
	"BIGINT": "BIGINT", "INTEGER": "INTEGER", "DOUBLE": "DOUBLE", "VARCHAR": "VARCHAR",
	"TIMESTAMP": "TIMESTAMP(6)", "TIMESTAMP WITH TIME ZONE": "TIMESTAMP(6) WITH TIME ZONE",
	"DATE": "DATE", "BOOLEAN": "BOOLEAN", "TIME": "TIME(6)",
}

func trinoType(duckType string) (string, bool) {
	if strings.HasPrefix(duckType, "DECIMAL(") {
		return duckType, true
	}
	t, ok := trinoTypes[duckType]
	return t, ok
}

// copyTablesToTrino copies every base table of DuckDB's schema into tg's
// session schema. The shared cases' tables.sql is written for DuckDB and
// PostgreSQL (PRIMARY KEY, text into TIMESTAMPTZ), which Trino's CREATE
// TABLE and INSERT do not take; the rows are the same.
func copyTablesToTrino(t testing.TB, duck *duckdb.Engine, schema string, tg target) {
	t.Helper()
	res, err := duck.Query(context.Background(), "SELECT table_name FROM information_schema.tables WHERE table_schema = "+
		dialect.DuckDB.QuoteString(schema)+" AND table_type = 'BASE TABLE' ORDER BY 1", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Rows {
		copyToTrino(t, duck, tg, schema, r[0].(string))
	}
}

// trinoBatch is how many rows one INSERT carries. The rows travel as one
// JSON string literal cast to ARRAY(ROW(...)) and unnested: a VALUES list
// of thousands of rows takes Trino's analyzer minutes, one literal takes
// it nothing. 5,000 flights rows are about 0.5 MB, under the server's
// query.max-length.
const trinoBatch = 5000

// copyToTrino creates table in tg's session schema with the columns of
// DuckDB's schema.table and inserts its rows.
func copyToTrino(t testing.TB, duck *duckdb.Engine, tg target, schema, table string) {
	t.Helper()
	ctx := context.Background()
	cols, err := duck.Describe(ctx, []string{schema, table})
	if err != nil {
		t.Fatal(err)
	}
	d := dialect.Trino
	var defs, types, fields, selects []string
	for i, c := range cols {
		typ, ok := trinoType(c.Type)
		if !ok {
			t.Fatalf("%s.%s: no Trino type for %s", table, c.Name, c.Type)
		}
		defs = append(defs, d.QuoteIdent(c.Name)+" "+typ)
		types = append(types, typ)
		// JSON casts to numbers and booleans directly; everything else
		// travels as text and is cast by Trino's own text rules.
		field := fmt.Sprintf("c%d", i)
		switch typ {
		case "BIGINT", "INTEGER", "DOUBLE", "BOOLEAN":
			fields = append(fields, field+" "+typ)
			selects = append(selects, field)
		default:
			fields = append(fields, field+" VARCHAR")
			selects = append(selects, "CAST("+field+" AS "+typ+")")
		}
	}
	if err := tg.eng.Exec(ctx, "CREATE TABLE "+d.QuoteIdent(table)+" ("+strings.Join(defs, ", ")+")"); err != nil {
		t.Fatal(err)
	}
	res, err := duck.Query(ctx, "SELECT * FROM "+dialect.DuckDB.QuoteIdent(schema)+"."+dialect.DuckDB.QuoteIdent(table), 0)
	if err != nil {
		t.Fatal(err)
	}
	for start := 0; start < len(res.Rows); start += trinoBatch {
		batch := res.Rows[start:min(start+trinoBatch, len(res.Rows))]
		rows := make([][]any, len(batch))
		for i, row := range batch {
			rows[i] = make([]any, len(row))
			for j, v := range row {
				if rows[i][j], err = jsonValue(types[j], v); err != nil {
					t.Fatalf("%s row %d column %s: %v", table, start+i, cols[j].Name, err)
				}
			}
		}
		body, err := json.Marshal(rows)
		if err != nil {
			t.Fatal(err)
		}
		stmt := "INSERT INTO " + d.QuoteIdent(table) + " SELECT " + strings.Join(selects, ", ") +
			" FROM UNNEST(CAST(json_parse(" + d.QuoteString(string(body)) + ") AS ARRAY(ROW(" + strings.Join(fields, ", ") + "))))" +
			" AS r(" + strings.Join(fieldNames(len(cols)), ", ") + ")"
		if err := tg.eng.Exec(ctx, stmt); err != nil {
			t.Fatalf("loading %s into Trino: %v", table, err)
		}
	}
}

func fieldNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("c%d", i)
	}
	return out
}

// jsonValue is one DuckDB value of a column of Trino type typ as JSON:
// numbers, booleans and text as themselves (DATE and DECIMAL arrive as
// text and float64), timestamps as Trino's timestamp text, zoned ones in
// UTC (DuckDB hands TIMESTAMPTZ back as a UTC time.Time).
func jsonValue(typ string, v any) (any, error) {
	switch x := v.(type) {
	case nil, bool, int64, int32, string, json.Number:
		return x, nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("non-finite double %v", x)
		}
		return x, nil
	case time.Time:
		s := x.UTC().Format("2006-01-02 15:04:05.000000")
		if strings.HasSuffix(typ, "WITH TIME ZONE") {
			s += " UTC"
		}
		return s, nil
	}
	return nil, fmt.Errorf("no JSON form for %T", v)
}
