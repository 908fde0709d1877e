// Command cluster runs the flights example on a local control plane, on
// loopback only, and keeps it running until Ctrl-C: etcd and
// kube-apiserver, PostgreSQL loaded with the flights data, the CRD, the
// operator and the server in Kubernetes mode, the flights SemanticModel
// Ready, one question answered (test/localcluster does the work; its
// end-to-end test runs the same code). `make cluster-demo` runs it.
//
//	go run ./examples/flights/cluster [--data DIR] [--addr 127.0.0.1:8080]
//
// Exit codes: 0 stopped by Ctrl-C/SIGTERM, 1 the start failed, 2 usage.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ossie-dev/ossie/internal/cli"
	"github.com/ossie-dev/ossie/test/localcluster"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o localcluster.Options
	cmd := &cobra.Command{
		Use:   "cluster",
		Short: "The operator, the server and PostgreSQL with the flights data on a local control plane",
		Long: "cluster starts etcd and kube-apiserver (bin/k8s, built by scripts/kube-tools.sh on first\n" +
			"use), a PostgreSQL server loaded with the flights data, the SemanticModel CRD, the\n" +
			"operator and the server in Kubernetes mode, all on 127.0.0.1; applies\n" +
			"examples/flights/semanticmodel.yaml, waits until it is Ready, answers one question,\n" +
			"prints what to try next and runs until Ctrl-C, which stops everything it started.\n" +
			"\n" +
			"Exit status:\n" +
			"  0  stopped by Ctrl-C or SIGTERM\n" +
			"  1  the start failed\n" +
			"  2  usage",
		Example: "  make cluster-demo\n" +
			"  go run ./examples/flights/cluster --data examples/flights/data --addr 127.0.0.1:8090",
		Args: cli.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			o.Log = stdout
			return demo(ctx, o, stdout)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.DataDir, "data", "", "flights data directory (default: examples/flights/data/full after make fetch-flights, else the committed sample)")
	f.StringVar(&o.ServerAddr, "addr", "", "the server's listen address (default: a free loopback port)")
	f.StringVar(&o.Namespace, "namespace", "analytics", "namespace of the SemanticModel")
	return cli.Run(cmd, args, stdout, stderr)
}

func demo(ctx context.Context, o localcluster.Options, w io.Writer) error {
	begin := time.Now()
	c, err := localcluster.Start(ctx, o)
	if err != nil {
		return err
	}
	defer func() {
		fmt.Fprintln(w, "\nstopping the server, the operator, kube-apiserver, etcd and PostgreSQL")
		if err := c.Stop(); err != nil {
			fmt.Fprintln(w, "stop:", err)
		}
	}()
	fmt.Fprintf(w, "\nReady in %s. The question %s:\n\n", time.Since(begin).Round(time.Second), localcluster.Question)
	a, err := c.Ask(ctx, localcluster.Question)
	if err != nil {
		return err
	}
	printAnswer(w, a)
	fmt.Fprintf(w, "\n%s\nCtrl-C stops everything.\n", c.Summary())
	<-ctx.Done()
	return nil
}

func printAnswer(w io.Writer, a *localcluster.Answer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	names := make([]string, len(a.Columns))
	for i, col := range a.Columns {
		names[i] = col.Name
	}
	fmt.Fprintln(tw, "  "+strings.Join(names, "\t"))
	for _, r := range a.Rows {
		cells := make([]string, len(r))
		for i, v := range r {
			cells[i] = fmt.Sprint(v)
		}
		fmt.Fprintln(tw, "  "+strings.Join(cells, "\t"))
	}
	tw.Flush()
	fmt.Fprintf(w, "  (model version %s)\n", a.ModelVersion)
}
