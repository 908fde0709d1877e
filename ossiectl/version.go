package ossiectl

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ossie-dev/ossie/internal/buildinfo"
)

// Version is the binary version, set at build time with
// -ldflags "-X github.com/ossie-dev/ossie/ossiectl.Version=v0.1.0".
// When unset, the module version or VCS revision is used.
var Version = ""

// BinaryVersion reports Version, else what the Go toolchain recorded
// (internal/buildinfo, shared with the operator and the server).
func BinaryVersion() string {
	if Version != "" {
		return Version
	}
	return buildinfo.String()
}

func (e *env) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the binary version, the Ossie document versions it reads and the artifact format",
		Example: "  ossiectl version\n  ossiectl --version",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprint(e.stdout, buildinfo.Report("ossiectl", BinaryVersion()))
			return nil
		},
	}
}
