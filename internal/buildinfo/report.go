package buildinfo

import (
	"fmt"
	"strings"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/compiler"
)

// Report is what `--version` prints for every binary (ossiectl, server,
// operator), three lines:
//
//	<name> <version>
//	document versions: 0.1.1, 0.2.0.dev0
//	artifact format: ossie.dev/artifact/v1
//
// The first line alone is what scripts/image-check.sh compares; the
// others say which Ossie documents (ossie.SupportedVersions) this build
// reads and which artifact layout (compiler.ArtifactFormat) it writes and
// serves, so an operator and a server of different releases can be
// matched by reading both.
func Report(name, version string) string {
	return fmt.Sprintf("%s %s\ndocument versions: %s\nartifact format: %s\n",
		name, version, strings.Join(ossie.SupportedVersions, ", "), compiler.ArtifactFormat)
}
