package duckdb

import (
	"container/list"
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
)

// stmtCacheSize is how many distinct SQL texts the cache remembers.
const stmtCacheSize = 128

// stmtCache remembers recent SQL texts: how each was last read (the fetch
// path chooses by it) and, from its second row-by-row read on, its DuckDB
// prepared statement. A dashboard asks the same planned questions again
// and again; parsing, binding and planning them is about a third of a
// small query's time. The first ask prepares nothing here: the Arrow read
// prepares its SQL itself, and a SQL text with new literals in it may
// never come again. DuckDB rebinds a prepared statement by itself when
// the catalog changed since it was prepared (a replaced table or view),
// so a cached statement never reads a dropped object. Safe for
// concurrent use; an evicted statement is closed once its open rows are
// (database/sql counts them).
type stmtCache struct {
	mu    sync.Mutex
	lru   *list.List // of *stmtEntry, most recent first
	bySQL map[string]*list.Element
}

// How the next read of a SQL text goes (stmtEntry.next).
const (
	// nextFirst: nothing is remembered; read through Arrow when built, as
	// the answer's size is unknown.
	nextFirst int32 = iota
	// nextRows: the last answer was small; read row by row with the
	// prepared statement.
	nextRows
	// nextArrow: the last answer was large and Arrow reads its columns.
	nextArrow
	// nextRefused: the Arrow path refused its columns; row by row until
	// Engine.Exec forgets the refusals.
	nextRefused
)

type stmtEntry struct {
	sql  string
	next atomic.Int32

	mu sync.Mutex // guards what follows
	// stmt is nil until the first row-by-row read that prepares it.
	stmt *sql.Stmt
	// unpreparable: DuckDB cannot prepare sql (several statements, a
	// statement kind without a plan); it is run unprepared.
	unpreparable bool
	evicted      bool
}

func newStmtCache() *stmtCache {
	return &stmtCache{lru: list.New(), bySQL: map[string]*list.Element{}}
}

// entry returns the entry of query, a new one (next nextFirst) on first
// use; the least recently used entry past stmtCacheSize is dropped.
func (c *stmtCache) entry(query string) *stmtEntry {
	c.mu.Lock()
	if el, found := c.bySQL[query]; found {
		c.lru.MoveToFront(el)
		c.mu.Unlock()
		return el.Value.(*stmtEntry)
	}
	entry := &stmtEntry{sql: query}
	c.bySQL[query] = c.lru.PushFront(entry)
	var evicted []*stmtEntry
	for c.lru.Len() > stmtCacheSize {
		e := c.lru.Remove(c.lru.Back()).(*stmtEntry)
		delete(c.bySQL, e.sql)
		evicted = append(evicted, e)
	}
	c.mu.Unlock()
	for _, e := range evicted { // outside c.mu: another caller may be preparing e
		e.close()
	}
	return entry
}

// prepared returns entry's statement, preparing it on first use; nil when
// DuckDB cannot prepare it or entry was dropped from the cache meanwhile:
// run the SQL unprepared then.
func (entry *stmtEntry) prepared(ctx context.Context, db *sql.DB) *sql.Stmt {
	entry.mu.Lock()
	defer entry.mu.Unlock()
	if entry.stmt != nil || entry.unpreparable || entry.evicted {
		return entry.stmt
	}
	stmt, err := db.PrepareContext(ctx, entry.sql)
	if err != nil {
		// A cancelled ctx says nothing of the SQL: prepare again next time.
		entry.unpreparable = ctx.Err() == nil
		return nil
	}
	entry.stmt = stmt
	return stmt
}

// close closes entry's statement; it is never prepared again.
func (entry *stmtEntry) close() {
	entry.mu.Lock()
	defer entry.mu.Unlock()
	entry.evicted = true
	if entry.stmt != nil {
		_ = entry.stmt.Close()
		entry.stmt = nil
	}
}

// forgetRefusals makes every SQL text the Arrow path refused read as on
// its first ask once more: a statement run since may have changed the
// setting or the column that made the Arrow form unreadable.
func (c *stmtCache) forgetRefusals() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for el := c.lru.Front(); el != nil; el = el.Next() {
		el.Value.(*stmtEntry).next.CompareAndSwap(nextRefused, nextFirst)
	}
}

// close closes every cached statement.
func (c *stmtCache) close() {
	c.mu.Lock()
	entries := make([]*stmtEntry, 0, c.lru.Len())
	for el := c.lru.Front(); el != nil; el = el.Next() {
		entries = append(entries, el.Value.(*stmtEntry))
	}
	c.lru.Init()
	clear(c.bySQL)
	c.mu.Unlock()
	for _, e := range entries {
		e.close()
	}
}
