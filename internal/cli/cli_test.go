package cli

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestRun: exit codes, the one-line usage error with its hint, help on
// stdout, and the standard library's single-dash long flags.
func TestRun(t *testing.T) {
	var addr string
	var verbose bool
	newCmd := func(runE func() error) *cobra.Command {
		c := &cobra.Command{Use: "x", Args: NoArgs, RunE: func(*cobra.Command, []string) error { return runE() },
			Example: "  x --addr=127.0.0.1:1"}
		c.Flags().StringVar(&addr, "addr", "", "listen address")
		c.Flags().BoolVarP(&verbose, "verbose", "v", false, "debug")
		return c
	}
	ok := func() error { return nil }
	for _, tc := range []struct {
		args       []string
		run        func() error
		code       int
		out, err   string
		addr       string
		verboseSet bool
	}{
		{args: []string{"--addr=a:1"}, run: ok, addr: "a:1"},
		{args: []string{"-addr", "b:1", "-v"}, run: ok, addr: "b:1", verboseSet: true},
		{args: []string{"-addr=c:1", "--", "-addr=d"}, run: ok, code: 2, err: "x: unexpected argument \"-addr=d\""},
		{args: []string{"--nope"}, run: ok, code: 2, err: "x: unknown flag: --nope\nRun 'x --help' for usage and examples.\n"},
		{args: []string{"-help"}, run: ok, out: "Examples:\n  x --addr=127.0.0.1:1"},
		{args: nil, run: func() error { return Usagef("--addr is required") }, code: 2, err: "x: --addr is required\nRun 'x --help' for usage and examples.\n"},
		{args: nil, run: func() error { return Failed }, code: 1},
	} {
		addr, verbose = "", false
		var out, errOut strings.Builder
		code := Run(newCmd(tc.run), tc.args, &out, &errOut)
		if code != tc.code || !strings.Contains(out.String(), tc.out) || !strings.HasPrefix(errOut.String(), tc.err) ||
			(tc.code == 0 && tc.out == "" && (addr != tc.addr || verbose != tc.verboseSet)) || (tc.err == "" && errOut.Len() > 0) {
			t.Errorf("%q: exit %d addr %q v %v\nstdout: %s\nstderr: %s", tc.args, code, addr, verbose, out.String(), errOut.String())
		}
	}
}
