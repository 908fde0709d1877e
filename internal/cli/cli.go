// Package cli is the command-line convention cmd/server and cmd/operator
// share with ossiectl: cobra commands, GNU-style flags (--flag=value or
// --flag value), examples and exit codes in --help, and a usage error
// reported as one line (the reason) plus a hint pointing at --help, never
// the whole flag list.
//
// `<name> completion bash|zsh|fish|powershell` prints a shell completion
// script (cobra's), completing flag names and the values RegisterEnum
// lists.
//
// Exit codes: 0 done (also --help and --version), 1 a start-up or serving
// failure, 2 bad usage (unknown flag, bad value, missing or conflicting
// flags, positional arguments).
package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Exit codes returned by Run.
const (
	ExitOK      = 0
	ExitFailure = 1
	ExitUsage   = 2
)

// usageError is a refusal of the command line: Run prints its message and
// the hint, and returns ExitUsage.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// Usagef is the error a RunE returns for a command line it refuses.
func Usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// NoArgs refuses positional arguments as a usage error.
func NoArgs(_ *cobra.Command, args []string) error {
	if len(args) > 0 {
		return Usagef("unexpected argument %q: this command takes flags only", args[0])
	}
	return nil
}

// Run executes cmd with args (without the program name) and returns the
// exit code: ExitUsage after printing "<name>: <reason>" and a hint to
// stderr for a refused command line, ExitFailure for any other error
// RunE returns (printed the same way unless empty), ExitOK otherwise.
// Help goes to stdout. Long flags written with one dash, as the standard
// library's flag package allowed (-addr=:8080), keep working.
func Run(cmd *cobra.Command, args []string, stdout, stderr io.Writer) int {
	cmd.SilenceErrors = true
	cmd.SilenceUsage = true
	// Cobra's `completion bash|zsh|fish|powershell` stays: on a command
	// without subcommands it exists only when called, so positional
	// arguments are still refused as before.
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{msg: err.Error()} })
	cmd.InitDefaultHelpFlag() // so -help is known to doubleDash
	cmd.SetArgs(doubleDash(args, cmd.Flags()))
	err := cmd.Execute()
	if err == nil {
		return ExitOK
	}
	name := cmd.Name()
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "%s: %s\nRun '%s --help' for usage and examples.\n", name, ue.msg, name)
		return ExitUsage
	}
	if msg := err.Error(); msg != "" {
		fmt.Fprintf(stderr, "%s: %s\n", name, msg)
	}
	return ExitFailure
}

// Failed is the error a RunE returns after it has reported the failure
// itself (a structured log line): Run then exits 1 without printing more.
var Failed = errors.New("")

// doubleDash rewrites "-name" and "-name=value" into "--name..." when name
// is a long flag of fs, so command lines written for the standard
// library's flag package still parse. Shorthands (-v) and everything after
// "--" are left alone.
func doubleDash(args []string, fs *pflag.FlagSet) []string {
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if len(a) > 2 && a[0] == '-' && a[1] != '-' {
			name, _, _ := strings.Cut(a[1:], "=")
			if len(name) > 1 && fs.Lookup(name) != nil {
				a = "-" + a
			}
		}
		out = append(out, a)
	}
	return out
}

// RegisterEnum completes flag name of cmd with values (shell completion),
// and no file names.
func RegisterEnum(cmd *cobra.Command, name string, values ...string) {
	_ = cmd.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
}
