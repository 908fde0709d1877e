package differential

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ossie-dev/ossie/ossiectl"
	"github.com/ossie-dev/ossie/test/differential/dcase"
)

// DSN environment variables: the entry points take a connection string
// only from the environment or a file, never a flag.
const (
	PostgresDSNEnv = "OSSIE_DIFFERENTIAL_PG_DSN"
	TrinoDSNEnv    = "OSSIE_DIFFERENTIAL_TRINO_DSN"
)

// Files are a case's documents written where the entry points read them.
type Files struct {
	Model, Governance string // Governance "" when the case has none
}

// WriteFiles writes c's model (and governance) document into dir.
func WriteFiles(dir string, c dcase.Case) (Files, error) {
	f := Files{Model: filepath.Join(dir, "model.yaml")}
	if err := os.WriteFile(f.Model, c.Model, 0o600); err != nil {
		return f, err
	}
	if c.Governance != nil {
		f.Governance = filepath.Join(dir, "governance.yaml")
		if err := os.WriteFile(f.Governance, c.Governance, 0o600); err != nil {
			return f, err
		}
	}
	return f, nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// errNoTotal: `total` is an answer option of the server's HTTP API
// (docs/server.md), which ossiectl query does not take.
var errNoTotal = fmt.Errorf("%w: ossiectl query takes no total (an option of the HTTP query API)", ErrNotApplicable)

// engineArgs are the engine and compile-default flags ossiectl and the
// server share for a place.
func engineArgs(p Place) []string {
	args := []string{"--default-schema", p.Schema}
	switch p.Engine {
	case DuckDB:
		args = append(args, "--duckdb", p.DuckDBPath)
	case Postgres:
		args = append(args, "--engine", "postgres", "--dsn-env", PostgresDSNEnv)
	case Trino:
		args = append(args, "--engine", "trino", "--dsn-env", TrinoDSNEnv, "--default-catalog", p.Catalog)
	}
	return args
}

// callerArgs are --role and --attr for c's caller.
func callerArgs(c *dcase.Caller) []string {
	if c == nil {
		return nil
	}
	var args []string
	for _, r := range c.Roles {
		args = append(args, "--role", r)
	}
	for _, k := range sortedKeys(c.Attributes) {
		args = append(args, "--attr", k+"="+c.Attributes[k])
	}
	return args
}

// OssiectlArgs is the command line of `ossiectl query` for c in format
// (json or csv) at p, as a user would type it (the replay line prints it).
func OssiectlArgs(c dcase.Case, files Files, p Place, format string) []string {
	args := []string{"query", files.Model, "--model", c.ModelName, "--query", string(c.Query), "-f", format}
	args = append(args, engineArgs(p)...)
	if files.Governance != "" {
		args = append(args, "--governance", files.Governance)
	}
	return append(args, callerArgs(c.Caller)...)
}

// RunOssiectl runs `ossiectl query` in process (ossiectl.Do, as its own
// tests do) and decodes its stdout: -f json with encoding/json, -f csv
// with encoding/csv typed by want's columns. A non-zero exit is a refusal
// with the codes of its stderr.
func RunOssiectl(_ context.Context, c dcase.Case, files Files, p Place, format string) (Outcome, error) {
	if hasKey(c.Query, "total") {
		return Outcome{}, errNoTotal
	}
	var out, errb bytes.Buffer
	code := ossiectl.Do(OssiectlArgs(c, files, p, format), strings.NewReader(""), &out, &errb)
	if code != ossiectl.ExitOK {
		if code != ossiectl.ExitProblems {
			return Outcome{}, fmt.Errorf("ossiectl exit %d: %s", code, errb.String())
		}
		return refusal(errb.String()), nil
	}
	var res dcase.Result
	var err error
	switch format {
	case "json":
		res, err = DecodeJSON(out.Bytes())
	case "csv":
		res, err = DecodeCSV(out.Bytes(), c.Want)
	default:
		return Outcome{}, fmt.Errorf("format %q", format)
	}
	if err != nil {
		return Outcome{}, fmt.Errorf("%w\nstdout:\n%s", err, out.String())
	}
	return answer(res), nil
}
