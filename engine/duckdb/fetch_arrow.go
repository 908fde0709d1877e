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
//
// The Arrow schema does not say DuckDB's type names (HUGEINT and
// DECIMAL(38,0) are both decimal128), so the columns are those shape
// remembered from the row path; done is false, before any callback ran,
// when the result's schema no longer fits them (the catalog changed) or a
// column is of a type read here differently than by the driver: the
// caller then reads the query row by row, which learns the new shape.
func (e *Engine) streamArrow(ctx context.Context, entry *stmtEntry, shape *resultShape, cols engine.ColumnsFunc, row engine.RowFunc) (done bool, err error) {
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return true, classify(ctx, err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		done, err = e.readArrow(ctx, dc, entry, shape, cols, row)
		return err
	})
	return done, err
}

// readArrow runs entry's SQL on the driver connection dc and hands its
// rows over (see streamArrow).
func (e *Engine) readArrow(ctx context.Context, dc any, entry *stmtEntry, shape *resultShape, cols engine.ColumnsFunc, row engine.RowFunc) (bool, error) {
	driverConn, ok := dc.(driver.Conn)
	if !ok {
		return false, nil
	}
	a, err := duckdb.NewArrowFromConn(driverConn)
	if err != nil {
		return false, nil
	}
	reader, err := a.QueryContext(ctx, entry.sql)
	if err != nil {
		return true, classify(ctx, err)
	}
	defer reader.Release()
	readers, ok := columnReaders(shape.cols, reader.Schema())
	if !ok {
		return false, nil
	}
	n, err := handOver(reader, readers, shape.cols, cols, row)
	if err != nil {
		return true, engine.Stopped(err)
	}
	if err := reader.Err(); err != nil {
		return true, classify(ctx, err)
	}
	if err := ctx.Err(); err != nil {
		return true, classify(ctx, err)
	}
	entry.remember(shape.cols, n > e.arrowMinRows, false)
	return true, nil
}

// columnReaders pairs each remembered column with the reader of its Arrow
// array; ok is false when the schema's names or types do not fit them.
func columnReaders(want []engine.Column, schema *arrow.Schema) ([]columnReader, bool) {
	if schema.NumFields() != len(want) {
		return nil, false
	}
	readers := make([]columnReader, len(want))
	for i, c := range want {
		f := schema.Field(i)
		r, ok := arrowReader(c.Type, f.Type, converterFor(c.Type))
		if f.Name != c.Name || !ok {
			return nil, false
		}
		readers[i] = r
	}
	return readers, true
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
