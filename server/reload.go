package server

import (
	"context"
	"crypto/sha256"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/ossie-dev/ossie/server/auth"
	"github.com/ossie-dev/ossie/server/load"
)

// filesSource is the store source of local mode's model files.
const filesSource = "files"

// LoadErrorCompile counts a changed model or governance file that does
// not compile (ossie_server_artifact_load_errors_total reason).
const LoadErrorCompile = "compile"

// Reloader recompiles a local-mode server's model files when they change
// and swaps the new models in atomically (Store.Set: requests already
// planning keep the version they looked up). A change that does not
// compile, or does not bind to the engine (a renamed column: ModelFiles
// RefuseDrift), leaves the last good models serving; its problems are
// logged, counted and shown in /readyz and /v1/models until a good
// version loads.
type Reloader struct {
	s     *Server
	files load.ModelFiles
	log   *slog.Logger

	mu     sync.Mutex
	digest [sha256.Size]byte
	// bindFailed: the newest files were refused because they do not bind
	// (or the engine did not answer); each poll tries them again, since
	// the engine may change instead of the files (a column renamed after
	// the model). lastErr is that refusal, reported once.
	bindFailed bool
	lastErr    string
}

// WatchModelFiles watches files (the ones s was started with, as
// Config.Models) until ctx is done: file-system events on their
// directories (debounced) and a poll every interval (default
// DefaultReloadInterval) reload them when their content changed.
func (s *Server) WatchModelFiles(ctx context.Context, files load.ModelFiles, interval time.Duration) *Reloader {
	r := &Reloader{s: s, files: files, log: s.cfg.Logger, digest: files.Digest()}
	r.checkServedBinding(ctx)
	var dirs []string
	for _, p := range files.All() {
		if d := filepath.Dir(p); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	go auth.WatchDirs(ctx, dirs, interval, r.log.With("watch", "model files"), func() { _ = r.reload(false) })
	return r
}

// ReloadOn reloads the files on each of sigs (SIGHUP) until ctx is done,
// even when their content looks unchanged; the signals then no longer
// stop the process.
func (r *Reloader) ReloadOn(ctx context.Context, sigs ...os.Signal) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	go func() {
		defer signal.Stop(ch)
		for {
			select {
			case <-ctx.Done():
				return
			case sig := <-ch:
				r.log.Info("reloading model files", "signal", sig.String())
				_ = r.Reload()
			}
		}
	}()
}

// Reload recompiles the files now and swaps them in; the error lists the
// problems of a refused version (the last good one keeps serving).
func (r *Reloader) Reload() error { return r.reload(true) }

func (r *Reloader) reload(force bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	d := r.files.Digest()
	retry := !force && d == r.digest
	if retry && !r.bindFailed {
		if _, drift := r.s.store.servedArtifacts(filesSource); drift {
			r.checkServedBinding(context.Background())
		}
		return nil
	}
	r.digest = d
	src := Source{Key: filesSource}
	// An edit that does not bind never replaces a version that does; one
	// that is served without binding (its tables are not there yet) is
	// no better than the edit, which swaps in and is checked the same way.
	files := r.files
	_, drifted := r.s.store.servedArtifacts(filesSource)
	files.RefuseDrift = !drifted
	arts, err := files.Load(context.Background())
	if err != nil {
		reason := loadErrorReason(err)
		r.bindFailed = reason == LoadErrorBind
		if retry && err.Error() == r.lastErr {
			if _, drift := r.s.store.servedArtifacts(filesSource); drift {
				r.checkServedBinding(context.Background())
			}
			return err // refused as before: already logged and counted
		}
		r.lastErr = err.Error()
		r.s.store.Fail(src, reason, err)
		return err
	}
	r.bindFailed, r.lastErr = false, ""
	drift := ""
	if drifted {
		drift, _ = r.bindDrift(context.Background(), arts)
	}
	if err := r.s.store.SetDrifted(src, arts, drift); err != nil {
		return err
	}
	r.s.rollupsChanged()
	versions := map[string]string{}
	for _, a := range arts {
		versions[a.Name] = a.Version
	}
	r.log.Info("reloaded model files", "models", versions)
	return nil
}
