package ossiectl

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/internal/cli"
	"github.com/ossie-dev/ossie/server"
)

// listKinds are what `ossiectl list` lists, in the order help shows them.
var listKinds = []string{"models", "metrics", "dimensions"}

type listOptions struct {
	server    string
	model     string
	namespace string
	format    string
	timeout   time.Duration
	tokens    tokenFlags
	opts      compiler.CompileOptions
}

func (e *env) listCmd() *cobra.Command {
	var o listOptions
	cmd := &cobra.Command{
		Use:   "list models|metrics|dimensions [FILE]",
		Short: "List the models, metrics or dimensions of a model file or of a running server",
		Long: "list prints what a client may ask for: the models, their metrics, or their dimensions\n" +
			"(`dataset.field`, with the grains a time dimension takes). It reads them from FILE (an Ossie\n" +
			"document or a SemanticModel manifest, compiled as `ossiectl validate` does) or, with --server URL,\n" +
			"from a running server's GET /v1/models and /v1/models/{model}: the same metadata either way,\n" +
			"computed by the server's code (docs/server.md, \"Metadata\"). Against a server the answer is what\n" +
			"the token's roles may read; for FILE, --governance with --role does the same.\n" +
			"Fields without a datatype show none from FILE: the server fills it from the engine at load.\n" +
			"\n" +
			"The token is read from the environment variable --token-env (default OSSIE_TOKEN) or from\n" +
			"--token-file and sent as a Bearer token; it is never printed. Without one the request is\n" +
			"anonymous, which a server without authentication (loopback) answers.\n" +
			"\n" +
			"Exit status: 0 done; 1 the file has problems or the server refused the request (401, 404);\n" +
			"2 usage; 3 the server could not be reached.",
		Example: "  ossiectl list metrics examples/flights/model.yaml\n" +
			"  ossiectl list dimensions examples/flights/model.yaml --format json\n" +
			"  OSSIE_TOKEN=... ossiectl list models --server http://127.0.0.1:8080",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("%s needs what to list: one of %s", cmd.CommandPath(), strings.Join(listKinds, ", "))
			}
			if !isListKind(args[0]) {
				hint := ""
				if s := compiler.DidYouMean(args[0], listKinds); s != "" {
					hint = fmt.Sprintf(" (did you mean %q?)", s)
				}
				return usagef("cannot list %q%s: one of %s", args[0], hint, strings.Join(listKinds, ", "))
			}
			switch {
			case len(args) > 2:
				return usagef("%s takes what to list and at most one FILE, got %d arguments", cmd.CommandPath(), len(args))
			case len(args) == 2 && o.server != "":
				return usagef("give either FILE or --server URL, not both")
			case len(args) == 1 && o.server == "":
				return usagef("%s %s needs a model FILE or --server URL", cmd.CommandPath(), args[0])
			}
			return nil
		},
		ValidArgsFunction: func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			if len(args) == 0 {
				return listKinds, cobra.ShellCompDirectiveNoFileComp
			}
			return []string{"yaml", "yml", "json"}, cobra.ShellCompDirectiveFilterFileExt
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.format != "table" && o.format != "json" {
				return usagef("--format must be table or json, not %q", o.format)
			}
			var src metadataSource
			if o.server != "" {
				r, err := newRemoteMetadata(o)
				if err != nil {
					return err
				}
				src = r
			} else {
				l, err := e.localMetadata(args[1], o.opts)
				if err != nil {
					return err
				}
				src = l
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), o.timeout)
			defer cancel()
			return e.list(ctx, src, args[0], o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.server, "server", "", "URL of a running Ossie server to list from instead of FILE (e.g. http://127.0.0.1:8080)")
	f.StringVar(&o.model, "model", "", "only this model (default: every model)")
	f.StringVar(&o.namespace, "namespace", "", "only models published from this Kubernetes namespace (--server on a server in Kubernetes mode)")
	f.StringVarP(&o.format, "format", "f", "table", "output: table or json")
	f.DurationVar(&o.timeout, "timeout", 30*time.Second, "time limit of the whole listing (--server)")
	o.tokens.register(f, "OSSIE_TOKEN", "Ossie server")
	compileFlags(cmd, &o.opts)
	e.gov.register(cmd, true)
	cli.RegisterEnum(cmd, "format", "table", "json")
	return cmd
}

