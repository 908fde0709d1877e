package catalog

import (
	"bytes"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"

	"github.com/ossie-dev/ossie/api/ossie"
)

// Render writes doc as YAML in the layout of the repository's examples:
// keys in spec order, dialect entries and key lists on one line
// ({dialect: OSSIE_SQL_2026, expression: amount}, [customer_id]),
// multi-line text as literal blocks. Each header line becomes a leading "# " comment.
func Render(doc *ossie.Document, header []string) ([]byte, error) {
	node, err := yaml.ValueToNode(doc, yaml.UseJSONMarshaler(), yaml.IndentSequence(true), yaml.UseLiteralStyleIfMultiline(true), yaml.UseSingleQuote(true))
	if err != nil {
		return nil, err
	}
	ast.Walk(flowDialects{}, node)
	var b bytes.Buffer
	for _, h := range header {
		b.WriteString(strings.TrimRight("# "+h, " ") + "\n")
	}
	b.WriteString(node.String())
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// flowDialects turns every {dialect, expression} mapping and every list of
// plain values (primary_key, from_columns, ...) into flow style.
type flowDialects struct{}

func (flowDialects) Visit(n ast.Node) ast.Visitor {
	switch x := n.(type) {
	case *ast.MappingNode:
		// An expression with a flow indicator (a comma, a bracket, ": ")
		// stays in block style: goccy/go-yaml writes flow scalars
		// unquoted, and the comma would end the expression.
		if len(x.Values) == 2 && x.Values[0].Key.String() == "dialect" && x.Values[1].Key.String() == "expression" &&
			!strings.ContainsAny(x.Values[1].Value.String(), ",[]{}") && !strings.Contains(x.Values[1].Value.String(), ": ") {
			x.SetIsFlowStyle(true)
		}
	case *ast.SequenceNode:
		scalars := len(x.Values) > 0
		for _, v := range x.Values {
			switch v.(type) {
			case *ast.MappingNode, *ast.MappingValueNode, *ast.SequenceNode:
				scalars = false
			}
		}
		if scalars {
			x.SetIsFlowStyle(true)
		}
	}
	return flowDialects{}
}
