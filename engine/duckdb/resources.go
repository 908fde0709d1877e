package duckdb

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
)

// DefaultMemoryLimit is the memory_limit a server's embedded DuckDB gets
// when its command line names none. DuckDB's own default is 80 % of the
// machine's (or cgroup's) memory: its buffer pool keeps every table block
// and intermediate it has read until that much is held, so a long-running
// server's resident memory climbs towards it. One GiB leaves the rest of
// the Helm chart's 2 GiB server limit to the Go side (result cache,
// requests in flight).
const DefaultMemoryLimit = "1GiB"

// Resources bound one DuckDB database instance (DuckDB docs,
// "Configuration": memory_limit, threads). The settings are global to
// the instance, so every connection of the pool, and every other handle
// on the same file in this process, shares them.
type Resources struct {
	// MemoryLimit is DuckDB's memory_limit, a size such as "512MiB" or
	// "2GB" (units B, KB, MB, GB, TB of 1000 and KiB, MiB, GiB, TiB of
	// 1024); "" keeps DefaultMemoryLimit. It bounds the buffer manager:
	// cached table blocks, hash tables and sorts; beyond it DuckDB evicts
	// cached blocks, then spills to its temporary directory, then fails
	// the query with an out-of-memory error (engine.ErrOutOfMemory, a
	// 503 at the server that says so).
	MemoryLimit string
	// Threads is DuckDB's threads (worker threads per query); 0 keeps
	// DuckDB's default, the number of CPU cores.
	Threads int
}

var memorySize = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?\s*([KMGT]i?B|B)$`)

// Check reports a size DuckDB would refuse or a negative thread count.
func (r Resources) Check() error {
	if r.MemoryLimit != "" && !memorySize.MatchString(r.MemoryLimit) {
		return fmt.Errorf("--engine-memory-limit %q: want a size such as 512MiB or 2GB (units B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)", r.MemoryLimit)
	}
	if r.Threads < 0 {
		return fmt.Errorf("--engine-threads %d: want 0 (DuckDB's default, one per core) or more", r.Threads)
	}
	return nil
}

// Bound applies r to the database. It must run before Sandbox, which
// locks the configuration.
func (e *Engine) Bound(ctx context.Context, r Resources) error {
	if err := r.Check(); err != nil {
		return err
	}
	limit := r.MemoryLimit
	if limit == "" {
		limit = DefaultMemoryLimit
	}
	// limit matched memorySize: digits, a dot, spaces and unit letters,
	// nothing a literal needs escaped.
	if err := e.Exec(ctx, "SET memory_limit = '"+limit+"'"); err != nil {
		return err
	}
	if r.Threads > 0 {
		return e.Exec(ctx, "SET threads = "+strconv.Itoa(r.Threads))
	}
	return nil
}

// MemoryUsage is what DuckDB's buffer manager holds now, in bytes, and
// what it has spilled to temporary files (the sums of duckdb_memory()'s
// memory_usage_bytes and temporary_storage_bytes). Allocations outside
// the buffer manager (the allocator's own caches, query state) are not in
// it; the process's RSS is.
func (e *Engine) MemoryUsage(ctx context.Context) (used, spilled int64, err error) {
	row := e.db.QueryRowContext(ctx, "SELECT COALESCE(SUM(memory_usage_bytes), 0)::BIGINT, COALESCE(SUM(temporary_storage_bytes), 0)::BIGINT FROM duckdb_memory()")
	if err := row.Scan(&used, &spilled); err != nil {
		return 0, 0, classify(ctx, err)
	}
	return used, spilled, nil
}
