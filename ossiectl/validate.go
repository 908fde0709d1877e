package ossiectl

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/engine"
)

// docReport is the verdict on one file (also the JSON output shape).
type docReport struct {
	File    string   `json:"file"`
	Version string   `json:"version,omitempty"`
	Valid   bool     `json:"valid"`
	Models  []string `json:"models,omitempty"`
	// BoundOn names the live engine every dataset was checked against
	// (its sources, columns and time zone kinds; drift is among Problems);
	// empty when the bindings were not checked.
	BoundOn  string            `json:"bound_on,omitempty"`
	Problems compiler.Problems `json:"problems"`
}

type validateSummary struct {
	Valid    int            `json:"valid"`
	Invalid  int            `json:"invalid"`
	Errors   int            `json:"errors"`
	Warnings int            `json:"warnings"`
	Versions map[string]int `json:"versions"`
	// Bound counts the documents whose bindings were checked against the
	// live engine BoundOn, drifted or not.
	Bound   int    `json:"bound"`
	BoundOn string `json:"bound_on,omitempty"`
}

func (e *env) validateCmd() *cobra.Command {
	var (
		format string
		opts   compiler.CompileOptions
		target string
		live   liveEngine
	)
	cmd := &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check Ossie documents and list every problem of every file",
		Long: "validate parses, validates and compiles each document exactly as the operator and the\n" +
			"server do, and lists every problem as `file:line:col: path: severity CODE message`.\n" +
			"FILE '-' reads standard input. Exit status 1 when any document has an error.",
		Example: "  ossiectl validate model.yaml\n" +
			"  ossiectl validate models/*.yaml shop.sm.yaml     # plain documents and SemanticModel manifests\n" +
			"  ossiectl validate --format json model.yaml | jq .summary\n" +
			"  ossiectl validate --engine postgres model.yaml       # also OSS3008: calls PostgreSQL cannot compute\n" +
			"  ossiectl validate --engine postgres --dsn-env PG_DSN model.yaml   # also bind every dataset on the live engine\n" +
			"  ossiectl validate --engine duckdb --duckdb shop.duckdb model.yaml\n" +
			"  cat model.yaml | ossiectl validate -",
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := setTargetDialect(target, &opts); err != nil {
				return err
			}
			if format != "text" && format != "json" {
				return usagef("--format must be text or json, not %q", format)
			}
			eng, closeEng, err := live.open(target, opts)
			if err != nil {
				return err
			}
			defer closeEng()
			reports := make([]docReport, 0, len(args))
			sum := validateSummary{Versions: map[string]int{}}
			// Governance files among the arguments are checked as such,
			// against the plain model documents given with them.
			govData := map[string][]byte{}
			var models []string
			for _, name := range args {
				if name == "-" {
					continue
				}
				if data, err := e.readInput(name); err == nil && isGovernanceFile(data) {
					govData[name] = data
				} else if err == nil && !isManifest(data) {
					models = append(models, name)
				}
			}
			for _, name := range args {
				var r docReport
				if data, ok := govData[name]; ok && e.gov.file == "" {
					r = e.validateGovernanceFile(name, data, models, opts)
				} else {
					r = e.validateOne(name, opts, eng)
				}
				for _, p := range r.Problems {
					if p.Severity == compiler.SeverityError {
						sum.Errors++
					} else {
						sum.Warnings++
					}
				}
				if r.Valid {
					sum.Valid++
					sum.Versions[r.Version]++
				} else {
					sum.Invalid++
				}
				if r.BoundOn != "" {
					sum.Bound++
					sum.BoundOn = r.BoundOn
				}
				reports = append(reports, r)
			}
			if format == "json" {
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				_ = enc.Encode(map[string]any{"documents": reports, "summary": sum})
			} else {
				for _, r := range reports {
					e.gov.printProblems(e.stdout, r.File, r.Problems)
				}
				fmt.Fprintln(e.stdout, summaryLine(sum))
				if hint := migrateHint(reports); hint != "" {
					fmt.Fprintln(e.stdout, hint)
				}
			}
			if sum.Invalid > 0 {
				return failed
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&format, "format", "f", "text", "output format: text or json")
	compileFlags(cmd, &opts)
	targetEngineFlag(cmd, &target)
	live.register(cmd)
	e.gov.register(cmd, false)
	return cmd
}

