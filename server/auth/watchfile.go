package auth

import (
	"context"
	"crypto/sha256"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"
)

// DefaultReloadInterval is how often a watched credentials file is re-read
// even without a file-system event (network file systems, missed events).
const DefaultReloadInterval = 30 * time.Second

// reloadDebounce lets a burst of events (a Secret update is several
// renames; an editor writes in steps) settle into one read.
const reloadDebounce = 100 * time.Millisecond

// watchedFile holds the last good parse of a credentials file and re-reads
// it when it changes. It watches the file's directory, not the file: a
// Kubernetes Secret volume replaces its files by swapping the `..data`
// symlink atomically, which never touches the watched path itself, and an
// editor's rename-over replaces the inode. A change that does not parse
// keeps the last good value serving, and is logged and counted once per
// distinct content.
type watchedFile[T any] struct {
	path  string
	kind  string // metric label and log field: which file
	parse func([]byte) (T, error)
	log   *slog.Logger
	m     *authMetrics

	cur atomic.Pointer[T]
	// onMissing, when set, is installed when the file no longer exists
	// (the tokens file: deletion revokes every token). Nil keeps the last
	// good value, as for a broken file.
	onMissing *T

	mu     sync.Mutex
	digest [sha256.Size]byte // of the content last tried, good or bad
	failed atomic.Bool       // the newest content was refused
}

// loadWatchedFile reads and parses path once; a missing or broken file is
// an error (start-up must not serve without the credentials it was given).
func loadWatchedFile[T any](path, kind string, parse func([]byte) (T, error), log *slog.Logger, m *authMetrics) (*watchedFile[T], error) {
	w := &watchedFile[T]{path: path, kind: kind, parse: parse, log: log, m: m}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	v, err := parse(data)
	if err != nil {
		return nil, err
	}
	w.cur.Store(&v)
	w.digest = sha256.Sum256(data)
	m.reloads.WithLabelValues(kind, "ok").Inc()
	return w, nil
}

// get returns the last good value.
func (w *watchedFile[T]) get() T { return *w.cur.Load() }

// reload re-reads the file; unchanged content is a no-op. It reports
// whether a new value was installed.
func (w *watchedFile[T]) reload() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	data, err := os.ReadFile(w.path)
	if errors.Is(err, fs.ErrNotExist) && w.onMissing != nil {
		// Secret volumes and editors replace the file by an atomic
		// rename, so the path never goes missing mid-update: a missing
		// file was deleted on purpose.
		if w.cur.Load() != w.onMissing {
			w.cur.Store(w.onMissing)
			w.failed.Store(true)
			w.m.reloads.WithLabelValues(w.kind, "error").Inc()
			w.log.Error("credentials file deleted: every credential it held is revoked until it is back", "file", w.kind, "path", w.path)
		}
		w.digest = [sha256.Size]byte{}
		return true
	}
	if err != nil {
		// A missing file mid-swap reads again at the next event or poll.
		if !w.failed.Swap(true) {
			w.m.reloads.WithLabelValues(w.kind, "error").Inc()
			w.log.Error("cannot read credentials file; keeping the last good one", "file", w.kind, "path", w.path, "error", err)
		}
		w.digest = [sha256.Size]byte{}
		return false
	}
	d := sha256.Sum256(data)
	if d == w.digest {
		return false
	}
	w.digest = d
	v, err := w.parse(data)
	if err != nil {
		w.failed.Store(true)
		w.m.reloads.WithLabelValues(w.kind, "error").Inc()
		w.log.Error("refused a changed credentials file; keeping the last good one", "file", w.kind, "path", w.path, "error", err)
		return false
	}
	w.cur.Store(&v)
	w.failed.Store(false)
	w.m.reloads.WithLabelValues(w.kind, "ok").Inc()
	w.log.Info("reloaded credentials file", "file", w.kind, "path", w.path)
	return true
}

// run reloads on directory events and every interval until ctx is done.
// Without a working watcher (no inotify) it polls only.
func (w *watchedFile[T]) run(ctx context.Context, interval time.Duration) {
	WatchDirs(ctx, []string{filepath.Dir(w.path)}, interval, w.log.With("file", w.kind), func() { w.reload() })
}

// WatchDirs calls reload after file-system events in dirs settle
// (reloadDebounce) and every interval (default DefaultReloadInterval)
// until ctx is done. It watches directories, not files, for the reasons
// given at watchedFile. Without a working watcher (no inotify) it polls
// only.
func WatchDirs(ctx context.Context, dirs []string, interval time.Duration, log *slog.Logger, reload func()) {
	if interval <= 0 {
		interval = DefaultReloadInterval
	}
	var events <-chan fsnotify.Event
	var errs <-chan error
	if fw, err := fsnotify.NewWatcher(); err != nil {
		log.Warn("cannot watch files; polling only", "interval", interval.String(), "error", err)
	} else {
		defer fw.Close()
		events, errs = fw.Events, fw.Errors
		for _, d := range dirs {
			if err := fw.Add(d); err != nil {
				log.Warn("cannot watch a directory; polling only", "dir", d, "interval", interval.String(), "error", err)
				events, errs = nil, nil
				break
			}
		}
	}
	poll := time.NewTicker(interval)
	defer poll.Stop()
	debounce := time.NewTimer(time.Hour)
	debounce.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-events:
			if !ok {
				events = nil // the watcher died; the poll still runs
				continue
			}
			debounce.Reset(reloadDebounce)
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			log.Warn("file watch error", "error", err)
		case <-debounce.C:
			reload()
		case <-poll.C:
			reload()
		}
	}
}
