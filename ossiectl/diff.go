package ossiectl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ossie-dev/ossie/api/ossie"

	"github.com/ossie-dev/ossie/compiler"
)

// diffInput is one side of a diff: the document, and for a SemanticModel
// manifest its spec.governance and spec.views (JSON; nil when absent).
type diffInput struct {
	doc               *ossie.Document
	governance, views []byte
}

// change is one difference between two documents (also the JSON shape).
type change struct {
	// Kind: added, removed, changed or renamed.
	Kind string `json:"kind"`
	// Object: model, dataset, field, metric or relationship.
	Object string `json:"object"`
	Model  string `json:"model"`
	// Name is the dataset, `dataset.field`, metric or relationship name
	// (the old name for renamed); NewName is the new one.
	Name    string `json:"name"`
	NewName string `json:"new_name,omitempty"`
	// Detail says what changed, e.g. `expression "SUM(a)" -> "SUM(b)"`.
	Detail string `json:"detail,omitempty"`
	// Breaking: a consumer (query, dashboard, view) written against the
	// old document can fail or get different numbers; Reason says how.
	Breaking bool   `json:"breaking"`
	Reason   string `json:"reason,omitempty"`
}

type diffSummary struct {
	Added    int `json:"added"`
	Removed  int `json:"removed"`
	Changed  int `json:"changed"`
	Renamed  int `json:"renamed"`
	Breaking int `json:"breaking"`
}

func (e *env) diffCmd() *cobra.Command {
	var format, failOn, output string
	cmd := &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "List what changed between two versions of a model and which changes break consumers",
		Long: "diff compares two Ossie documents (or SemanticModel manifests): added, removed, changed and\n" +
			"renamed datasets, fields, metrics and relationships. OLD and NEW are files or git revisions\n" +
			"written REV:PATH (read with `git show`, PATH from the repository root, or ./PATH from the\n" +
			"current directory).\n\n" +
			"Breaking changes (consumers' queries fail or return different numbers): a removed or renamed\n" +
			"metric, a removed or renamed field (every field is a dimension), a removed dataset or model, a\n" +
			"changed metric expression, a removed relationship or changed join (from, to, join columns).\n" +
			"A rename is a removal plus an addition with the same expression.\n\n" +
			"Exit status: 0 compared (and nothing matched --fail-on); 1 --fail-on matched, or a document\n" +
			"could not be read; 2 usage.",
		Example: "  ossiectl diff old/model.yaml model.yaml\n" +
			"  ossiectl diff origin/main:models/shop.yaml models/shop.yaml --fail-on breaking   # in CI\n" +
			"  ossiectl diff HEAD~1:models/shop.yaml ./models/shop.yaml -f json -o changes.json",
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return usagef("--format must be text or json, not %q", format)
			}
			if output == "json" || output == "text" {
				return usagef("-o names the output file (as in every ossiectl command); for the %s format write -f %s (--format %s)", output, output, output)
			}
			if !slices.Contains([]string{"none", "breaking", "any"}, failOn) {
				return usagef("--fail-on must be none, breaking or any, not %q", failOn)
			}
			oldDoc, err := e.readForDiff(args[0])
			if err != nil {
				return err
			}
			newDoc, err := e.readForDiff(args[1])
			if err != nil {
				return err
			}
			changes := diffDocuments(oldDoc.doc, newDoc.doc)
			changes = append(changes, diffManifestExtras(oldDoc, newDoc)...)
			sum := summarize(changes)
			var report bytes.Buffer
			if format == "json" {
				enc := json.NewEncoder(&report)
				enc.SetIndent("", "  ")
				_ = enc.Encode(map[string]any{"changes": changes, "summary": sum})
			} else {
				writeChanges(&report, changes, sum)
			}
			if output == "" || output == "-" {
				_, _ = e.stdout.Write(report.Bytes())
			} else if err := writeAtomic(output, report.Bytes()); err != nil {
				return failf("%v; check the directory of -o exists and is writable", err)
			}
			switch {
			case failOn == "breaking" && sum.Breaking > 0:
				return failf("%d breaking %s (--fail-on breaking). Next: %s", sum.Breaking, plural(sum.Breaking, "change", "changes"), breakingHint(changes))
			case failOn == "any" && len(changes) > 0:
				return failf("%d %s (--fail-on any). Next: review the changes listed; if they are intended, use --fail-on breaking to gate only on changes that break consumers", len(changes), plural(len(changes), "change", "changes"))
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&format, "format", "f", "text", "output format: text or json")
	cmd.Flags().StringVarP(&output, "output", "o", "", "write the report to this file instead of standard output")
	cmd.Flags().StringVar(&failOn, "fail-on", "none", "exit 1 when there is a change of this class: none, breaking or any")
	return cmd
}

