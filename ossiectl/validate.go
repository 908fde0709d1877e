package ossiectl

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/compiler"
)

// docReport is the verdict on one file (also the JSON output shape).
type docReport struct {
	File     string            `json:"file"`
	Version  string            `json:"version,omitempty"`
	Valid    bool              `json:"valid"`
	Models   []string          `json:"models,omitempty"`
	Problems compiler.Problems `json:"problems"`
}

type validateSummary struct {
	Valid    int            `json:"valid"`
	Invalid  int            `json:"invalid"`
	Errors   int            `json:"errors"`
	Warnings int            `json:"warnings"`
	Versions map[string]int `json:"versions"`
}

func (e *env) validateCmd() *cobra.Command {
	var (
		format string
		opts   compiler.CompileOptions
	)
	cmd := &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check Ossie documents and list every problem of every file",
		Long: "validate parses, validates and compiles each document exactly as the operator and the\n" +
			"server do, and lists every problem as `file:line:col: path: severity CODE message`.\n" +
			"FILE '-' reads standard input. Exit status 1 when any document has an error.",
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return usagef("--format must be text or json, not %q", format)
			}
			reports := make([]docReport, 0, len(args))
			sum := validateSummary{Versions: map[string]int{}}
			for _, name := range args {
				r := e.validateOne(name, opts)
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
				reports = append(reports, r)
			}
			if format == "json" {
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				_ = enc.Encode(map[string]any{"documents": reports, "summary": sum})
			} else {
				for _, r := range reports {
					printProblems(e.stdout, r.File, r.Problems)
				}
				fmt.Fprintln(e.stdout, summaryLine(sum))
			}
			if sum.Invalid > 0 {
				return failed
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	compileFlags(cmd, &opts)
	return cmd
}

func (e *env) validateOne(name string, opts compiler.CompileOptions) docReport {
	r := docReport{File: displayName(name), Problems: compiler.Problems{}}
	data, err := e.readInput(name)
	if err != nil {
		r.Problems = append(r.Problems, compiler.Problem{Code: compiler.CodeSyntax, Severity: compiler.SeverityError, Message: "cannot read file: " + err.Error()})
		return r
	}
	parsed, probs := compiler.Parse(data)
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
	case parsed != nil && parsed.Doc != nil:
		// The document parsed with errors but was read: validate what was
		// read too, so one run lists every problem. The verdict (invalid)
		// is unchanged; findings about a place the parser already flagged
		// are dropped, since they restate the parse error.
		probs = append(probs, beyondParseErrors(probs, compiler.Validate(parsed))...)
	}
	probs.Sort()
	r.Problems = append(r.Problems, probs...)
	r.Valid = !probs.HasErrors()
	return r
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
