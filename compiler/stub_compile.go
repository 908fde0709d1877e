package compiler

// STUB — replaced by validate.go and compile.go. Delete this file when they exist.

// CompileOptions are install defaults applied while resolving sources.
type CompileOptions struct {
	DefaultCatalog string
	DefaultSchema  string
}

// Validate checks a parsed document and returns every problem at once.
func Validate(p *Parsed) Problems { return nil }

// Compile validates p and, when there are no errors, returns one artifact per
// semantic model. Warnings are returned alongside the artifacts.
func Compile(p *Parsed, opts CompileOptions) ([]*Artifact, Problems) {
	return nil, Problems{{Code: CodeSyntax, Severity: SeverityError, Message: "compiler not built yet"}}
}

// Load is Parse then Compile.
func Load(data []byte, opts CompileOptions) ([]*Artifact, Problems) {
	p, probs := Parse(data)
	if probs.HasErrors() {
		return nil, probs
	}
	arts, more := Compile(p, opts)
	return arts, append(probs, more...)
}
