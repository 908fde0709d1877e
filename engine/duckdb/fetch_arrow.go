//go:build duckdb_arrow

package duckdb

import (
	"context"
	"database/sql/driver"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/ossie-dev/ossie/engine"
)

// streamArrow is Stream through the driver's Arrow interface: DuckDB hands
// over whole record batches (one cgo call per chunk of 2,048 rows instead
// of one per value), read here into the values the row path produces
// (arrowvalues.go), so everything above the engine sees the same rows.
// The columns' DuckDB types come from the Arrow schema (arrowtypes.go).
// The read is refused, before any callback ran and with the query run
// once, when a column is of a type not read here: the caller then reads
// the query row by row.
func (e *Engine) streamArrow(ctx context.Context, query string, cols engine.ColumnsFunc, row engine.RowFunc) (read arrowRead, err error) {
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return read, classify(ctx, err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		read, err = readArrow(ctx, dc, query, cols, row)
		return err
	})
	return read, err
}

// readArrow runs query on the driver connection dc and hands its rows
// over (see streamArrow).
func readArrow(ctx context.Context, dc any, query string, cols engine.ColumnsFunc, row engine.RowFunc) (arrowRead, error) {
	driverConn, ok := dc.(driver.Conn)
	if !ok {
		return arrowRead{refused: true}, nil
	}
	a, err := duckdb.NewArrowFromConn(driverConn)
	if err != nil {
		return arrowRead{refused: true}, nil
	}
	reader, err := a.QueryContext(ctx, query)
	if err != nil {
		return arrowRead{}, classify(ctx, err)
	}
	defer reader.Release()
	columns, readers, ok := columnReaders(reader.Schema())
	if !ok {
		return arrowRead{refused: true}, nil
	}
	n, err := handOver(reader, readers, columns, cols, row)
	if err != nil {
		return arrowRead{rows: n, stopped: true}, engine.Stopped(err)
	}
	if err := reader.Err(); err != nil {
		return arrowRead{}, classify(ctx, err)
	}
	if err := ctx.Err(); err != nil {
		return arrowRead{}, classify(ctx, err)
	}
	return arrowRead{rows: n}, nil
}

// columnReaders returns the columns of schema, named and typed as the row
// path does, and the reader of each; ok is false when a column is of a
// type not read here.
func columnReaders(schema *arrow.Schema) ([]engine.Column, []columnReader, bool) {
	columns := make([]engine.Column, schema.NumFields())
	readers := make([]columnReader, len(columns))
	for i, f := range schema.Fields() {
		typ, ok := duckTypeName(f)
		if !ok {
			return nil, nil, false
		}
		r, ok := fieldReader(f, typ, converterFor(typ))
		if !ok {
			return nil, nil, false
		}
		columns[i] = engine.Column{Name: f.Name, Type: typ}
		readers[i] = r
	}
	return columns, readers, true
}

// handOver reads every record batch of reader into rows and hands each to
// row; it returns how many rows were handed over, and a callback's error
// as is (ErrStop included).
func handOver(reader array.RecordReader, readers []columnReader, columns []engine.Column, cols engine.ColumnsFunc, row engine.RowFunc) (int, error) {
	if err := cols(slices.Clone(columns)); err != nil {
		return 0, err
	}
	get := make([]func(int) any, len(readers))
	out := make([]any, len(readers))
	n := 0
	for reader.Next() {
		batch := reader.RecordBatch()
		for j := range readers {
			get[j] = readers[j](batch.Column(j))
		}
		for i := range int(batch.NumRows()) {
			for j, g := range get {
				out[j] = g(i)
			}
			n++
			if err := row(out); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}