// readForDiff reads a file ('-' = stdin) or, when no such file exists and
// the argument has the form REV:PATH, that revision from git. Problems
// that keep the document from being read are printed; validation problems
// do not stop a diff.
func (e *env) readForDiff(arg string) (*diffInput, error) {
	var data []byte
	var err error
	if _, statErr := os.Stat(arg); statErr == nil || arg == "-" || !strings.Contains(arg, ":") {
		data, err = e.readInput(arg)
		if err != nil {
			return nil, failf("%v. Next: give a file or a git revision as REV:PATH", err)
		}
	} else {
		var stderr bytes.Buffer
		c := exec.Command("git", "show", arg)
		c.Stderr = &stderr
		if data, err = c.Output(); err != nil {
			msg := strings.TrimRight(strings.TrimSpace(stderr.String()), ".")
			if msg == "" {
				msg = err.Error()
			}
			return nil, failf("git show %s: %s. Next: check the revision (git log) and the path (from the repository root, or ./PATH from here)", arg, msg)
		}
	}
	in, probs := readOssieInput(data)
	if in != nil {
		var parsed *compiler.Parsed
		parsed, probs = in.parseDoc()
		probs = in.remap(probs)
		if hasCode(probs, compiler.CodeUnsupportedVersion) {
			// An old version is compared as `ossiectl migrate` would
			// rewrite it, when that is mechanical; the file is not touched.
			latest := ossie.SupportedVersions[len(ossie.SupportedVersions)-1]
			if m := migrateData(displayName(arg), data, latest); m.err == nil && len(m.human) == 0 && m.changed {
				if in2, _ := readOssieInput(m.out); in2 != nil {
					if p2, probs2 := in2.parseDoc(); !probs2.HasErrors() {
						from := m.from
						if from == "" {
							from = "no version"
						}
						fmt.Fprintf(e.stderr, "ossiectl: %s is at %s; compared as migrated to %s in memory (the file is unchanged; `ossiectl migrate --to %s %s` rewrites it)\n",
							displayName(arg), from, latest, latest, arg)
						return &diffInput{doc: p2.Doc, governance: in2.governance, views: in2.views}, nil
					}
				}
			}
		}
		if !probs.HasErrors() {
			return &diffInput{doc: parsed.Doc, governance: in.governance, views: in.views}, nil
		}
	}
	printProblems(e.stderr, displayName(arg), probs.Errors())
	return nil, failf("%s cannot be read as an Ossie document. Next: fix the problems listed (ossiectl validate)", displayName(arg))
}

func summarize(changes []change) diffSummary {
	var s diffSummary
	for _, c := range changes {
		switch c.Kind {
		case "added":
			s.Added++
		case "removed":
			s.Removed++
		case "changed":
			s.Changed++
		case "renamed":
			s.Renamed++
		}
		if c.Breaking {
			s.Breaking++
		}
	}
	return s
}

func writeChanges(w io.Writer, changes []change, sum diffSummary) {
	if len(changes) == 0 {
		fmt.Fprintln(w, "no changes")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range changes {
		mark := ""
		if c.Breaking {
			mark = "BREAKING"
		}
		name := c.Model + "/" + c.Name
		if c.Model == "" || c.Object == "model" {
			name = c.Name
		}
		if c.NewName != "" {
			name += " -> " + c.NewName
		}
		detail := c.Detail
		if c.Reason != "" {
			detail = strings.TrimPrefix(detail+"; "+c.Reason, "; ")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", mark, c.Kind, c.Object, name, detail)
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "%d %s (%d added, %d removed, %d changed, %d renamed); %d breaking\n",
		len(changes), plural(len(changes), "change", "changes"), sum.Added, sum.Removed, sum.Changed, sum.Renamed, sum.Breaking)
}

func hasCode(probs compiler.Problems, code string) bool {
	for _, p := range probs {
		if p.Code == code {
			return true
		}
	}
	return false
}

// breakingHint is the next step for the kinds of objects whose changes
// break consumers, one clause per kind present.
func breakingHint(changes []change) string {
	seen := map[string]bool{}
	var hints []string
	add := func(key, hint string) {
		if !seen[key] {
			seen[key] = true
			hints = append(hints, hint)
		}
	}
	for _, c := range changes {
		if !c.Breaking {
			continue
		}
		switch c.Object {
		case "metric", "field", "dataset", "model":
			add("member", "keep the old names and expressions (add new metrics and fields beside them)")
		case "relationship":
			add("join", "keep the old join, or check the numbers of queries crossing it")
		case "view":
			add("view", "keep the view's name, role and columns (add a new view beside it), or tell the BI users reading it")
		case "role":
			add("role", "keep the role until no caller token or view uses it")
		}
	}
	if len(hints) == 0 {
		return "tell the consumers listed above before merging"
	}
	return strings.Join(hints, "; ") + "; or tell the consumers listed above before merging"
}
