package server

import (
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
	var (
		all    []*compiler.Artifact
		failed []FileProblems
		seen   = map[string]string{} // model name → file
	)
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			failed = append(failed, FileProblems{File: path, Problems: compiler.Problems{{
				Code: compiler.CodeSyntax, Severity: compiler.SeverityError, Message: "cannot read file: " + err.Error()}}})
			continue
		}
		arts, probs := compiler.Load(data, opts)
		if probs.HasErrors() {
			failed = append(failed, FileProblems{File: path, Problems: probs.Errors()})
			continue
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
