package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/ossie-dev/ossie/compiler"
)

// FileProblems are the problems found in one model file.
type FileProblems struct {
	File     string
	Problems compiler.Problems
}

// LoadError lists the problems of every file that failed to load, so one
// start-up reports all of them at once.
type LoadError struct {
	Files []FileProblems
}

func (e *LoadError) Error() string {
	var lines []string
	for _, f := range e.Files {
		for _, p := range f.Problems {
			lines = append(lines, FormatProblem(f.File, p))
		}
	}
	return strings.Join(lines, "\n")
}

// FormatProblem renders `file:line:col: path: severity CODE message`, the
// form editors and CI annotate (parts omitted when unknown).
func FormatProblem(file string, p compiler.Problem) string {
	if p.Line > 0 {
		return file + ":" + p.String()
	}
	return file + ": " + p.String()
}

// LoadModelFiles reads and compiles every file (YAML or JSON Ossie
// documents) and returns all their models. Any error-severity problem in
// any file, an unreadable file or two models sharing a name across files
// yields a *LoadError listing every problem of every file; warnings alone
// do not fail the load.
func LoadModelFiles(paths []string, opts compiler.CompileOptions) ([]*compiler.Artifact, error) {
	return LoadGovernedModelFiles(paths, "", opts)
}

// LoadGovernedModelFiles is LoadModelFiles with a governance file
// (compiler.ParseGovernance format: attributes, roles; docs/governance.md)
// attached to every model file, so their models are governed; "" attaches
// none. Problems of the governance file (paths starting with
// "governance") are reported under its name, once per model file it was
// checked with.
func LoadGovernedModelFiles(paths []string, governanceFile string, opts compiler.CompileOptions) ([]*compiler.Artifact, error) {
	return ModelFiles{Paths: paths, Governance: governanceFile, Options: opts}.Load(context.Background())
}

// Load compiles the files (LoadGovernedModelFiles) and, when f.Engine is
// set, binds each file's models to it (BindModels): every problem of
// every file at once in a *LoadError, or the error of an engine that did
// not answer.
func (f ModelFiles) Load(ctx context.Context) ([]*compiler.Artifact, error) {
	paths, governanceFile, opts := f.Paths, f.Governance, f.Options
	var (
		all    []*compiler.Artifact
		failed []FileProblems
		seen   = map[string]string{} // model name → file
	)
	var gov []byte
	if governanceFile != "" {
		var err error
		if gov, err = os.ReadFile(governanceFile); err != nil {
			return nil, &LoadError{Files: []FileProblems{{File: governanceFile, Problems: compiler.Problems{{
				Code: compiler.CodeSyntax, Severity: compiler.SeverityError, Message: "cannot read file: " + err.Error()}}}}}
		}
	}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			failed = append(failed, FileProblems{File: path, Problems: compiler.Problems{{
				Code: compiler.CodeSyntax, Severity: compiler.SeverityError, Message: "cannot read file: " + err.Error()}}})
			continue
		}
		arts, probs := compiler.LoadGoverned(data, gov, opts)
		if probs.HasErrors() {
			var mine, govs compiler.Problems
			for _, p := range probs.Errors() {
				if p.Path == "governance" || strings.HasPrefix(p.Path, "governance.") {
					govs = append(govs, p)
				} else {
					mine = append(mine, p)
				}
			}
			if len(mine) > 0 {
				failed = append(failed, FileProblems{File: path, Problems: mine})
			}
			if len(govs) > 0 {
				failed = append(failed, FileProblems{File: governanceFile, Problems: govs})
			}
			continue
		}
		if f.Engine != nil {
			bound, err := bindModels(ctx, f.Engine, arts, path, f.BindTimeout, f.RefuseDrift)
			var le *LoadError
			switch {
			case errors.As(err, &le):
				failed = append(failed, le.Files...)
				continue
			case err != nil:
				return nil, err // the engine did not answer: no file can be checked
			}
			arts = bound
		}
		var dup compiler.Problems
		for i, a := range arts {
			if prev, ok := seen[a.Name]; ok {
				dup = append(dup, compiler.Problem{Code: compiler.CodeDuplicateName, Severity: compiler.SeverityError,
					Path: fmt.Sprintf("semantic_model[%d].name", i), Message: fmt.Sprintf("model %q is already defined in %s", a.Name, prev)})
				continue
			}
			seen[a.Name] = path
			all = append(all, a)
		}
		if len(dup) > 0 {
			failed = append(failed, FileProblems{File: path, Problems: dup})
		}
	}
	if len(failed) > 0 {
		return nil, &LoadError{Files: failed}
	}
	return all, nil
}
