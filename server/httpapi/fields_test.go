package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/auth"
	"github.com/ossie-dev/ossie/server/load"
	"github.com/ossie-dev/ossie/server/mcpapi"
	"github.com/ossie-dev/ossie/server/problem"
	"github.com/ossie-dev/ossie/server/queryjson"
	"github.com/ossie-dev/ossie/server/servertest"
)

// A request field either changes the answer as documented or is refused
// with a code (issue: no request field is ever silently ignored). The
// tests below enumerate every field of the request types by reflection
// and run, for each, a base request without it and a variant with it on
// DuckDB over testdata/fields.yaml; both answers are written here by hand
// from the four rows of fieldsTables.
//
// Answers are written as text: rows joined by ";", values by "|", NULL
// for a null, then " total=N" when the answer carries a total and
// " explain" when it carries a plan; a refusal is its problem code.

// fieldCase is one proof for one field: path is the field's JSON path
// ("filters[].grain"); base and variant are request bodies, the variant
// setting the field; want and baseWant are their answers on every entry
// point unless on names an entry point's own answer.
type fieldCase struct {
	path          string
	why           string
	base, variant string
	baseWant      string
	want          string
	on            map[string]string // entry point → the variant's answer there
	baseOn        map[string]string // entry point → the base's answer there
	only          []string          // the entry points that take the field; nil: all
}

const (
	byState      = `{"metrics":["revenue"],"dimensions":["customers.state"]}`
	byStateRows  = "CA|30;NY|70"
	byOrderMonth = "2024-01-01|10;2024-02-01|50;2024-03-01|40"
)

// opCase is a filter of one operator on revenue (100 without it).
func opCase(op, filter, want string) fieldCase {
	return fieldCase{path: "filters[].op", why: op, base: `{"metrics":["revenue"]}`, baseWant: "100",
		variant: `{"metrics":["revenue"],"filters":[` + filter + `]}`, want: want}
}

