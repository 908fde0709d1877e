package ossiectl

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ossie-dev/ossie/api/ossie"
)

// Version is the binary version, set at build time with
// -ldflags "-X github.com/ossie-dev/ossie/ossiectl.Version=v0.1.0".
// When unset, the module version or VCS revision is used.
var Version = ""

// BinaryVersion reports Version, else what the Go toolchain recorded.
func BinaryVersion() string {
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

func (e *env) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the binary version and the Ossie document versions it reads",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintf(e.stdout, "ossiectl %s\n", BinaryVersion())
			fmt.Fprintf(e.stdout, "supported document versions: %s\n", strings.Join(ossie.SupportedVersions, ", "))
			return nil
		},
	}
}
