// Package binaries tests what every built binary (ossiectl, server,
// operator) offers on its own command line: --version and shell
// completion. The binaries are built once per run with `go build`, the
// version linked as the Dockerfile links it, and run as processes; the
// bash completion scripts they print are loaded into a real bash, which
// asks the binary for completions as a user's shell would.
package binaries

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/compiler"
)

const linkedVersion = "v0.0.0-binaries-test"

var names = []string{"ossiectl", "server", "operator"}

// bin is the directory holding the built binaries (TestMain).
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ossie-binaries-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = dir
	ldflags := "-X github.com/ossie-dev/ossie/internal/buildinfo.Version=" + linkedVersion +
		" -X github.com/ossie-dev/ossie/ossiectl.Version=" + linkedVersion
	// One go build for the three: they are linked in parallel.
	args := []string{"build", "-ldflags", ldflags, "-o", dir + string(os.PathSeparator)}
	for _, n := range names {
		args = append(args, "./cmd/"+n)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = "../.."
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go %s: %v\n%s", strings.Join(args, " "), err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func runBin(t *testing.T, name string, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, name), args...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

// TestVersionFlag: `--version` of every binary prints the linked version,
// the document versions read and the artifact format, exit 0.
func TestVersionFlag(t *testing.T) {
	for _, n := range names {
		out, errs, err := runBin(t, n, "--version")
		want := n + " " + linkedVersion + "\n" +
			"document versions: " + strings.Join(ossie.SupportedVersions, ", ") + "\n" +
			"artifact format: " + compiler.ArtifactFormat + "\n"
		if err != nil || out != want {
			t.Errorf("%s --version: %v\n%q\nwant %q\n%s", n, err, out, want, errs)
		}
	}
	// ossiectl's version command says the same.
	if out, _, err := runBin(t, "ossiectl", "version"); err != nil || !strings.HasPrefix(out, "ossiectl "+linkedVersion+"\ndocument versions: ") {
		t.Errorf("ossiectl version: %v %q", err, out)
	}
}

// bashCompletion is the bash-completion package's library, which
// cobra's bash scripts call (_get_comp_words_by_ref), as in a user's
// interactive shell; scripts/install-deps.sh installs it.
const bashCompletion = "/usr/share/bash-completion/bash_completion"

// TestBashCompletion loads each binary's `completion bash` script into
// bash and completes a partial command line the way bash does on TAB:
// the script calls the binary (`__complete`) and fills COMPREPLY.
func TestBashCompletion(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal("bash is needed to test the completion scripts")
	}
	if _, err := os.Stat(bashCompletion); err != nil {
		t.Fatalf("%v: run scripts/install-deps.sh (installs bash-completion)", err)
	}
	for _, tc := range []struct {
		name  string
		words []string // the command line, the last word being completed
		want  []string // all of them in COMPREPLY
		not   []string // none of them
	}{
		{"ossiectl", []string{"li"}, []string{"list"}, []string{"query"}},
		{"ossiectl", []string{"list", ""}, []string{"models", "metrics", "dimensions"}, nil},
		{"ossiectl", []string{"sql", "--dialect", ""}, []string{"duckdb", "postgres", "trino"}, nil},
		{"ossiectl", []string{"comp"}, []string{"completion"}, nil},
		{"server", []string{"--eng"}, []string{"--engine"}, nil},
		{"server", []string{"--engine", ""}, []string{"duckdb", "postgres", "trino"}, nil},
		{"server", []string{"--ver"}, []string{"--version"}, nil},
		{"operator", []string{"--leader-el"}, []string{"--leader-elect", "--leader-election-id", "--leader-election-namespace"}, []string{"--engine"}},
		{"operator", []string{"--engine", "po"}, []string{"postgres"}, []string{"duckdb"}},
	} {
		t.Run(tc.name+" "+strings.Join(tc.words, " "), func(t *testing.T) {
			script, errs, err := runBin(t, tc.name, "completion", "bash")
			if err != nil || !strings.Contains(script, "__start_"+tc.name) {
				t.Fatalf("%s completion bash: %v\n%.200s\n%s", tc.name, err, script, errs)
			}
			file := filepath.Join(t.TempDir(), tc.name+".bash")
			if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
				t.Fatal(err)
			}
			words := append([]string{filepath.Join(bin, tc.name)}, tc.words...)
			quoted := make([]string, len(words))
			for i, w := range words {
				quoted[i] = "'" + w + "'"
			}
			line := strings.Join(words, " ")
			prog := fmt.Sprintf("source %s\nsource %s\nCOMP_WORDS=(%s)\nCOMP_CWORD=%d\nCOMP_LINE='%s'\nCOMP_POINT=%d\n__start_%s\nprintf '%%s\\n' \"${COMPREPLY[@]}\"\n",
				bashCompletion, file, strings.Join(quoted, " "), len(words)-1, line, len(line), tc.name)
			cmd := exec.Command(bash, "--norc", "--noprofile", "-c", prog)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("bash: %v\n%s", err, out)
			}
			got := strings.Fields(string(out))
			for _, w := range tc.want {
				if !contains(got, w) {
					t.Errorf("completions %q lack %q", got, w)
				}
			}
			for _, w := range tc.not {
				if contains(got, w) {
					t.Errorf("completions %q include %q", got, w)
				}
			}
		})
	}
}

// TestOtherShells: zsh, fish and powershell scripts are printed too.
func TestOtherShells(t *testing.T) {
	for _, n := range names {
		for _, sh := range []string{"zsh", "fish", "powershell"} {
			out, errs, err := runBin(t, n, "completion", sh)
			if err != nil || !strings.Contains(out, n) || len(out) < 500 {
				t.Errorf("%s completion %s: %v\n%.200s\n%s", n, sh, err, out, errs)
			}
		}
	}
	// A server still refuses positional arguments: completion exists only
	// when asked for.
	if _, errs, err := runBin(t, "server", "extra"); err == nil || !strings.Contains(errs, `unexpected argument "extra"`) {
		t.Errorf("server extra: %v %s", err, errs)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
