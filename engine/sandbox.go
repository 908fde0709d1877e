package engine

import "context"

// Sandboxer is implemented by engines that run inside the serving process
// and could otherwise reach its file system (DuckDB): a model author's
// query source (`SELECT content FROM read_text('/var/run/secrets/...')`)
// would read the process's mounted credentials. Sandbox, called once the
// engine has loaded the data it needs, limits every later statement to
// the relations already in the database and the local files in allow,
// which come from the process's own configuration (`--allow-read`) and
// never from a model. Each entry is one of:
//
//   - a file: that file;
//   - a directory (an existing one, or a path ending in a separator):
//     every file below it;
//   - a glob (`*`, `?`, `[...]`; `**` is refused): exactly the files it
//     matches when Sandbox runs, and the listing of that one pattern.
//
// Relative entries are resolved against the working directory. Sandbox
// then locks the engine's configuration so no statement can lift the
// limit; it is one-way, with no undo.
type Sandboxer interface {
	Sandbox(ctx context.Context, allow []string) error
}

// Sandbox sandboxes eng with allow when it is a Sandboxer and leaves
// other engines alone: a networked engine's reach is its login's
// (docs/governance.md, "What governance guarantees and what it does
// not").
func Sandbox(ctx context.Context, eng Engine, allow []string) error {
	s, ok := eng.(Sandboxer)
	if !ok {
		return nil
	}
	return s.Sandbox(ctx, allow)
}

// Pooled is implemented by engines that hold a bounded pool of
// connections; PoolSize is its maximum. The server keeps its in-flight
// queries below it, so probes and other callers always find a connection.
type Pooled interface {
	PoolSize() int
}
