package compiler

// STUB — replaced by parse.go. Delete this file when Parse exists.

// Parse reads a YAML or JSON Ossie document strictly.
func Parse(data []byte) (*Parsed, Problems) {
	return nil, Problems{{Code: CodeSyntax, Severity: SeverityError, Message: "parser not built yet"}}
}
