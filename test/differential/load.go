package differential

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	_ "github.com/duckdb/duckdb-go/v2" // database/sql driver "duckdb"
	"github.com/jackc/pgx/v5"

	"github.com/ossie-dev/ossie/test/differential/dcase"
)

// The engines every case runs on.
const (
	DuckDB   = "duckdb"
	Postgres = "postgres"
	Trino    = "trino"
)

// Engines lists them in the order cells run.
var Engines = []string{DuckDB, Postgres, Trino}

// Place is where one case's tables live on one engine: a schema of its own
// (the model is compiled with it as the default schema, so its bare table
// sources resolve there), in a DuckDB file, a PostgreSQL database or
// Trino's memory catalog.
type Place struct {
	Engine string
	Schema string
	// DuckDBPath is the database file (duckdb).
	DuckDBPath string
	// DSN is the connection string the entry points are given (postgres,
	// trino; for trino with the memory catalog and Schema as the session's).
	DSN string
	// Catalog is the default catalog (trino: memory).
	Catalog string
}

// columnType is the engine's spelling of a portable column type: DECIMAL
// is (18,4) everywhere, TIMESTAMP naive and TIMESTAMPTZ an instant, the
// temporal types at microsecond precision (Trino's default is
// milliseconds).
func columnType(engine string, t dcase.ColumnType) (string, error) {
	m := map[dcase.ColumnType][3]string{ // duckdb, postgres, trino
		dcase.Integer:     {"BIGINT", "BIGINT", "BIGINT"},
		dcase.Double:      {"DOUBLE", "DOUBLE PRECISION", "DOUBLE"},
		dcase.Decimal:     {"DECIMAL(18,4)", "NUMERIC(18,4)", "DECIMAL(18,4)"},
		dcase.Varchar:     {"VARCHAR", "TEXT", "VARCHAR"},
		dcase.Boolean:     {"BOOLEAN", "BOOLEAN", "BOOLEAN"},
		dcase.Date:        {"DATE", "DATE", "DATE"},
		dcase.Timestamp:   {"TIMESTAMP", "TIMESTAMP", "TIMESTAMP(6)"},
		dcase.TimestampTz: {"TIMESTAMPTZ", "TIMESTAMPTZ", "TIMESTAMP(6) WITH TIME ZONE"},
	}
	spell, ok := m[t]
	if !ok {
		return "", fmt.Errorf("no column type %q", t)
	}
	switch engine {
	case DuckDB:
		return spell[0], nil
	case Postgres:
		return spell[1], nil
	case Trino:
		return spell[2], nil
	}
	return "", fmt.Errorf("no engine %q", engine)
}

// quoteIdent double-quotes an identifier (SQL standard; the same in the
// three engines), doubling embedded quotes.
func quoteIdent(parts ...string) string {
	q := make([]string, len(parts))
	for i, p := range parts {
		q[i] = `"` + strings.ReplaceAll(p, `"`, `""`) + `"`
	}
	return strings.Join(q, ".")
}

// quoteString is a SQL string literal, embedded quotes doubled.
func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// createTable is the CREATE TABLE statement of t in schema for engine.
func createTable(engine, catalog, schema string, t dcase.Table) (string, error) {
	defs := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		typ, err := columnType(engine, c.Type)
		if err != nil {
			return "", fmt.Errorf("table %s column %s: %w", t.Name, c.Name, err)
		}
		defs[i] = quoteIdent(c.Name) + " " + typ
	}
	return "CREATE TABLE " + qualified(catalog, schema, t.Name) + " (" + strings.Join(defs, ", ") + ")", nil
}

func qualified(catalog, schema, name string) string {
	if catalog != "" {
		return quoteIdent(catalog, schema, name)
	}
	return quoteIdent(schema, name)
}

// LoadDuckDB creates p.Schema in the DuckDB file p.DuckDBPath and the
// tables in it, rows bound as parameters. The file is closed on return
// (a DuckDB file has one writer process at a time).
func LoadDuckDB(ctx context.Context, p Place, tables []dcase.Table) error {
	db, err := sql.Open("duckdb", p.DuckDBPath)
	if err != nil {
		return err
	}
	defer db.Close()
	return loadSQL(ctx, db, p, tables, func(i int) string { return "?" }, func(c dcase.Column, v any) any { return v })
}

// loadSQL creates the schema and tables over db and inserts the rows one
// bound statement per row; param spells the i-th placeholder and bind
// turns a canonical value into the driver's.
func loadSQL(ctx context.Context, db *sql.DB, p Place, tables []dcase.Table, param func(int) string, bind func(dcase.Column, any) any) error {
	if _, err := db.ExecContext(ctx, "CREATE SCHEMA IF NOT EXISTS "+quoteIdent(p.Schema)); err != nil {
		return err
	}
	for _, t := range tables {
		stmt, err := createTable(p.Engine, "", p.Schema, t)
		if err != nil {
			return err
		}
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
		marks := make([]string, len(t.Columns))
		for i := range marks {
			marks[i] = param(i)
		}
		ins, err := db.PrepareContext(ctx, "INSERT INTO "+quoteIdent(p.Schema, t.Name)+" VALUES ("+strings.Join(marks, ", ")+")")
		if err != nil {
			return err
		}
		for r, row := range t.Rows {
			args := make([]any, len(row))
			for i, v := range row {
				args[i] = bind(t.Columns[i], v)
			}
			if _, err := ins.ExecContext(ctx, args...); err != nil {
				ins.Close()
				return fmt.Errorf("table %s row %d: %w", t.Name, r, err)
			}
		}
		ins.Close()
	}
	return nil
}

