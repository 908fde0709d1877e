package ossiectl

import (
	"os"
	"strings"

	"github.com/spf13/pflag"
)

// tokenFlags are --token-env and --token-file: where a command reads the
// bearer token it sends (enrich to DataHub, list to an Ossie server).
// Never a flag holding the token itself: flags show in process listings.
type tokenFlags struct {
	env, file string
	// service names what the token is for, in help and errors.
	service string
}

func (t *tokenFlags) register(f *pflag.FlagSet, defaultEnv, service string) {
	t.service = service
	f.StringVar(&t.env, "token-env", defaultEnv, "environment variable holding the "+service+" access token")
	f.StringVar(&t.file, "token-file", "", "file holding the "+service+" access token (e.g. a mounted Secret)")
}

// read returns the token from --token-file, else the environment variable
// (surrounding spaces and the trailing newline removed); "" means none.
func (t *tokenFlags) read() (string, error) {
	if t.file != "" {
		b, err := os.ReadFile(t.file)
		if err != nil {
			return "", failf("cannot read --token-file: %v. Next: point --token-file at the file holding a %s access token", err, t.service)
		}
		return strings.TrimSpace(string(b)), nil
	}
	return strings.TrimSpace(os.Getenv(t.env)), nil
}
