package mcpapi

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/server"
)

// The input schemas of the MCP tools tell an agent the forms the HTTP
// API accepts (docs/server.md, the query body): a dimension is a string
// or an object, a filter takes value or values, ops and grains are
// listed in descriptions rather than enums because the decoder also reads
// their aliases and any case. The decoder (queryjson.Decode), not the
// schema, decides what is accepted; server/httpapi/fields_test.go checks
// that the two name the same fields.

func falseSchema() *jsonschema.Schema { return &jsonschema.Schema{Not: &jsonschema.Schema{}} }

func schemaString(desc string) *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", Description: desc}
}

func schemaObject(desc string, props map[string]*jsonschema.Schema, required ...string) *jsonschema.Schema {
	return &jsonschema.Schema{Type: "object", Description: desc, Properties: props, Required: required, AdditionalProperties: falseSchema()}
}

func schemaList(desc string, items *jsonschema.Schema) *jsonschema.Schema {
	return &jsonschema.Schema{Type: "array", Description: desc, Items: items}
}

func grainNames() string {
	var gs []string
	for _, g := range dialect.Grains {
		gs = append(gs, string(g))
	}
	return strings.Join(gs, ", ")
}

// modelInputSchema is describe_model's input: ModelInput.
func modelInputSchema() *jsonschema.Schema {
	return schemaObject("", map[string]*jsonschema.Schema{
		"model":     schemaString("the model name, as list_models shows it"),
		"namespace": schemaString("the model's namespace, as list_models shows it; needed when several namespaces publish the name"),
	}, "model")
}

// queryInputSchema is the input of query (withTotal) and explain: the
// model, and the query body of POST /v1/models/{model}/query. total is
// the query tool's only; explain is neither's (explain always explains,
// query runs), so both refuse the keys they leave out.
func queryInputSchema(withTotal bool) *jsonschema.Schema {
	via := schemaString("the relationship to join the member's dataset along, where the model joins it by several paths (see describe_model relationships)")
	dimension := &jsonschema.Schema{
		Description: "a dimension to group by: \"dataset.field\" or \"dataset.field.grain\", or an object",
		AnyOf: []*jsonschema.Schema{
			schemaString("dataset.field, or dataset.field.grain for a time dimension"),
			schemaObject("", map[string]*jsonschema.Schema{
				"field":      schemaString("dimension name: dataset.field"),
				"grain":      schemaString("time grain of a time dimension: " + grainNames()),
				"week_start": schemaString("with grain week only: monday (ISO, default) or sunday"),
				"via":        via,
				"compare_date_range": schemaList("on one time dimension: answer the query once per date range (2 to 12), each [start, end] "+
					"dates or one relative range such as 'last month'; rows come labelled in a first column compare_date_range", &jsonschema.Schema{}),
			}, "field"),
		},
	}
	filter := schemaObject("a condition; all must hold", map[string]*jsonschema.Schema{
		"field":  schemaString("dimension name (dataset.field), filtered before aggregation; set this or metric"),
		"metric": schemaString("metric name, filtered after aggregation; set this or field"),
		"grain":  schemaString("on a time dimension: compare the value truncated to this grain (" + grainNames() + ")"),
		"via":    via,
		"op":     schemaString("one of " + strings.Join(plan.FilterOps, ", ")),
		"values": schemaList("operands; in_date_range takes [start, end] dates or one relative range such as 'last 7 days'", &jsonschema.Schema{}),
		"value":  {Description: "the one operand, instead of values"},
	}, "op")
	props := map[string]*jsonschema.Schema{
		"model":      schemaString("the model name, as list_models shows it"),
		"namespace":  schemaString("the model's namespace, as list_models shows it; needed when several namespaces publish the name"),
		"metrics":    schemaList("metric names from describe_model", schemaString("")),
		"dimensions": schemaList("dimensions to group by", dimension),
		"filters":    schemaList("conditions; all must hold", filter),
		"order_by": schemaList("sort keys", schemaObject("", map[string]*jsonschema.Schema{
			"key": schemaString("metric name or selected dimension name"),
			"dir": schemaString("asc (default) or desc"),
		}, "key")),
		"limit":    {Type: "integer", Description: "at most this many rows"},
		"offset":   {Type: "integer", Description: "skip this many rows first (with order_by for a stable page)"},
		"timezone": schemaString("IANA time zone for time grains and relative date ranges; default UTC"),
		"through": schemaString("without metrics only: the dataset whose rows' members to list, where the dimensions' datasets meet only in a " +
			"fact (it must reach each of them by many-to-one relationships); default: the one dataset that does"),
	}
	if withTotal {
		props["total"] = &jsonschema.Schema{Type: "boolean", Description: "also return total, the row count without limit and offset"}
	}
	return schemaObject("", props, "model")
}

