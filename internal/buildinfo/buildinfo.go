// Package buildinfo reports the version of the running binary, for the
// --version flags of cmd/operator and cmd/server.
package buildinfo

import "runtime/debug"

// Version is set at build time with
// -ldflags "-X github.com/ossie-dev/ossie/internal/buildinfo.Version=v0.1.0"
// (the Dockerfile and `make image-check` do). When unset, String falls back
// to what the Go toolchain recorded.
var Version = ""

// String returns Version; else the module version; else "dev-" and the
// first 12 hex digits of the VCS revision (with "-dirty" for a modified
// tree); else "dev".
func String() string {
	if Version != "" {
		return Version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" {
		return "dev-" + rev + dirty
	}
	return "dev"
}