func isListKind(s string) bool {
	for _, k := range listKinds {
		if s == k {
			return true
		}
	}
	return false
}

// metadataSource is where list reads models: the server's metadata code
// over a model file (localMetadata) or a running server's HTTP API
// (remoteMetadata). Both return the types of GET /v1/models and GET
// /v1/models/{model}, so a member is described in one place only
// (server/metadata.go).
type metadataSource interface {
	models(ctx context.Context) ([]server.ModelSummary, error)
	describe(ctx context.Context, m server.ModelSummary) (server.ModelDetail, error)
}

// listedMetric is one line of `list metrics`: the metric as GET
// /v1/models/{model} describes it, with its model.
type listedMetric struct {
	Model     string `json:"model"`
	Namespace string `json:"namespace,omitempty"`
	server.MetricInfo
}

// listedDimension is one line of `list dimensions`.
type listedDimension struct {
	Model     string `json:"model"`
	Namespace string `json:"namespace,omitempty"`
	Dataset   string `json:"dataset"`
	server.DimensionInfo
}

// list writes what of kind src has, filtered by --model and --namespace.
func (e *env) list(ctx context.Context, src metadataSource, kind string, o listOptions) error {
	all, err := src.models(ctx)
	if err != nil {
		return err
	}
	var models []server.ModelSummary
	var names []string
	for _, m := range all {
		names = append(names, m.Name)
		if (o.model == "" || m.Name == o.model) && (o.namespace == "" || m.Namespace == o.namespace) {
			models = append(models, m)
		}
	}
	if o.model != "" && len(models) == 0 {
		hint := ""
		if s := compiler.DidYouMean(o.model, names); s != "" {
			hint = fmt.Sprintf(" (did you mean %q?)", s)
		}
		return failf("no model named %q%s; there are: %s", o.model, hint, strings.Join(names, ", "))
	}
	switch kind {
	case "models":
		if models == nil {
			models = []server.ModelSummary{}
		}
		return e.writeList(o.format, models, []string{"MODEL", "NAMESPACE", "DATASETS", "DIMENSIONS", "METRICS", "DOCUMENT", "DESCRIPTION"}, func(w io.Writer) {
			for _, m := range models {
				fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%d\t%s\t%s\n", m.Name, dash(m.Namespace), m.Counts.Datasets, m.Counts.Dimensions, m.Counts.Metrics, m.DocumentVersion, oneLine(m.Description))
			}
		})
	}
	metrics, dims := []listedMetric{}, []listedDimension{}
	for _, m := range models {
		d, err := src.describe(ctx, m)
		if err != nil {
			return err
		}
		for _, mi := range d.Metrics {
			metrics = append(metrics, listedMetric{Model: d.Name, Namespace: d.Namespace, MetricInfo: mi})
		}
		for _, ds := range d.Datasets {
			for _, di := range ds.Dimensions {
				dims = append(dims, listedDimension{Model: d.Name, Namespace: d.Namespace, Dataset: ds.Name, DimensionInfo: di})
			}
		}
	}
	if kind == "metrics" {
		return e.writeList(o.format, metrics, []string{"MODEL", "METRIC", "DATATYPE", "TYPE", "DESCRIPTION"}, func(w io.Writer) {
			for _, m := range metrics {
				typ := ""
				if m.MetricType != nil {
					typ = m.MetricType.Type
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", m.Model, m.Name, dash(string(m.Datatype)), dash(typ), oneLine(m.Description))
			}
		})
	}
	return e.writeList(o.format, dims, []string{"MODEL", "DIMENSION", "DATATYPE", "GRAINS", "DESCRIPTION"}, func(w io.Writer) {
		for _, d := range dims {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", d.Model, d.Name, dash(string(d.Datatype)), dash(strings.Join(d.Grains, ",")), oneLine(d.Description))
		}
	})
}

// writeList prints v as indented JSON, or a table: header and the rows
// rows writes, tab-separated, aligned by text/tabwriter.
func (e *env) writeList(format string, v any, header []string, rows func(io.Writer)) error {
	if format == "json" {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(v)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	rows(tw)
	return tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// oneLine is the first line of a description, cut to 72 characters so a
// table row stays one line.
func oneLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > 72 {
		s = string(r[:71]) + "…"
	}
	return s
}