// describeTools is a receiving middleware: the tool list a caller gets
// ends the descriptions of describe_model, query and explain with the
// models that caller may read and their ai_context (instructions,
// synonyms, examples; metrics with their synonyms), so an agent picks
// names before its first call. The registered tools are not changed:
// each list is a copy for its caller.
func (t *mcpTools) describeTools(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		lr, ok := res.(*mcp.ListToolsResult)
		if err != nil || !ok || method != "tools/list" {
			return res, err
		}
		cctx, cerr := t.caller(ctx, req.GetExtra())
		if cerr != nil {
			return res, nil
		}
		models := t.modelsContext(cctx)
		if models == "" {
			return res, nil
		}
		out := *lr
		out.Tools = make([]*mcp.Tool, len(lr.Tools))
		for i, tl := range lr.Tools {
			c := *tl
			if c.Name == toolDescribeModel || c.Name == toolQuery || c.Name == toolExplain {
				c.Description += "\n\n" + models
			}
			out.Tools[i] = &c
		}
		return &out, nil
	}
}

// maxToolContext bounds the model context added to a tool description:
// agents read every tool description into their context on each turn.
const maxToolContext = 4000

// modelsContext describes the models the caller of ctx may read, from
// their descriptions and ai_context; "" when there are none.
func (t *mcpTools) modelsContext(ctx context.Context) string {
	var b strings.Builder
	for _, m := range t.s.VisibleModels(ctx) {
		d, perr := t.s.DescribeModel(ctx, server.Qualify(m.Namespace, m.Name))
		if perr != nil {
			continue
		}
		var line strings.Builder
		line.WriteString("- model " + server.Qualify(d.Namespace, d.Name))
		if d.Description != "" {
			line.WriteString(": " + d.Description)
		}
		if c := flatContext(d.AIContext); c != nil {
			if c.Instructions != "" {
				line.WriteString(" " + c.Instructions)
			}
			if len(c.Synonyms) > 0 {
				line.WriteString(" Also called: " + strings.Join(c.Synonyms, ", ") + ".")
			}
			if len(c.Examples) > 0 {
				line.WriteString(" Example questions: " + strings.Join(c.Examples, "; ") + ".")
			}
		}
		var metrics []string
		for _, mt := range d.Metrics {
			n := mt.Name
			if c := flatContext(mt.AIContext); c != nil && len(c.Synonyms) > 0 {
				n += " (" + strings.Join(c.Synonyms, ", ") + ")"
			}
			metrics = append(metrics, n)
		}
		if len(metrics) > 0 {
			line.WriteString(" Metrics: " + strings.Join(metrics, ", ") + ".")
		}
		line.WriteByte('\n')
		if b.Len()+line.Len() > maxToolContext {
			fmt.Fprintf(&b, "- and more: call list_models\n")
			break
		}
		b.WriteString(line.String())
	}
	if b.Len() == 0 {
		return ""
	}
	return "Models you may query:\n" + strings.TrimSuffix(b.String(), "\n")
}