// LoadPostgres creates p.Schema in the database of p.DSN and the tables in
// it, rows sent with COPY (binary, typed by pgx: never text spliced into
// SQL).
func LoadPostgres(ctx context.Context, p Place, tables []dcase.Table) error {
	conn, err := pgx.Connect(ctx, p.DSN)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+quoteIdent(p.Schema)); err != nil {
		return err
	}
	for _, t := range tables {
		stmt, err := createTable(Postgres, "", p.Schema, t)
		if err != nil {
			return err
		}
		if _, err := conn.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
		cols := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			cols[i] = c.Name
		}
		rows := make([][]any, len(t.Rows))
		for r, row := range t.Rows {
			rows[r] = make([]any, len(row))
			for i, v := range row {
				rows[r][i] = pgValue(t.Columns[i], v)
			}
		}
		if _, err := conn.CopyFrom(ctx, pgx.Identifier{p.Schema, t.Name}, cols, pgx.CopyFromRows(rows)); err != nil {
			return fmt.Errorf("copy into %s: %w", t.Name, err)
		}
	}
	return nil
}

// pgValue is v as pgx encodes it for c's column: a DECIMAL as its exact
// text (NUMERIC parses it), a TIMESTAMP's wall time (pgx writes a naive
// timestamp from the time's clock reading, UTC here).
func pgValue(c dcase.Column, v any) any {
	if f, ok := v.(float64); ok && c.Type == dcase.Decimal {
		return decimalText(f)
	}
	return v
}

func decimalText(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// LoadTrino creates p.Schema in Trino's memory catalog and the tables in
// it. The rows travel as one JSON document in an escaped string literal,
// cast to ARRAY(ROW(...)) and unnested (a long VALUES list takes Trino's
// analyzer far longer); values that JSON cannot type (DECIMAL, DATE,
// timestamps) travel as text and are cast by Trino.
func LoadTrino(ctx context.Context, db *sql.DB, p Place, tables []dcase.Table) error {
	if _, err := db.ExecContext(ctx, "CREATE SCHEMA IF NOT EXISTS "+quoteIdent(p.Catalog, p.Schema)); err != nil {
		return err
	}
	for _, t := range tables {
		stmt, err := createTable(Trino, p.Catalog, p.Schema, t)
		if err != nil {
			return err
		}
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
		if len(t.Rows) == 0 {
			continue
		}
		var fields, selects, names []string
		for i, c := range t.Columns {
			typ, _ := columnType(Trino, c.Type)
			f := fmt.Sprintf("c%d", i)
			names = append(names, f)
			switch c.Type {
			case dcase.Integer, dcase.Double, dcase.Boolean:
				fields = append(fields, f+" "+typ)
				selects = append(selects, f)
			default:
				fields = append(fields, f+" VARCHAR")
				selects = append(selects, "CAST("+f+" AS "+typ+")")
			}
		}
		rows := make([][]any, len(t.Rows))
		for r, row := range t.Rows {
			rows[r] = make([]any, len(row))
			for i, v := range row {
				if rows[r][i], err = trinoJSON(t.Columns[i], v); err != nil {
					return fmt.Errorf("table %s row %d: %w", t.Name, r, err)
				}
			}
		}
		body, err := json.Marshal(rows)
		if err != nil {
			return err
		}
		ins := "INSERT INTO " + quoteIdent(p.Catalog, p.Schema, t.Name) + " SELECT " + strings.Join(selects, ", ") +
			" FROM UNNEST(CAST(json_parse(" + quoteString(string(body)) + ") AS ARRAY(ROW(" + strings.Join(fields, ", ") + "))))" +
			" AS r(" + strings.Join(names, ", ") + ")"
		if _, err := db.ExecContext(ctx, ins); err != nil {
			return fmt.Errorf("loading %s into Trino: %w", t.Name, err)
		}
	}
	return nil
}

// trinoJSON is a canonical value of column c as the JSON the INSERT casts.
func trinoJSON(c dcase.Column, v any) (any, error) {
	switch x := v.(type) {
	case nil, bool, int64, string:
		return x, nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("non-finite %v", x)
		}
		if c.Type == dcase.Decimal {
			return decimalText(x), nil
		}
		return x, nil
	case time.Time:
		switch c.Type {
		case dcase.Date:
			return x.Format(time.DateOnly), nil
		case dcase.TimestampTz:
			return x.UTC().Format("2006-01-02 15:04:05.000000") + " UTC", nil
		}
		return x.Format("2006-01-02 15:04:05.000000"), nil
	}
	return nil, fmt.Errorf("value %T %v", v, v)
}
