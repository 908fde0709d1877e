// Package trino is the engine.Engine for Trino (trinodb/trino-go-client,
// database/sql driver "trino"): queries over the client REST protocol,
// introspection through information_schema.columns, and classification of
// Trino's error names into drift and outage.
package trino

import (
	"context"
	"database/sql"
	"errors"
	"sync"

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
//
// Stream returns when ctx is done, whatever the client is doing: when a
// page cannot be fetched, trino-go-client cancels the query itself with a
// DELETE that it retries for 30 s (DefaultCancelQueryTimeout) under a
// context of its own, inside rows.Next, so a coordinator that died
// mid-query would hold the caller that long past its deadline. The
// client's work runs in a goroutine of its own; once ctx is done Stream
// returns, no callback runs after that, and the goroutine ends when the
// client gives up (within those 30 s).
func (e *Engine) Stream(ctx context.Context, query string, cols engine.ColumnsFunc, row engine.RowFunc) error {
	var mu sync.Mutex // held while a callback runs
	abandoned := false
	guard := func(f func() error) error {
		mu.Lock()
		defer mu.Unlock()
		if abandoned {
			return errAbandoned
		}
		return f()
	}
	done := make(chan error, 1)
	go func() {
		done <- e.stream(ctx, query,
			func(c []engine.Column) error { return guard(func() error { return cols(c) }) },
			func(v []any) error { return guard(func() error { return row(v) }) })
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		mu.Lock()
		abandoned = true
		mu.Unlock()
		select {
		case err := <-done: // it finished meanwhile
			return err
		default:
			return e.classify(ctx, ctx.Err())
		}
	}
}

// errAbandoned stops the client's goroutine after Stream has returned.
var errAbandoned = errors.New("trino: the caller has gone")

// stream is Stream in the calling goroutine.
func (e *Engine) stream(ctx context.Context, query string, cols engine.ColumnsFunc, row engine.RowFunc) error {
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