var queryFieldCases = []fieldCase{
	{path: "metrics", why: "metrics are computed per member",
		base: `{"dimensions":["customers.state"]}`, baseWant: "CA;NY", variant: byState, want: byStateRows},
	{path: "dimensions", why: "a string dimension groups by it",
		base: `{"metrics":["revenue"]}`, baseWant: "100", variant: byState, want: byStateRows},
	{path: "dimensions[].field", why: "the object form groups by its field",
		base: `{"metrics":["revenue"]}`, baseWant: "100",
		variant: `{"metrics":["revenue"],"dimensions":[{"field":"orders.status"}]}`, want: "placed|40;returned|40;shipped|20"},
	{path: "dimensions[].grain", why: "days truncated to months",
		base: `{"metrics":["revenue"],"dimensions":[{"field":"orders.order_day"}]}`, baseWant: "2024-01-31|10;2024-02-15|20;2024-02-29|30;2024-03-10|40",
		variant: `{"metrics":["revenue"],"dimensions":[{"field":"orders.order_day","grain":"month"}]}`, want: byOrderMonth},
	{path: "dimensions[].grain", why: "a grain on a field that is no time dimension",
		base: byState, baseWant: byStateRows,
		variant: `{"metrics":["revenue"],"dimensions":[{"field":"customers.state","grain":"month"}]}`, want: compiler.CodeBadGrain},
	{path: "dimensions[].week_start", why: "Sunday weeks instead of ISO weeks; 2024-03-10 is a Sunday",
		base: `{"metrics":["revenue"],"dimensions":[{"field":"orders.order_day","grain":"week"}]}`, baseWant: "2024-01-29|10;2024-02-12|20;2024-02-26|30;2024-03-04|40",
		variant: `{"metrics":["revenue"],"dimensions":[{"field":"orders.order_day","grain":"week","week_start":"sunday"}]}`, want: "2024-01-28|10;2024-02-11|20;2024-02-25|30;2024-03-10|40"},
	{path: "dimensions[].week_start", why: "monday on a month grain, which has no weeks",
		base: `{"metrics":["revenue"],"dimensions":[{"field":"orders.order_day","grain":"month"}]}`, baseWant: byOrderMonth,
		variant: `{"metrics":["revenue"],"dimensions":[{"field":"orders.order_day","grain":"month","week_start":"monday"}]}`, want: compiler.CodeBadGrain},
	{path: "dimensions[].week_start", why: "a week start without a grain",
		base: `{"metrics":["revenue"],"dimensions":[{"field":"orders.order_day"}]}`, baseWant: "2024-01-31|10;2024-02-15|20;2024-02-29|30;2024-03-10|40",
		variant: `{"metrics":["revenue"],"dimensions":[{"field":"orders.order_day","week_start":"sunday"}]}`, want: compiler.CodeBadGrain},
	{path: "dimensions[].via", why: "the calendar by ship day; order 4 has not shipped",
		base: `{"metrics":["revenue"],"dimensions":[{"field":"calendar.day","grain":"month"}]}`, baseWant: compiler.CodeAmbiguousJoin,
		variant: `{"metrics":["revenue"],"dimensions":[{"field":"calendar.day","grain":"month","via":"orders_ship_day"}]}`, want: "2024-02-01|10;2024-03-01|50;NULL|40"},
	{path: "dimensions[].via", why: "the calendar by order day",
		base: `{"metrics":["revenue"],"dimensions":[{"field":"calendar.day","grain":"month"}]}`, baseWant: compiler.CodeAmbiguousJoin,
		variant: `{"metrics":["revenue"],"dimensions":[{"field":"calendar.day","grain":"month","via":"orders_order_day"}]}`, want: byOrderMonth},
	{path: "dimensions[].via", why: "a via on no path to the member (orders is the metric's own dataset)",
		base: `{"metrics":["revenue"],"dimensions":[{"field":"orders.status"}]}`, baseWant: "placed|40;returned|40;shipped|20",
		variant: `{"metrics":["revenue"],"dimensions":[{"field":"orders.status","via":"orders_customers"}]}`, want: compiler.CodeBadVia},
	{path: "dimensions[].compare_date_range", why: "the query once per range, labelled",
		base: `{"metrics":["revenue"],"dimensions":[{"field":"orders.order_day","grain":"month"}]}`, baseWant: byOrderMonth,
		variant: `{"metrics":["revenue"],"dimensions":[{"field":"orders.order_day","grain":"month","compare_date_range":[["2024-01-01","2024-01-31"],["2024-03-01","2024-03-31"]]}]}`,
		want:    "2024-01-01 - 2024-01-31|2024-01-01|10;2024-03-01 - 2024-03-31|2024-03-01|40"},
	{path: "dimensions[].compare_date_range", why: "Cube's spelling compareDateRange",
		base: `{"metrics":["revenue"],"dimensions":[{"field":"orders.order_day","grain":"month"}]}`, baseWant: byOrderMonth,
		variant: `{"metrics":["revenue"],"dimensions":[{"field":"orders.order_day","grain":"month","compareDateRange":[["2024-01-01","2024-01-31"],["2024-03-01","2024-03-31"]]}]}`,
		want:    "2024-01-01 - 2024-01-31|2024-01-01|10;2024-03-01 - 2024-03-31|2024-03-01|40"},
	{path: "filters", why: "rows of one state",
		base: byState, baseWant: byStateRows,
		variant: `{"metrics":["revenue"],"dimensions":["customers.state"],"filters":[{"field":"customers.state","op":"=","value":"CA"}]}`, want: "CA|30"},
	{path: "filters[].field", why: "a filter on a dimension",
		base: `{"metrics":["revenue"],"filters":[{"op":"=","value":"CA"}]}`, baseWant: compiler.CodeBadFilter,
		variant: `{"metrics":["revenue"],"filters":[{"field":"customers.state","op":"=","value":"CA"}]}`, want: "30"},
	{path: "filters[].metric", why: "a filter on a metric, after aggregation",
		base: `{"metrics":["revenue"],"dimensions":["customers.state"],"filters":[{"op":"gt","value":50}]}`, baseWant: compiler.CodeBadFilter,
		variant: `{"metrics":["revenue"],"dimensions":["customers.state"],"filters":[{"metric":"revenue","op":"gt","value":50}]}`, want: "NY|70"},
	{path: "filters[].grain", why: "the instant truncated to its month before the comparison",
		base: `{"metrics":["order_count"],"filters":[{"field":"orders.ordered_at","op":"=","value":"2024-02-01"}]}`, baseWant: "0",
		variant: `{"metrics":["order_count"],"filters":[{"field":"orders.ordered_at","grain":"month","op":"=","value":"2024-02-01"}]}`, want: "2"},
	{path: "filters[].grain", why: "a grain on a metric filter, which compares the metric's value",
		base: `{"metrics":["revenue"],"dimensions":["customers.state"],"filters":[{"metric":"revenue","op":"gt","value":50}]}`, baseWant: "NY|70",
		variant: `{"metrics":["revenue"],"dimensions":["customers.state"],"filters":[{"metric":"revenue","grain":"month","op":"gt","value":50}]}`, want: compiler.CodeBadGrain},
	{path: "filters[].via", why: "calendar days reached by ship day",
		base: `{"metrics":["revenue"],"filters":[{"field":"calendar.day","op":"gte","value":"2024-03-01"}]}`, baseWant: compiler.CodeAmbiguousJoin,
		variant: `{"metrics":["revenue"],"filters":[{"field":"calendar.day","via":"orders_ship_day","op":"gte","value":"2024-03-01"}]}`, want: "50"},
	{path: "filters[].via", why: "calendar days reached by order day",
		base: `{"metrics":["revenue"],"filters":[{"field":"calendar.day","op":"gte","value":"2024-03-01"}]}`, baseWant: compiler.CodeAmbiguousJoin,
		variant: `{"metrics":["revenue"],"filters":[{"field":"calendar.day","via":"orders_order_day","op":"gte","value":"2024-03-01"}]}`, want: "40"},
	{path: "filters[].via", why: "a via on a metric filter, which joins nothing",
		base: `{"metrics":["revenue"],"dimensions":["customers.state"],"filters":[{"metric":"revenue","op":"gt","value":50}]}`, baseWant: "NY|70",
		variant: `{"metrics":["revenue"],"dimensions":["customers.state"],"filters":[{"metric":"revenue","via":"orders_customers","op":"gt","value":50}]}`, want: compiler.CodeBadVia},
	{path: "filters[].op", why: "an operator where there was none",
		base: `{"metrics":["revenue"],"filters":[{"field":"orders.status","value":"placed"}]}`, baseWant: compiler.CodeBadFilter,
		variant: `{"metrics":["revenue"],"filters":[{"field":"orders.status","op":"!=","value":"placed"}]}`, want: "60"},
	{path: "filters[].values", why: "the operands of in",
		base: `{"metrics":["revenue"],"filters":[{"field":"orders.status","op":"in"}]}`, baseWant: compiler.CodeBadFilter,
		variant: `{"metrics":["revenue"],"filters":[{"field":"orders.status","op":"in","values":["placed","returned"]}]}`, want: "80"},
	{path: "filters[].value", why: "the one operand of =",
		base: `{"metrics":["revenue"],"filters":[{"field":"orders.status","op":"="}]}`, baseWant: compiler.CodeBadFilter,
		variant: `{"metrics":["revenue"],"filters":[{"field":"orders.status","op":"=","value":"shipped"}]}`, want: "20"},
	{path: "filters[].value", why: "value next to values, which it would silently join",
		base: `{"metrics":["revenue"],"filters":[{"field":"orders.status","op":"in","values":["placed"]}]}`, baseWant: "40",
		variant: `{"metrics":["revenue"],"filters":[{"field":"orders.status","op":"in","values":["placed"],"value":"shipped"}]}`, want: compiler.CodeBadFilter},
	{path: "order_by", why: "largest revenue first",
		base: byState, baseWant: byStateRows,
		variant: `{"metrics":["revenue"],"dimensions":["customers.state"],"order_by":[{"key":"revenue","dir":"desc"}]}`, want: "NY|70;CA|30"},
	{path: "order_by[].key", why: "an order needs its key",
		base: `{"metrics":["revenue"],"dimensions":["customers.state"],"order_by":[{"dir":"desc"}]}`, baseWant: compiler.CodeBadOrderBy,
		variant: `{"metrics":["revenue"],"dimensions":["customers.state"],"order_by":[{"key":"customers.state","dir":"desc"}]}`, want: "NY|70;CA|30"},
	{path: "order_by[].dir", why: "descending",
		base: `{"metrics":["revenue"],"dimensions":["customers.state"],"order_by":[{"key":"revenue"}]}`, baseWant: byStateRows,
		variant: `{"metrics":["revenue"],"dimensions":["customers.state"],"order_by":[{"key":"revenue","dir":"desc"}]}`, want: "NY|70;CA|30"},
	{path: "limit", why: "the first row",
		base: byState, baseWant: byStateRows,
		variant: `{"metrics":["revenue"],"dimensions":["customers.state"],"limit":1}`, want: "CA|30"},
	{path: "offset", why: "the rows after the first",
		base: byState, baseWant: byStateRows,
		variant: `{"metrics":["revenue"],"dimensions":["customers.state"],"offset":1}`, want: "NY|70"},
	{path: "timezone", why: "order 1 (2024-01-31 23:30 UTC) is February in Amsterdam",
		base: `{"metrics":["revenue"],"dimensions":[{"field":"orders.ordered_at","grain":"month"}]}`, baseWant: byOrderMonth,
		variant: `{"metrics":["revenue"],"dimensions":[{"field":"orders.ordered_at","grain":"month"}],"timezone":"Europe/Amsterdam"}`, want: "2024-02-01|60;2024-03-01|40"},
	{path: "timezone", why: "a zone that is not an IANA name",
		base: `{"metrics":["revenue"]}`, baseWant: "100", variant: `{"metrics":["revenue"],"timezone":"CEST"}`, want: compiler.CodeBadTimezone},
	{path: "through", why: "the calendar months of the orders' ship days, not every calendar day's month; order 4 has not shipped",
		base: `{"dimensions":[{"field":"calendar.day","grain":"month"}]}`, baseWant: "2024-01-01;2024-02-01;2024-03-01",
		variant: `{"dimensions":[{"field":"calendar.day","grain":"month","via":"orders_ship_day"}],"through":"orders"}`, want: "2024-02-01;2024-03-01;NULL"},
	{path: "through", why: "customers do not reach orders, so their rows carry no order status",
		base: `{"dimensions":["orders.status"]}`, baseWant: "placed;returned;shipped",
		variant: `{"dimensions":["orders.status"],"through":"customers"}`, want: compiler.CodeNoMembersHome},
	{path: "through", why: "a metric's rows are its own dataset's",
		base: `{"metrics":["revenue"]}`, baseWant: "100", variant: `{"metrics":["revenue"],"through":"orders"}`, want: compiler.CodeBadQuery},
	{path: "explain", why: "the plan next to the SQL; the query endpoint runs, it does not explain",
		base: byState, baseWant: byStateRows,
		variant: `{"metrics":["revenue"],"dimensions":["customers.state"],"explain":true}`,
		on: map[string]string{"query": compiler.CodeBadQuery, "sql": byStateRows + " explain",
			"mcp-query": compiler.CodeBadQuery, "mcp-explain": compiler.CodeBadQuery}},
	{path: "total", why: "the row count without limit; /sql runs nothing to count",
		base: `{"metrics":["revenue"],"dimensions":["customers.state"],"limit":1}`, baseWant: "CA|30",
		variant: `{"metrics":["revenue"],"dimensions":["customers.state"],"limit":1,"total":true}`,
		on: map[string]string{"query": "CA|30 total=2", "sql": compiler.CodeBadQuery,
			"mcp-query": "CA|30 total=2", "mcp-explain": compiler.CodeBadQuery}},

	opCase("=", `{"field":"orders.status","op":"=","value":"placed"}`, "40"),
	opCase("!=", `{"field":"orders.status","op":"!=","value":"placed"}`, "60"),
	opCase("in", `{"field":"orders.status","op":"in","values":["placed","shipped"]}`, "60"),
	opCase("not_in", `{"field":"orders.status","op":"not_in","values":["placed","shipped"]}`, "40"),
	opCase("gt", `{"field":"orders.amount","op":"gt","value":20}`, "70"),
	opCase("gte", `{"field":"orders.amount","op":"gte","value":20}`, "90"),
	opCase("lt", `{"field":"orders.amount","op":"lt","value":20}`, "10"),
	opCase("lte", `{"field":"orders.amount","op":"lte","value":20}`, "30"),
	opCase("between", `{"field":"orders.amount","op":"between","values":[20,30]}`, "50"),
	opCase("contains", `{"field":"orders.status","op":"contains","value":"HIP"}`, "20"),
	opCase("starts_with", `{"field":"orders.status","op":"starts_with","value":"re"}`, "40"),
	opCase("is_null", `{"field":"orders.ship_day","op":"is_null"}`, "40"),
	opCase("is_not_null", `{"field":"orders.ship_day","op":"is_not_null"}`, "60"),
	opCase("in_date_range", `{"field":"orders.order_day","op":"in_date_range","values":["2024-02-01","2024-02-29"]}`, "50"),
}

