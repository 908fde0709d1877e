package ossiectl

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/google/renameio/v2"
)

// writeAtomic replaces name with data so that a reader (or a crash) sees
// either the old content or the new, never a mix: the bytes go to a
// temporary file in the same directory, which is fsynced and renamed over
// name (google/renameio). An existing file keeps its permission bits; a new
// one gets 0644 minus the umask. A symbolic link is followed, so the link
// stays and its target is replaced.
func writeAtomic(name string, data []byte) error {
	target := name
	if resolved, err := filepath.EvalSymlinks(name); err == nil {
		target = resolved
	} else if !os.IsNotExist(err) {
		return err
	}
	if err := renameio.WriteFile(target, data, 0o644, renameio.WithTempDir(filepath.Dir(target))); err != nil {
		return fmt.Errorf("cannot write %s: %w", name, err)
	}
	return nil
}
