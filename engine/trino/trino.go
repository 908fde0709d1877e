// Package trino is the engine.Engine for Trino (trinodb/trino-go-client,
// database/sql driver "trino"): queries over the client REST protocol,
// introspection through information_schema.columns, and classification of
// Trino's error names into drift and outage.
package trino

import (
	"context"
	"database/sql"
	"errors"

	trinoclient "github.com/trinodb/trino-go-client/trino"

	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/engine"
)

// Engine runs SQL on one Trino cluster. It is safe for concurrent use.
type Engine struct {
	db      *sql.DB
	catalog string
	schema  string
	secrets []string
}

var _ engine.Engine = (*Engine)(nil)

// Open builds the connection pool from cfg and checks that the
// coordinator answers (SELECT 1). A bad configuration is a plain error; a
// coordinator that cannot be reached is an *engine.Error wrapping
// engine.ErrUnavailable. No error quotes the DSN or its password.
func Open(ctx context.Context, cfg Config) (*Engine, error) {
	conf, secrets, err := cfg.clientConfig()
	if err != nil {
		return nil, err
	}
	conn, err := trinoclient.NewConnector(conf)
	if err != nil {
		return nil, errors.New("trino: invalid configuration: " + engine.Scrub(err.Error(), secrets...))
	}
	e := &Engine{db: sql.OpenDB(conn), catalog: conf.Catalog, schema: conf.Schema, secrets: secrets}
	if _, err := e.Query(ctx, "SELECT 1", 1); err != nil {
		e.db.Close()
		return nil, err
	}
	return e, nil
}

// Dialect is dialect.Trino.
func (e *Engine) Dialect() dialect.Dialect { return dialect.Trino }

// Query runs one statement and returns at most maxRows rows (maxRows <= 0:
// all), stopping after maxRows+1 rows (engine.Collect).
func (e *Engine) Query(ctx context.Context, query string, maxRows int) (*engine.Result, error) {
	return engine.Collect(ctx, e, query, maxRows)
}

// Stream runs one statement and hands each row to row as its page
// arrives; the row slice is reused. A callback that stops the stream
// cancels the query on the coordinator (DELETE of the query), so a capped
// answer does not keep the cluster busy. Values are converted as
// documented on converterFor.
func (e *Engine) Stream(ctx context.Context, query string, cols engine.ColumnsFunc, row engine.RowFunc) error {
	qctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rows, err := e.db.QueryContext(qctx, query)
	if err != nil {
		return e.classify(ctx, err)
	}
	// Close sends the DELETE when pages remain; it must run before cancel.
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return e.classify(ctx, err)
	}
	columns := make([]engine.Column, len(types))
	convs := make([]func(any) any, len(types))
	for i, t := range types {
		columns[i] = engine.Column{Name: t.Name(), Type: t.DatabaseTypeName()}
		convs[i] = converterFor(columns[i].Type)
	}
	if err := cols(columns); err != nil {
		return engine.Stopped(err)
	}
	vals := make([]any, len(types))
	ptrs := make([]any, len(types))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		clear(vals)
		if err := rows.Scan(ptrs...); err != nil {
			return e.classify(ctx, err)
		}
		for i, v := range vals {
			vals[i] = convs[i](v)
		}
		if err := row(vals); err != nil {
			return engine.Stopped(err)
		}
	}
	if err := rows.Err(); err != nil {
		return e.classify(ctx, err)
	}
	if err := rows.Close(); err != nil {
		return e.classify(ctx, err)
	}
	return nil
}

// Exec runs one statement that returns no rows, such as CREATE OR REPLACE
// VIEW, COMMENT ON VIEW or DROP VIEW, reading every page to its end.
func (e *Engine) Exec(ctx context.Context, stmt string) error {
	if _, err := e.db.ExecContext(ctx, stmt); err != nil {
		return e.classify(ctx, err)
	}
	return nil
}

// Close releases the connection pool.
func (e *Engine) Close() error { return e.db.Close() }
