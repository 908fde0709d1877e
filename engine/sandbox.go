package engine

import "context"

// Sandboxer is implemented by engines that run inside the serving process
// and could otherwise reach its file system (DuckDB): a model author's
// query source (`SELECT content FROM read_text('/var/run/secrets/...')`)
// would read the server's mounted credentials. Sandbox, called once the
// engine has loaded the data it needs, limits every later statement to the
// data files in files (absolute or relative to the working directory; a
// glob allows the directory before its first wildcard) and the relations
// already in the database, and locks the engine's configuration so no
// statement can lift the limit. Sandbox is one-way: there is no undo.
type Sandboxer interface {
	Sandbox(ctx context.Context, files []string) error
}

// Pooled is implemented by engines that hold a bounded pool of
// connections; PoolSize is its maximum. The server keeps its in-flight
// queries below it, so probes and other callers always find a connection.
type Pooled interface {
	PoolSize() int
}
