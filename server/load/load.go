// Package load holds local mode's model files: reading and compiling
// them (with an optional governance file), binding them to the engine,
// and the problems of a file that does not load, file by file. It imports
// the compiler and the engine contract, nothing of the server; the query
// path's reloader and the binaries import it.
package load

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/engine"
)

// FileProblems are the problems found in one model file.
type FileProblems struct {
	File     string
	Problems compiler.Problems
}

// Error lists the problems of every file that failed to load, so one
// start-up reports all of them at once.
type Error struct {
	Files []FileProblems
}

func (e *Error) Error() string {
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

// Models reads and compiles every file (YAML or JSON Ossie
// documents) and returns all their models. Any error-severity problem in
// any file, an unreadable file or two models sharing a name across files
// yields a *Error listing every problem of every file; warnings alone
// do not fail the load.
func Models(paths []string, opts compiler.CompileOptions) ([]*compiler.Artifact, error) {
	return GovernedModels(paths, "", opts)
}

// GovernedModels is Models with a governance file
// (compiler.ParseGovernance format: attributes, roles; docs/governance.md)
// attached to every model file, so their models are governed; "" attaches
// none. Problems of the governance file (paths starting with
// "governance") are reported under its name, once per model file it was
// checked with.
func GovernedModels(paths []string, governanceFile string, opts compiler.CompileOptions) ([]*compiler.Artifact, error) {
	return ModelFiles{Paths: paths, Governance: governanceFile, Options: opts}.Load(context.Background())
}

// Load compiles the files (GovernedModels) and, when f.Engine is
// set, binds each file's models to it (BindModels): every problem of
// every file at once in a *Error, or the error of an engine that did
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
			return nil, &Error{Files: []FileProblems{{File: governanceFile, Problems: compiler.Problems{{
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
			var le *Error
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
		return nil, &Error{Files: failed}
	}
	return all, nil
}

// ModelFiles are the inputs of local mode: model documents, an optional
// governance file applied to each, the compile options, and the engine
// the models are bound to when they load (BindModels; nil: not bound,
// for callers that only compile).
type ModelFiles struct {
	Paths       []string
	Governance  string
	Options     compiler.CompileOptions
	Engine      engine.Engine
	BindTimeout time.Duration // each look-up of the bind; <= 0: DefaultBindTimeout
	// RefuseDrift fails the load of a model that reads a table or column
	// the engine lacks, or may not read (bindcheck drift), as well; the
	// reloader sets it, so an edit that does not bind never swaps in.
	RefuseDrift bool
}

func (f ModelFiles) All() []string {
	if f.Governance == "" {
		return f.Paths
	}
	return append(slices.Clone(f.Paths), f.Governance)
}

// Digest hashes the files' names and contents; an unreadable file hashes
// its error, so that it reading again later counts as a change.
func (f ModelFiles) Digest() [sha256.Size]byte {
	h := sha256.New()
	for _, p := range f.All() {
		h.Write([]byte(p + "\x00"))
		data, err := os.ReadFile(p)
		if err != nil {
			h.Write([]byte("error: " + err.Error()))
		}
		h.Write(data)
		h.Write([]byte{0})
	}
	var d [sha256.Size]byte
	h.Sum(d[:0])
	return d
}