// validateOne validates one file; with eng (a live engine, else nil) a
// document that compiles is also bound: every dataset's source, every
// physical column and every time zone kind is checked (engine/bindcheck).
func (e *env) validateOne(name string, opts compiler.CompileOptions, eng engine.Engine) docReport {
	r := docReport{File: displayName(name), Problems: compiler.Problems{}}
	data, err := e.readInput(name)
	if err != nil {
		r.Problems = append(r.Problems, compiler.Problem{Code: compiler.CodeSyntax, Severity: compiler.SeverityError, Message: "cannot read file: " + err.Error()})
		return r
	}
	// A SemanticModel manifest is read through its spec; problems then
	// carry the manifest's paths (spec....) and positions.
	in, inProbs := readOssieInput(data)
	if in == nil {
		r.Problems = append(r.Problems, inProbs...)
		return r
	}
	if err := e.gov.attach(e, in); err != nil {
		r.Problems = append(r.Problems, compiler.Problem{Code: compiler.CodeSyntax, Severity: compiler.SeverityError, Path: "governance", Message: err.Error()})
		return r
	}
	parsed, probs := in.parse()
	if parsed != nil && parsed.Doc != nil {
		r.Version = parsed.Doc.Version
	}
	switch {
	case !probs.HasErrors() && parsed != nil:
		// Compile re-runs validation and adds what only compiling finds
		// (source resolution), so this verdict is the operator's.
		arts, more := compiler.Compile(parsed, opts)
		probs = append(probs, more...)
		for _, a := range arts {
			r.Models = append(r.Models, a.Name)
		}
		// Views are planned under their roles as the operator plans them,
		// so a view it would refuse is refused here: with an engine, on
		// the bound artifacts, whose fields that declare no datatype have
		// the engine's type (an hour window over one that is a Date there
		// is OSS4061).
		if !more.HasErrors() {
			viewArts := arts
			if eng != nil {
				bp, bound := bindProblems(eng, parsed, arts)
				probs = append(probs, bp...)
				if bound != nil {
					viewArts = bound
					r.BoundOn = eng.Dialect().Name()
				}
			}
			probs = append(probs, e.viewProblems(in, parsed, viewArts)...)
		}
	case parsed != nil && parsed.Doc != nil:
		// The document parsed with errors but was read: validate what was
		// read too, so one run lists every problem. The verdict (invalid)
		// is unchanged; findings about a place the parser already flagged
		// are dropped, since they restate the parse error.
		probs = append(probs, beyondParseErrors(probs, compiler.Validate(parsed))...)
	}
	probs = in.remap(probs)
	probs.Sort()
	r.Problems = append(r.Problems, probs...)
	r.Valid = !probs.HasErrors()
	return r
}

// viewProblems plans the views of a manifest (spec.views, paths
// views[i]...) or of the --governance file (paths governance.views[i]...,
// printed against that file).
func (e *env) viewProblems(in *ossieInput, parsed *compiler.Parsed, arts []*compiler.Artifact) compiler.Problems {
	if in.views != nil {
		return checkViews(viewList(in.views), in.governance, arts)
	}
	if parsed.Governance == nil || len(parsed.Governance.Views) == 0 {
		return nil
	}
	probs := checkViews(parsed.Governance.Views, in.governance, arts)
	for i := range probs {
		probs[i].Path = "governance." + probs[i].Path
		probs[i].Line, probs[i].Column = 0, 0
	}
	return probs
}

// beyondParseErrors keeps the validation problems whose path is not at or
// under the path of a parse error.
func beyondParseErrors(parse, validation compiler.Problems) compiler.Problems {
	var out compiler.Problems
	for _, v := range validation {
		covered := false
		for _, p := range parse {
			if p.Severity != compiler.SeverityError {
				continue
			}
			if v.Path == p.Path || strings.HasPrefix(v.Path, p.Path+".") || strings.HasPrefix(v.Path, p.Path+"[") || p.Path == "" {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, v)
		}
	}
	return out
}

// summaryLine is "3 documents valid (0.2.0.dev0: 2, 0.1.1: 1)" when all
// are valid, else "1 of 3 documents valid (0.2.0.dev0: 1); 2 invalid: 5
// errors, 1 warning".
func summaryLine(s validateSummary) string {
	total := s.Valid + s.Invalid
	var b strings.Builder
	if s.Invalid == 0 {
		fmt.Fprintf(&b, "%d %s valid", total, plural(total, "document", "documents"))
	} else {
		fmt.Fprintf(&b, "%d of %d %s valid", s.Valid, total, plural(total, "document", "documents"))
	}
	if len(s.Versions) > 0 {
		b.WriteString(" (" + versionCounts(s.Versions) + ")")
	}
	if s.Invalid > 0 {
		fmt.Fprintf(&b, "; %d invalid: %d %s", s.Invalid, s.Errors, plural(s.Errors, "error", "errors"))
	}
	if s.Warnings > 0 {
		if s.Invalid == 0 {
			b.WriteString(";")
		} else {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, " %d %s", s.Warnings, plural(s.Warnings, "warning", "warnings"))
	}
	if s.Bound > 0 {
		// Without it a run with --engine reads like one without.
		fmt.Fprintf(&b, "; %d checked against the live %s engine", s.Bound, s.BoundOn)
	}
	return b.String()
}

// versionCounts lists newest supported versions first, then any others.
func versionCounts(m map[string]int) string {
	var order []string
	for i := len(ossie.SupportedVersions) - 1; i >= 0; i-- {
		order = append(order, ossie.SupportedVersions[i])
	}
	var rest []string
	for v := range m {
		if !slices.Contains(order, v) {
			rest = append(rest, v)
		}
	}
	slices.Sort(rest)
	var parts []string
	for _, v := range append(order, rest...) {
		if n := m[v]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s: %d", v, n))
		}
	}
	return strings.Join(parts, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// migrateHint names the files refused for their version (OSS1006) and the
// command that moves them to a supported one, or returns "".
func migrateHint(reports []docReport) string {
	var files []string
	for _, r := range reports {
		for _, p := range r.Problems {
			if p.Code == compiler.CodeUnsupportedVersion {
				files = append(files, r.File)
				break
			}
		}
	}
	if len(files) == 0 {
		return ""
	}
	latest := ossie.SupportedVersions[len(ossie.SupportedVersions)-1]
	return fmt.Sprintf("Next: ossiectl migrate --to %s %s", latest, strings.Join(files, " "))
}
