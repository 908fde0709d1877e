package ossiectl

import (
	"fmt"
	"reflect"

	"github.com/ossie-dev/ossie/compiler"
)

// readEditable reads a file once with the compiler's reader for a command
// that edits it in place (migrate, enrich): the input as readOssieInput
// gives it, and the node where the document is written (the file's root,
// or a SemanticModel manifest's spec) for yamlText to locate values in.
// The input is nil when the file leaves no document to read.
func readEditable(data []byte) (*ossieInput, compiler.Node, compiler.Problems) {
	if p := compiler.CheckDocument(data); p != nil {
		return nil, compiler.Node{}, compiler.Problems{*p}
	}
	root, readProbs := compiler.ReadNode(data)
	in, probs := fromTree(root, readProbs)
	switch {
	case in != nil:
		spec, _, _ := root.Get("spec")
		return in, spec, probs
	case probs != nil:
		return nil, compiler.Node{}, probs
	}
	return &ossieInput{tree: root, treeProbs: readProbs}, root, nil
}

// parseEditable is readEditable with the document parsed (nil when there
// is none) and the problems at the file's paths.
func parseEditable(data []byte) (compiler.Node, *compiler.Parsed, compiler.Problems) {
	in, doc, probs := readEditable(data)
	var parsed *compiler.Parsed
	if in != nil {
		parsed, probs = in.parseDoc()
		probs = in.remap(probs)
	}
	return doc, parsed, probs
}

// checkEdited reads an edited file again and checks that it holds want
// (the document read before, with the intended changes made on it): a
// mechanical edit must leave a document that reads, and change nothing
// else (a value written once under an anchor and used through aliases
// would change in every place it is used).
func checkEdited(out []byte, want *compiler.Parsed) error {
	_, got, probs := parseEditable(out)
	if probs.HasErrors() {
		p := probs.Errors()[0]
		if p.Code == compiler.CodeDocumentTooLarge || p.Code == compiler.CodeDocumentTooComplex {
			return fmt.Errorf("the edited document would be over the limits of a document (%s %s); split the model into smaller files first", p.Code, p.Message)
		}
		return fmt.Errorf("internal: the edited file no longer reads (%v)", p)
	}
	if !reflect.DeepEqual(want.Doc, got.Doc) {
		return fmt.Errorf("the edit would change more than intended (a value written under an anchor is also used elsewhere through an alias); make the change by hand")
	}
	return nil
}
