// Package postgres runs Ossie queries on a PostgreSQL server (11 or later;
// tested on 15) through a pgx v5 connection pool (DESIGN.md section 7).
// Credentials come from the connection string, an environment variable or
// files (a mounted Kubernetes Secret); they never appear in error messages.
package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/engine"
)

// Engine is a pool of connections to one PostgreSQL database. It
// implements engine.Engine and is safe for concurrent use.
type Engine struct {
	pool    *pgxpool.Pool
	secrets []string // removed from every error message
}

var _ engine.Engine = (*Engine)(nil)

// Open builds the pool for cfg without connecting: a server that is down
// now does not prevent starting, its queries fail with ErrUnavailable until
// it is back (use Ping to check at start-up). Errors: an invalid
// configuration (no or several DSN sources, unreadable file, unparsable
// DSN) as a plain error whose text never includes the DSN or password.
func Open(ctx context.Context, cfg Config) (*Engine, error) {
	pc, password, err := cfg.poolConfig()
	if err != nil {
		return nil, errors.New("postgres: " + err.Error())
	}
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, classify(ctx, err, password, pc.ConnString())
	}
	return &Engine{pool: pool, secrets: []string{password, pc.ConnString()}}, nil
}

// Dialect is dialect.Postgres.
func (e *Engine) Dialect() dialect.Dialect { return dialect.Postgres }

// Pool exposes the pgx pool for callers that need driver features the
// Engine interface does not cover.
func (e *Engine) Pool() *pgxpool.Pool { return e.pool }

// Close closes every connection of the pool.
func (e *Engine) Close() error {
	e.pool.Close()
	return nil
}

// Ping checks that the server accepts a connection and a round trip.
// Errors are classified like Query's (ErrUnavailable when unreachable).
func (e *Engine) Ping(ctx context.Context) error {
	return e.classify(ctx, e.pool.Ping(ctx))
}

// Query runs one statement and returns at most maxRows rows (maxRows <= 0:
// all); Truncated reports that more existed (engine.Collect). On reaching
// the cap it cancels the statement on the server instead of reading the
// rest.
func (e *Engine) Query(ctx context.Context, sql string, maxRows int) (*engine.Result, error) {
	return engine.Collect(ctx, e, sql, maxRows)
}

// Stream runs one statement and hands each row to row as pgx reads it; the
// row slice is reused. A callback that stops the stream cancels the
// statement on the server. Cancelling ctx sends a cancel request; the
// error then wraps ctx.Err(). Values are converted as converterFor
// describes.
func (e *Engine) Stream(ctx context.Context, sql string, cols engine.ColumnsFunc, row engine.RowFunc) error {
	qctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rows, err := e.pool.Query(qctx, sql)
	if err != nil {
		return e.classify(ctx, err)
	}
	defer rows.Close()
	fds := rows.FieldDescriptions()
	tm := rows.Conn().TypeMap()
	columns := make([]engine.Column, len(fds))
	convs := make([]func(any) any, len(fds))
	for i, fd := range fds {
		t := oidTypeName(tm, fd.DataTypeOID)
		columns[i] = engine.Column{Name: fd.Name, Type: t}
		convs[i] = converterFor(t)
	}
	if err := cols(columns); err != nil {
		cancel()
		return engine.Stopped(err)
	}
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return e.classify(ctx, err)
		}
		for i, v := range vals {
			vals[i] = convs[i](v)
		}
		if err := row(vals); err != nil {
			cancel()
			return engine.Stopped(err)
		}
	}
	rows.Close()
	return e.classify(ctx, rows.Err())
}

// Exec runs one or more statements separated by semicolons (simple query
// protocol, one implicit transaction) that return no rows.
func (e *Engine) Exec(ctx context.Context, sql string) error {
	_, err := e.pool.Exec(ctx, sql)
	return e.classify(ctx, err)
}

func (e *Engine) classify(ctx context.Context, err error) error {
	return classify(ctx, err, e.secrets...)
}
