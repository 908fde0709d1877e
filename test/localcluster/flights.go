package localcluster

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"

	_ "github.com/duckdb/duckdb-go/v2" // database/sql driver "duckdb": reads Parquet and CSV in-process
	"github.com/jackc/pgx/v5"
)

// LoadFlights creates the tables flights and airports in the PostgreSQL
// database at dsn from dataDir (flights-3m.parquet, else
// flights-sample.parquet; airports.csv) and returns the number of flights.
// DuckDB reads the files in-process; rows go to PostgreSQL through COPY,
// so no DuckDB extension and no network are needed. Column types follow
// DuckDB's reading of the files (pgType).
func LoadFlights(ctx context.Context, dsn, dataDir string) (int64, error) {
	flights := filepath.Join(dataDir, "flights-3m.parquet")
	if !isFile(flights) {
		flights = filepath.Join(dataDir, "flights-sample.parquet")
	}
	airports := filepath.Join(dataDir, "airports.csv")
	for _, f := range []string{flights, airports} {
		if !isFile(f) {
			return 0, fmt.Errorf("no %s (run from the repository root; `make fetch-flights` gets the full data)", f)
		}
	}
	duck, err := sql.Open("duckdb", "")
	if err != nil {
		return 0, err
	}
	defer duck.Close()
	pg, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return 0, err
	}
	defer pg.Close(ctx)
	n, err := copyTable(ctx, duck, pg, "flights", "read_parquet("+quoteLiteral(flights)+")")
	if err != nil {
		return 0, err
	}
	if _, err := copyTable(ctx, duck, pg, "airports", "read_csv("+quoteLiteral(airports)+")"); err != nil {
		return 0, err
	}
	return n, nil
}

// copyTable creates table in PostgreSQL with the columns DuckDB reads from
// the table function from, and copies the rows.
func copyTable(ctx context.Context, duck *sql.DB, pg *pgx.Conn, table, from string) (int64, error) {
	desc, err := duck.QueryContext(ctx, "DESCRIBE SELECT * FROM "+from)
	if err != nil {
		return 0, fmt.Errorf("reading %s: %w", from, err)
	}
	var names, defs []string
	for desc.Next() {
		vals := make([]any, 6) // column_name, column_type, null, key, default, extra
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := desc.Scan(ptrs...); err != nil {
			desc.Close()
			return 0, err
		}
		name, typ := fmt.Sprint(vals[0]), fmt.Sprint(vals[1])
		pt, err := pgType(typ)
		if err != nil {
			desc.Close()
			return 0, fmt.Errorf("%s.%s: %w", table, name, err)
		}
		names = append(names, name)
		defs = append(defs, pgx.Identifier{name}.Sanitize()+" "+pt)
	}
	if err := desc.Close(); err != nil {
		return 0, err
	}
	if _, err := pg.Exec(ctx, "CREATE TABLE "+pgx.Identifier{table}.Sanitize()+" ("+strings.Join(defs, ", ")+")"); err != nil {
		return 0, err
	}
	rows, err := duck.QueryContext(ctx, "SELECT * FROM "+from)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	src := &rowSource{rows: rows, vals: make([]any, len(names))}
	n, err := pg.CopyFrom(ctx, pgx.Identifier{table}, names, src)
	if err != nil {
		return 0, fmt.Errorf("COPY %s: %w", table, err)
	}
	if _, err := pg.Exec(ctx, "ANALYZE "+pgx.Identifier{table}.Sanitize()); err != nil {
		return 0, err
	}
	return n, nil
}

// rowSource feeds database/sql rows to pgx's COPY.
type rowSource struct {
	rows *sql.Rows
	vals []any
	err  error
}

func (s *rowSource) Next() bool {
	if !s.rows.Next() {
		s.err = s.rows.Err()
		return false
	}
	ptrs := make([]any, len(s.vals))
	for i := range s.vals {
		ptrs[i] = &s.vals[i]
	}
	s.err = s.rows.Scan(ptrs...)
	return s.err == nil
}

func (s *rowSource) Values() ([]any, error) { return s.vals, s.err }

func (s *rowSource) Err() error { return s.err }

// pgType is the PostgreSQL column type for a DuckDB one the flights files
// use; others are refused rather than guessed.
func pgType(duck string) (string, error) {
	switch strings.ToUpper(duck) {
	case "VARCHAR":
		return "text", nil
	case "BIGINT", "INTEGER", "SMALLINT", "BOOLEAN", "DATE", "TIMESTAMP", "REAL":
		return strings.ToLower(duck), nil
	case "TINYINT":
		return "smallint", nil
	case "DOUBLE":
		return "double precision", nil
	case "FLOAT":
		return "real", nil
	case "TIMESTAMP WITH TIME ZONE":
		return "timestamptz", nil
	}
	return "", fmt.Errorf("DuckDB type %s has no PostgreSQL mapping here", duck)
}

// quoteLiteral is a DuckDB string literal.
func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
