package duckdb

import (
	"container/list"
	"context"
	"database/sql"
	"sync"
	"sync/atomic"

	"github.com/ossie-dev/ossie/engine"
)

// stmtCacheSize is how many distinct SQL texts keep a prepared statement.
const stmtCacheSize = 128

// stmtCache keeps DuckDB prepared statements of recent SQL texts. A
// dashboard asks the same planned questions again and again; parsing,
// binding and planning them is about a third of a small query's time.
// DuckDB rebinds a prepared statement by itself when the catalog changed
// since it was prepared (a replaced table or view), so a cached statement
// never reads a dropped object. Safe for concurrent use; an evicted
// statement is closed once its open rows are (database/sql counts them).
type stmtCache struct {
	mu    sync.Mutex
	lru   *list.List // of *stmtEntry, most recent first
	bySQL map[string]*list.Element
}

type stmtEntry struct {
	sql  string
	stmt *sql.Stmt
	// shape is what the last complete read of this SQL text saw (nil
	// before the first): the fetch path chooses by it (fetch_arrow.go).
	shape atomic.Pointer[resultShape]
}

// resultShape is a result's columns, as the driver named and typed them,
// and whether the next read goes through Arrow (it had more rows than the
// engine's arrowMinRows and the Arrow path reads every column).
type resultShape struct {
	cols  []engine.Column
	arrow bool
	// refused: the Arrow path refused these columns though the catalog
	// had not changed them (fetch_rows.go, remember).
	refused bool
}

func newStmtCache() *stmtCache {
	return &stmtCache{lru: list.New(), bySQL: map[string]*list.Element{}}
}

// prepared returns the entry of query, preparing its statement on first
// use. ok is false when DuckDB cannot prepare it (several statements, a
// statement kind without a plan): run it unprepared then.
func (c *stmtCache) prepared(ctx context.Context, db *sql.DB, query string) (entry *stmtEntry, ok bool) {
	c.mu.Lock()
	if el, found := c.bySQL[query]; found {
		c.lru.MoveToFront(el)
		c.mu.Unlock()
		return el.Value.(*stmtEntry), true
	}
	c.mu.Unlock()
	stmt, err := db.PrepareContext(ctx, query)
	if err != nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, found := c.bySQL[query]; found { // prepared meanwhile by another caller
		_ = stmt.Close()
		c.lru.MoveToFront(el)
		return el.Value.(*stmtEntry), true
	}
	entry = &stmtEntry{sql: query, stmt: stmt}
	c.bySQL[query] = c.lru.PushFront(entry)
	for c.lru.Len() > stmtCacheSize {
		e := c.lru.Remove(c.lru.Back()).(*stmtEntry)
		delete(c.bySQL, e.sql)
		_ = e.stmt.Close()
	}
	return entry, true
}

// forgetShapes forgets what every statement's last result looked like,
// so that each is read row by row once more (fetch_rows.go).
func (c *stmtCache) forgetShapes() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for el := c.lru.Front(); el != nil; el = el.Next() {
		el.Value.(*stmtEntry).shape.Store(nil)
	}
}

// close closes every cached statement.
func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for el := c.lru.Front(); el != nil; el = el.Next() {
		_ = el.Value.(*stmtEntry).stmt.Close()
	}
	c.lru.Init()
	clear(c.bySQL)
}
