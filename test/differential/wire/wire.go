// Package wire is the PostgreSQL-wire entry point of the differential
// test: a case's query JSON, written as semantic SQL (pgwire.SQLFor) and
// sent through pgx to the server's SQL endpoint, answered as canonical
// dcase values. The runner starts the server (cmd/server or
// server.New + pgwire.New) with the case's model, data and governance,
// and passes the caller's token as the password in url.
package wire

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/pgwire"
	"github.com/ossie-dev/ossie/test/differential/dcase"
)

// Answer answers query (a case's query JSON) for the model described by
// detail (server.Server.DescribeModel under the case's caller) over the
// SQL endpoint at url, e.g. "postgres://bi:TOKEN@127.0.0.1:15432/ossie".
// Column names are the planner's (dataset.field[.grain], metric) and
// datatypes follow the announced PostgreSQL types. An error of the
// endpoint is returned as it is (a *pgconn.PgError carrying a SQLSTATE
// and the OSS code in its message).
func Answer(ctx context.Context, url string, detail *server.ModelDetail, query []byte) (dcase.Result, error) {
	q, probs := plan.ParseQuery(query)
	if probs.HasErrors() {
		return dcase.Result{}, probs
	}
	sql, zone, err := pgwire.SQLFor(detail, q)
	if err != nil {
		return dcase.Result{}, err
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return dcase.Result{}, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if zone != "" {
		if _, err := conn.Exec(ctx, "SET TIME ZONE '"+zone+"'"); err != nil {
			return dcase.Result{}, err
		}
	}
	rows, err := conn.Query(ctx, sql)
	if err != nil {
		return dcase.Result{}, err
	}
	defer rows.Close()
	// A metric that declares no datatype is announced as numeric: its
	// type is only known once the engine ran it, after the statement was
	// described, so the wire does not tell it (Datatype "").
	untyped := map[string]bool{}
	for _, m := range detail.Metrics {
		untyped[m.Name] = m.Datatype == ""
	}
	var res dcase.Result
	for _, fd := range rows.FieldDescriptions() {
		dt := datatypes[fd.DataTypeOID]
		if untyped[fd.Name] {
			dt = ""
		}
		res.Columns = append(res.Columns, dcase.ResultColumn{Name: fd.Name, Datatype: dt})
	}
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return dcase.Result{}, err
		}
		row := make([]any, len(vals))
		for i, v := range vals {
			if row[i], err = canonical(v); err != nil {
				return dcase.Result{}, fmt.Errorf("column %s: %w", res.Columns[i].Name, err)
			}
		}
		res.Rows = append(res.Rows, row)
	}
	return res, rows.Err()
}

// datatypes maps the endpoint's PostgreSQL types onto Ossie datatypes.
var datatypes = map[uint32]string{16: "Boolean", 20: "Integer", 1700: "Decimal", 701: "Float", 25: "String",
	1082: "Date", 1083: "Time", 1114: "DateTime", 1184: "DateTimeTz"}

// canonical converts a pgx value into dcase's canonical values.
func canonical(v any) (any, error) {
	switch x := v.(type) {
	case nil, int64, float64, string, bool:
		return x, nil
	case pgtype.Numeric:
		if !x.Valid {
			return nil, nil
		}
		f, err := x.Float64Value()
		return f.Float64, err
	case time.Time:
		return x, nil
	case pgtype.Time:
		return fmt.Sprintf("%02d:%02d:%02d", x.Microseconds/3600e6, x.Microseconds/60e6%60, x.Microseconds/1e6%60), nil
	}
	return nil, fmt.Errorf("unexpected value %T", v)
}