// mcpFieldCases are the arguments the MCP query and explain tools take
// besides the query body. The MCP entry points add "model": "fields" to
// a body without a model.
var mcpFieldCases = []fieldCase{
	{path: "model", why: "the model to answer from is required",
		base: `{"model":"","metrics":["revenue"]}`, baseWant: compiler.CodeBadQuery,
		variant: `{"model":"fields","metrics":["revenue"]}`, want: "100", only: []string{"mcp-query", "mcp-explain"}},
	{path: "namespace", why: "a namespace that publishes no model fields",
		base: `{"metrics":["revenue"]}`, baseWant: "100",
		variant: `{"namespace":"team-a","metrics":["revenue"]}`, want: compiler.CodeUnknownModel, only: []string{"mcp-query", "mcp-explain"}},
}

// requestPaths lists the JSON paths of every field of a request type t,
// nested objects as "parent[].child" (slices) or "parent.child";
// embedded structs are flattened as encoding/json does.
func requestPaths(t reflect.Type, prefix string) []string {
	var out []string
	for i := range t.NumField() {
		sf := t.Field(i)
		ft := sf.Type
		if sf.Anonymous && ft.Kind() == reflect.Struct {
			out = append(out, requestPaths(ft, prefix)...)
			continue
		}
		if !sf.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		out = append(out, prefix+name)
		sep := "."
		for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice {
			if ft.Kind() == reflect.Slice {
				sep = "[]."
			}
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct {
			out = append(out, requestPaths(ft, prefix+name+sep)...)
		}
	}
	return out
}

// checkEnumerated fails for every field of t without a case and every
// case naming no field of t.
func checkEnumerated(t *testing.T, typ reflect.Type, cases []string, what string) {
	t.Helper()
	fields := requestPaths(typ, "")
	for _, p := range fields {
		if !slices.Contains(cases, p) {
			t.Errorf("%s has field %q and no case proves its effect: add an entry to %s in server/fields_test.go "+
				"(a base request without it, a variant with it, both answers written by hand, or the problem code that refuses it)", typ, p, what)
		}
	}
	for _, c := range cases {
		if !slices.Contains(fields, c) {
			t.Errorf("%s: case for %q, which is no field of %s; rename or delete the case", what, c, typ)
		}
	}
}

func casePaths(cases []fieldCase) []string {
	var out []string
	for _, c := range cases {
		out = append(out, c.path)
	}
	return out
}

type fieldsFixture struct {
	*fixture
	audit *syncBuffer
}

// newFieldsFixture serves testdata/fields.yaml, governed by
// testdata/fields.governance.yaml, over fieldsTables.
func newFieldsFixture(t *testing.T) *fieldsFixture {
	t.Helper()
	arts, err := load.GovernedModels([]string{"../testdata/fields.yaml"}, "../testdata/fields.governance.yaml", compiler.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	audit := &syncBuffer{}
	f := newFixture(t, func(c *server.Config) {
		c.Models = arts
		c.Audit = &server.AuditOptions{Logger: slog.New(slog.NewJSONHandler(audit, nil))}
	})
	if err := f.eng.Exec(context.Background(), fieldsTables); err != nil {
		t.Fatal(err)
	}
	return &fieldsFixture{fixture: f, audit: audit}
}

// answerText renders an answer's rows as the cases write them.
func answerText(rows [][]any, total *int64, explain bool) string {
	var b strings.Builder
	for i, r := range rows {
		if i > 0 {
			b.WriteByte(';')
		}
		for j, v := range r {
			if j > 0 {
				b.WriteByte('|')
			}
			if v == nil {
				b.WriteString("NULL")
			} else {
				fmt.Fprint(&b, v)
			}
		}
	}
	if total != nil {
		fmt.Fprintf(&b, " total=%d", *total)
	}
	if explain {
		b.WriteString(" explain")
	}
	return b.String()
}

// rowsText is the text of an answer body with rows and, maybe, total
// (/query and the MCP query tool), numbers kept as written.
func rowsText(t *testing.T, b []byte) string {
	t.Helper()
	var a struct {
		Rows  [][]any `json:"rows"`
		Total *int64  `json:"total"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&a); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return answerText(a.Rows, a.Total, false)
}

// entryPoints answer one request body the way each entry point
// does, as text. "sql" runs the SQL /sql plans on the same engine.
func (f *fieldsFixture) entryPoints() map[string]func(t *testing.T, body string) string {
	return map[string]func(t *testing.T, body string) string{
		"query": func(t *testing.T, body string) string {
			resp, b := f.do(t, "POST", "/v1/models/fields/query", body)
			if resp.StatusCode != 200 {
				return problemCode(t, b)
			}
			return rowsText(t, b)
		},
		"sql": func(t *testing.T, body string) string {
			resp, b := f.do(t, "POST", "/v1/models/fields/sql", body)
			if resp.StatusCode != 200 {
				return problemCode(t, b)
			}
			var p server.PlanResponse
			if err := json.Unmarshal(b, &p); err != nil {
				t.Fatalf("%s: %v", b, err)
			}
			return answerText(f.sqlRows(t, p.SQL), nil, p.Explain != "")
		},
	}
}

// mcpEntryPoints answer a request body through the MCP query and
// explain tools (the official Go SDK client, in process), as text;
// explain's SQL is run on the same engine.
func (f *fieldsFixture) mcpEntryPoints(t *testing.T) map[string]func(t *testing.T, body string) string {
	cs := servertest.MCPConnect(t, mcpapi.New(f.srv, mcpapi.Options{}))
	call := func(t *testing.T, tool, body string) (bool, []byte) {
		var args map[string]any
		dec := json.NewDecoder(strings.NewReader(body))
		dec.UseNumber()
		if err := dec.Decode(&args); err != nil {
			t.Fatal(err)
		}
		if _, ok := args["model"]; !ok {
			args["model"] = "fields"
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s %s: %v", tool, body, err)
		}
		b, _ := json.Marshal(res.StructuredContent)
		return res.IsError, b
	}
	return map[string]func(t *testing.T, body string) string{
		"mcp-query": func(t *testing.T, body string) string {
			isErr, b := call(t, "query", body)
			if isErr {
				return problemCode(t, b)
			}
			return rowsText(t, b)
		},
		"mcp-explain": func(t *testing.T, body string) string {
			isErr, b := call(t, "explain", body)
			if isErr {
				return problemCode(t, b)
			}
			var p mcpapi.Plan
			if err := json.Unmarshal(b, &p); err != nil || p.Plan == "" {
				t.Fatalf("%s: %v (no plan?)", b, err)
			}
			return answerText(f.sqlRows(t, p.SQL), nil, false)
		},
	}
}

// sqlRows runs planned SQL on the fixture's engine, rows in JSON form
// with the planner's internal columns (none here) as returned.
func (f *fieldsFixture) sqlRows(t *testing.T, sql string) [][]any {
	t.Helper()
	res, err := f.eng.Query(context.Background(), sql, 1000)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	rows := servertest.JSONRows(t, res.Rows)
	for _, r := range rows {
		for i, v := range r {
			// An engine DATE arrives as a midnight timestamp; the answer
			// formats write the day.
			if s, ok := v.(string); ok && strings.HasSuffix(s, "T00:00:00Z") {
				r[i] = strings.TrimSuffix(s, "T00:00:00Z")
			}
		}
	}
	return rows
}

func (c fieldCase) wants(entry string) (base, variant string) {
	base, variant = c.baseWant, c.want
	if w, ok := c.baseOn[entry]; ok {
		base = w
	}
	if w, ok := c.on[entry]; ok {
		variant = w
	}
	return base, variant
}

// TestEveryQueryFieldHasAnEffect: every JSON field of a query body
// (plan.Query and the server's own options, queryjson.Request) has a case, and
// on every entry point each case's base and variant give the answers
// written by hand, which differ.
func TestEveryQueryFieldHasAnEffect(t *testing.T) {
	checkEnumerated(t, reflect.TypeFor[queryjson.Request](), casePaths(queryFieldCases), "queryFieldCases")
	var ops []string
	for _, c := range queryFieldCases {
		if c.path == "filters[].op" && c.baseWant == "100" {
			ops = append(ops, c.why)
		}
	}
	sort.Strings(ops)
	want := slices.Clone(plan.FilterOps)
	sort.Strings(want)
	if !slices.Equal(ops, want) {
		t.Errorf("filter operators with a case %v, want one case per operator of plan.FilterOps %v", ops, want)
	}
	f := newFieldsFixture(t)
	entries := f.entryPoints()
	maps.Copy(entries, f.mcpEntryPoints(t))
	runFieldCases(t, entries, queryFieldCases)
}

// TestEveryMCPArgumentHasAnEffect: the MCP query and explain tools take
// the query body and the model; every field of their arguments has a
// case (those of the body run through the tools in
// TestEveryQueryFieldHasAnEffect), and the input schema each tool
// publishes names exactly the fields its decoder reads, less those the
// tool always refuses (explain on both, total on explain).
func TestEveryMCPArgumentHasAnEffect(t *testing.T) {
	checkEnumerated(t, reflect.TypeFor[mcpapi.QueryArgs](), append(casePaths(queryFieldCases), casePaths(mcpFieldCases)...), "queryFieldCases and mcpFieldCases")
	f := newFieldsFixture(t)
	entries := f.mcpEntryPoints(t)
	runFieldCases(t, entries, mcpFieldCases)

	cs := servertest.MCPConnect(t, mcpapi.New(f.srv, mcpapi.Options{}))
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	all := requestPaths(reflect.TypeFor[mcpapi.QueryArgs](), "")
	for _, tl := range tools.Tools {
		refused := map[string][]string{"query": {"explain"}, "explain": {"explain", "total"}}[tl.Name]
		if refused == nil {
			continue
		}
		var want []string
		for _, p := range all {
			if !slices.Contains(refused, p) {
				want = append(want, p)
			}
		}
		b, _ := json.Marshal(tl.InputSchema)
		var sch map[string]any
		if err := json.Unmarshal(b, &sch); err != nil {
			t.Fatal(err)
		}
		got := schemaPaths(sch, "")
		sort.Strings(got)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("tool %s: input schema names %v, its decoder reads %v", tl.Name, got, want)
		}
	}
}

// schemaPaths lists the property paths of a JSON schema as requestPaths
// writes them, following arrays' items and the object alternatives of
// anyOf.
func schemaPaths(s map[string]any, prefix string) []string {
	var out []string
	props, _ := s["properties"].(map[string]any)
	for name, v := range props {
		p, _ := v.(map[string]any)
		out = append(out, prefix+name)
		sep := "."
		if items, ok := p["items"].(map[string]any); ok {
			p, sep = items, "[]."
		}
		alts := []any{p}
		if any, ok := p["anyOf"].([]any); ok {
			alts = any
		}
		for _, a := range alts {
			if m, ok := a.(map[string]any); ok && m["type"] == "object" {
				out = append(out, schemaPaths(m, prefix+name+sep)...)
			}
		}
	}
	return out
}

func runFieldCases(t *testing.T, entries map[string]func(*testing.T, string) string, cases []fieldCase) {
	names := slices.Sorted(maps.Keys(entries))
	for _, c := range cases {
		for _, entry := range names {
			if c.only != nil && !slices.Contains(c.only, entry) {
				continue
			}
			t.Run(entry+"/"+c.path+"/"+c.why, func(t *testing.T) {
				wantBase, wantVariant := c.wants(entry)
				if wantBase == wantVariant {
					t.Fatalf("case %q: base and variant are meant to answer the same (%q); a case proves a difference", c.why, wantBase)
				}
				if got := entries[entry](t, c.base); got != wantBase {
					t.Errorf("base %s\n got  %q\n want %q", c.base, got, wantBase)
				}
				if got := entries[entry](t, c.variant); got != wantVariant {
					t.Errorf("variant %s\n got  %q\n want %q", c.variant, got, wantVariant)
				}
			})
		}
	}
}

// callerCase proves one field of Identity has an effect: the caller is a
// request field too, set by authentication instead of the body. The
// answer is that of byState, then the caller and method the audit line
// records in brackets.
type callerCase struct {
	path, why     string
	base, variant auth.Identity
	baseWant      string
	want          string
}

var callerFieldCases = []callerCase{
	{path: "Roles", why: "no role reads nothing; a role's row filter keeps the caller's state",
		base: auth.Identity{Attributes: map[string]string{"state": "CA"}}, baseWant: compiler.CodeUnknownModel + " [caller= auth=]",
		variant: auth.Identity{Roles: []string{"state_analyst"}, Attributes: map[string]string{"state": "CA"}}, want: "CA|30 [caller= auth=]"},
	{path: "Attributes", why: "the row filter reads caller.state; a missing attribute admits no rows",
		base: auth.Identity{Roles: []string{"state_analyst"}}, baseWant: " [caller= auth=]",
		variant: auth.Identity{Roles: []string{"state_analyst"}, Attributes: map[string]string{"state": "NY"}}, want: "NY|70 [caller= auth=]"},
	{path: "Namespaces", why: "a caller limited to a namespace that does not publish the model",
		base: auth.Identity{Roles: []string{"everything"}}, baseWant: byStateRows + " [caller= auth=]",
		variant: auth.Identity{Roles: []string{"everything"}, Namespaces: []string{"team-a"}}, want: compiler.CodeUnknownModel + " [caller= auth=]"},
	{path: "Name", why: "who asked, in the audit line",
		base: auth.Identity{Roles: []string{"everything"}}, baseWant: byStateRows + " [caller= auth=]",
		variant: auth.Identity{Roles: []string{"everything"}, Name: "alice"}, want: byStateRows + " [caller=alice auth=]"},
	{path: "Method", why: "how the caller was authenticated, in the audit line",
		base: auth.Identity{Roles: []string{"everything"}}, baseWant: byStateRows + " [caller= auth=]",
		variant: auth.Identity{Roles: []string{"everything"}, Method: auth.MethodToken}, want: byStateRows + " [caller= auth=token]"},
}

// TestEveryCallerFieldHasAnEffect: every field of Identity has a case,
// and each case's callers get the answers written by hand.
func TestEveryCallerFieldHasAnEffect(t *testing.T) {
	var paths []string
	for _, c := range callerFieldCases {
		paths = append(paths, c.path)
	}
	checkEnumerated(t, reflect.TypeFor[auth.Identity](), paths, "callerFieldCases")
	f := newFieldsFixture(t)
	q, perr := plan.ParseQuery([]byte(byState))
	if perr != nil {
		t.Fatal(perr)
	}
	answer := func(t *testing.T, id auth.Identity) string {
		resp, err := f.srv.Answer(auth.WithIdentity(context.Background(), &id), "fields", q)
		got := ""
		if err != nil {
			var e *problem.Error
			if !errors.As(err, &e) {
				t.Fatal(err)
			}
			got = e.Code
		} else {
			got = answerText(servertest.JSONRows(t, resp.Rows), nil, false)
		}
		lines := strings.Split(strings.TrimSpace(f.audit.String()), "\n")
		var line struct{ Caller, Auth string }
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &line); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%s [caller=%s auth=%s]", got, line.Caller, line.Auth)
	}
	for _, c := range callerFieldCases {
		t.Run(c.path+"/"+c.why, func(t *testing.T) {
			if got := answer(t, c.base); got != c.baseWant {
				t.Errorf("base %+v\n got  %q\n want %q", c.base, got, c.baseWant)
			}
			if got := answer(t, c.variant); got != c.want {
				t.Errorf("variant %+v\n got  %q\n want %q", c.variant, got, c.want)
			}
		})
	}
}
