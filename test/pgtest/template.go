package pgtest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// initdb template: one cluster per machine (keyed by the binaries, the
// options below and the OS user) lives in the temporary directory; each
// Start copies it, which takes a fraction of initdb's time.
const (
	templatePrefix = "ossie-pgtemplate-"
	templateDone   = "complete" // written last: a template without it is unusable
)

// initdbArgs: local (socket) connections are trusted — only the harness's
// own user can reach the 0700 socket directory; TCP needs the password, so
// clients exercise real credential handling. C locale: byte order, as DuckDB
// sorts strings.
var initdbArgs = []string{"-U", Superuser, "--auth-host=scram-sha-256", "--auth-local=trust",
	"-E", "UTF8", "--locale=C", "--no-sync"}

// template returns the directory holding the machine's initialised
// cluster (data/), creating it when missing. Concurrent test binaries may
// race to create it; each builds its own and the first rename wins.
func (s *Server) template() (string, error) {
	final := filepath.Join(os.TempDir(), templatePrefix+s.templateKey())
	if _, err := os.Stat(filepath.Join(final, templateDone)); err == nil {
		return final, nil
	}
	tmp, err := os.MkdirTemp("", templatePrefix+"tmp-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp) // after a successful rename, nothing is left here
	pwfile := filepath.Join(tmp, "pwfile")
	// initdb needs a password to enable password authentication; each
	// server replaces it with its own at start.
	if err := os.WriteFile(pwfile, []byte(randomHex(16)+"\n"), 0o600); err != nil {
		return "", err
	}
	if s.cred != nil {
		if err := chownTree(tmp, int(s.cred.Uid), int(s.cred.Gid)); err != nil {
			return "", err
		}
	}
	cmd := s.command("initdb", append([]string{"-D", filepath.Join(tmp, "data"), "--pwfile", pwfile}, initdbArgs...)...)
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("pgtest: initdb: %v\n%s", err, out)
	}
	_ = os.Remove(pwfile)
	if err := os.WriteFile(filepath.Join(tmp, templateDone), nil, 0o644); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, final); err != nil {
		// Another process made it first; use theirs once it is complete.
		if _, serr := os.Stat(filepath.Join(final, templateDone)); serr == nil {
			return final, nil
		}
		return "", fmt.Errorf("pgtest: installing the initdb template: %w", err)
	}
	return final, nil
}

// templateKey identifies a template: binaries (path and build time),
// initdb options and the user owning the files.
func (s *Server) templateKey() string {
	h := sha256.New()
	fi, _ := os.Stat(filepath.Join(s.bin, "initdb"))
	if fi != nil {
		fmt.Fprint(h, fi.ModTime().UnixNano(), fi.Size())
	}
	uid := os.Geteuid()
	if s.cred != nil {
		uid = int(s.cred.Uid)
	}
	fmt.Fprint(h, s.bin, strings.Join(initdbArgs, " "), uid)
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// removeStaleTemplates deletes half-built templates of crashed runs.
func removeStaleTemplates() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), templatePrefix+"tmp-*"))
	for _, d := range dirs {
		if fi, err := os.Stat(d); err == nil && time.Since(fi.ModTime()) > 30*time.Minute {
			_ = os.RemoveAll(d)
		}
	}
}
