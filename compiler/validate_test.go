package compiler

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Test documents are assembled from short flow-style YAML pieces so each
// case shows only its mistake.

func fld(name, sql string) string {
	return fmt.Sprintf("{name: %s, expression: {dialects: [{dialect: ANSI_SQL, expression: %q}]}}", name, sql)
}

func met(name, sql string) string {
	return fmt.Sprintf("{name: %s, expression: {dialects: [{dialect: ANSI_SQL, expression: %q}]}}", name, sql)
}

func rel(name, from, to, fromCols, toCols string) string {
	return fmt.Sprintf("{name: %s, from: %s, to: %s, from_columns: [%s], to_columns: [%s]}", name, from, to, fromCols, toCols)
}

// ds renders a dataset; extra holds additional keys such as "primary_key: [id]".
func ds(name, source, extra string, fields ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "      - name: %s\n        source: %s\n", name, source)
	if extra != "" {
		fmt.Fprintf(&b, "        %s\n", extra)
	}
	if len(fields) > 0 {
		b.WriteString("        fields:\n")
		for _, f := range fields {
			fmt.Fprintf(&b, "          - %s\n", f)
		}
	}
	return b.String()
}

func doc(datasets []string, rels []string, metrics []string) string {
	var b strings.Builder
	b.WriteString("version: \"0.2.0.dev0\"\nsemantic_model:\n  - name: shop\n    datasets:\n")
	for _, d := range datasets {
		b.WriteString(d)
	}
	if len(rels) > 0 {
		b.WriteString("    relationships:\n")
		for _, r := range rels {
			fmt.Fprintf(&b, "      - %s\n", r)
		}
	}
	if len(metrics) > 0 {
		b.WriteString("    metrics:\n")
		for _, m := range metrics {
			fmt.Fprintf(&b, "      - %s\n", m)
		}
	}
	return b.String()
}

var (
	ordersDS = ds("orders", "shop.orders", "primary_key: [order_id]",
		fld("order_id", "order_id"), fld("customer_id", "customer_id"),
		fld("amount", "amount"), fld("order_date", "order_date")+"", fld("status", "status"))
	customersDS = ds("customers", "shop.customers", "primary_key: [customer_id]",
		fld("customer_id", "customer_id"), fld("region", "region"))
	ordersToCustomers = rel("orders_customers", "orders", "customers", "customer_id", "customer_id")
)

// shop is a valid two-dataset model with base and derived metrics.
func shop(extraMetrics ...string) string {
	ms := append([]string{met("revenue", "SUM(orders.amount)"), met("order_count", "COUNT(orders.order_id)")}, extraMetrics...)
	return doc([]string{ordersDS, customersDS}, []string{ordersToCustomers}, ms)
}

// parseOK parses text and fails the test on any parse problem, so that a
// validation test never passes because the parser refused its document.
func parseOK(t testing.TB, text string) *Parsed {
	t.Helper()
	p, probs := Parse([]byte(text))
	if len(probs) > 0 {
		t.Fatalf("parse problems (test document must parse):\n%s\n--- document:\n%s", probs.Error(), text)
	}
	return p
}

// codePaths renders problems as "severity CODE path" for comparison.
func codePaths(ps Problems) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = fmt.Sprintf("%s %s %s", p.Severity, p.Code, p.Path)
	}
	return out
}

func TestValidateRules(t *testing.T) {
	const m0 = "semantic_model[0]"
	long := strings.Repeat("x", 129)
	tests := []struct {
		name string
		doc  string
		want []string // "severity CODE path", sorted as Validate sorts
		msg  string   // substring of the first problem's message
	}{
		{"valid shop model", shop(met("avg_order", "revenue / order_count")), nil, ""},
		{"metric may share a field's name (BC-16)",
			shop(met("amount", "SUM(orders.amount)")), nil, ""},
		{"duplicate dataset name",
			doc([]string{ordersDS, ds("orders", "other", "", fld("x", "x"))}, nil, nil),
			[]string{"error OSS2001 " + m0 + ".datasets[1].name"}, `already used by datasets[0]`},
		{"duplicate field name",
			doc([]string{ds("t", "t", "", fld("a", "a"), fld("a", "b"))}, nil, nil),
			[]string{"error OSS2001 " + m0 + ".datasets[0].fields[1].name"}, `field name "a"`},
		{"duplicate metric name",
			shop(met("revenue", "SUM(orders.amount)")),
			[]string{"error OSS2001 " + m0 + ".metrics[2].name"}, `metric name "revenue"`},
		{"duplicate relationship name",
			doc([]string{ordersDS, customersDS, ds("stores", "s", "primary_key: [id]", fld("id", "id"))},
				[]string{ordersToCustomers, rel("orders_customers", "customers", "stores", "region", "id")}, nil),
			[]string{"error OSS2001 " + m0 + ".relationships[1].name"}, `relationship name`},
		{"name too long",
			doc([]string{ds("t", "t", "", fld(long, "a"))}, nil, nil),
			[]string{"error OSS2013 " + m0 + ".datasets[0].fields[0].name"}, `129 characters`},
		{"relationship to unknown dataset with did-you-mean",
			doc([]string{ordersDS, customersDS}, []string{rel("r", "orders", "customer", "customer_id", "customer_id")}, nil),
			[]string{"error OSS2002 " + m0 + ".relationships[0].to"}, `did you mean "customers"?`},
		{"self relationship",
			doc([]string{ordersDS}, []string{rel("r", "orders", "orders", "customer_id", "order_id")}, nil),
			[]string{"error OSS2015 " + m0 + ".relationships[0]"}, `to itself`},
		{"column count mismatch",
			doc([]string{ordersDS, customersDS}, []string{rel("r", "orders", "customers", "customer_id, status", "customer_id")}, nil),
			[]string{"error OSS2004 " + m0 + ".relationships[0].to_columns"}, `2 from_columns and 1 to_columns`},
		{"to_columns are not a key of to",
			doc([]string{ordersDS, customersDS}, []string{rel("r", "orders", "customers", "status", "region")}, nil),
			[]string{"error OSS2005 " + m0 + ".relationships[0].to_columns"}, `its keys: (customer_id)`},
		{"to_columns match a unique key",
			doc([]string{ordersDS, ds("customers", "c", "primary_key: [customer_id]\n        unique_keys: [[email]]", fld("customer_id", "customer_id"), fld("email", "email"))},
				[]string{rel("r", "orders", "customers", "status", "email")}, nil),
			nil, ""},
		{"to declares no key: warning",
			doc([]string{ordersDS, ds("customers", "c", "", fld("customer_id", "customer_id"))}, []string{ordersToCustomers}, nil),
			[]string{"warning OSS2006 " + m0 + ".relationships[0].to_columns"}, `assumes (customer_id) is unique`},
		{"relationship column that is no field is a physical column",
			doc([]string{ordersDS, customersDS}, []string{rel("r", "orders", "customers", "cust_fk", "customer_id")}, nil),
			nil, ""},
		{"primary key that is no field is a physical column (checked at bind)",
			doc([]string{ds("t", "t", "primary_key: [t_key]", fld("id", "id"))}, nil, nil), nil, ""},
		{"unique key columns that are no fields are physical columns",
			doc([]string{ds("t", "t", "unique_keys: [[id], [code, nope]]", fld("id", "id"), fld("code", "code"))}, nil, nil), nil, ""},
		{"relationship to a key column that is no field",
			doc([]string{ordersDS, ds("customers", "c", "primary_key: [cust_key]", fld("region", "region"))},
				[]string{rel("r", "orders", "customers", "customer_id", "cust_key")}, nil), nil, ""},
		{"two many-to-one paths between two datasets: valid, with a warning naming both",
			doc([]string{
				ds("a", "a", "primary_key: [id]", fld("id", "id"), fld("b_id", "b_id"), fld("c_id", "c_id")),
				ds("b", "b", "primary_key: [id]", fld("id", "id"), fld("c_id", "c_id")),
				ds("c", "c", "primary_key: [id]", fld("id", "id")),
			}, []string{rel("a_b", "a", "b", "b_id", "id"), rel("b_c", "b", "c", "c_id", "id"), rel("a_c", "a", "c", "c_id", "id")}, nil),
			[]string{"warning OSS2020 " + m0 + ".relationships[2]"}, `a -[a_b]-> b -[b_c]-> c; a -[a_c]-> c`},
		{"directed cycle of many-to-one relationships",
			doc([]string{
				ds("a", "a", "primary_key: [id]", fld("id", "id"), fld("b_id", "b_id")),
				ds("b", "b", "primary_key: [id]", fld("id", "id"), fld("c_id", "c_id")),
				ds("c", "c", "primary_key: [id]", fld("id", "id"), fld("a_id", "a_id")),
			}, []string{rel("a_b", "a", "b", "b_id", "id"), rel("b_c", "b", "c", "c_id", "id"), rel("c_a", "c", "a", "a_id", "id")}, nil),
			[]string{"error OSS2007 " + m0 + ".relationships[2]"}, `"a" -[a_b]-> "b" -[b_c]-> "c"`},
		{"parallel relationships to one calendar: valid, with a warning",
			doc([]string{
				ds("orders", "orders", "primary_key: [id]", fld("id", "id"), fld("order_day", "order_day"), fld("ship_day", "ship_day")),
				ds("calendar", "calendar", "primary_key: [day]", fld("day", "day"), fld("month", "month")),
			}, []string{rel("orders_order_date", "orders", "calendar", "order_day", "day"), rel("orders_ship_date", "orders", "calendar", "ship_day", "day")}, nil),
			[]string{"warning OSS2020 " + m0 + ".relationships[1]"}, `orders -[orders_order_date]-> calendar; orders -[orders_ship_date]-> calendar`},
		{"constellation: two facts sharing date, product and store",
			constellation(), nil, ""},
		{"no portable dialect",
			doc([]string{ds("t", "t", "", `{name: a, expression: {dialects: [{dialect: MDX, expression: "[a]"}, {dialect: DAX, expression: "[a]"}]}}`)}, nil, nil),
			[]string{"error OSS2008 " + m0 + ".datasets[0].fields[0].expression"}, `it has MDX, DAX`},
		{"SNOWFLAKE-only field read as ANSI with a warning",
			doc([]string{ds("t", "t", "", `{name: a, expression: {dialects: [{dialect: SNOWFLAKE, expression: "IFF(a > 0, a, 0)"}, {dialect: DAX, expression: "[a]"}]}}`)}, nil, nil),
			[]string{"warning OSS3009 " + m0 + ".datasets[0].fields[0].expression.dialects[0].expression"}, `its SNOWFLAKE expression`},
		{"DATABRICKS-only metric read as ANSI with a warning",
			doc([]string{ds("t", "t", "", fld("a", "a"))}, nil, []string{`{name: m, expression: {dialects: [{dialect: DATABRICKS, expression: "SUM(t.a) / COUNT(t.a)"}]}}`}),
			[]string{"warning OSS3009 " + m0 + ".metrics[0].expression.dialects[0].expression"}, `DATABRICKS`},
		{"DATABRICKS backticks do not parse as ANSI",
			doc([]string{ds("t", "t", "", "{name: a, expression: {dialects: [{dialect: DATABRICKS, expression: \"`a b`\"}]}}")}, nil, nil),
			[]string{"error OSS3010 " + m0 + ".datasets[0].fields[0].expression.dialects[0].expression"}, `DATABRICKS: `},
		{"DATABRICKS double quotes are a string there",
			doc([]string{ds("t", "t", "", `{name: a, expression: {dialects: [{dialect: DATABRICKS, expression: "CONCAT(\"x\", a)"}]}}`)}, nil, nil),
			[]string{"error OSS3010 " + m0 + ".datasets[0].fields[0].expression.dialects[0].expression"}, `string literal in DATABRICKS`},
		{"BIGQUERY LOG takes its arguments the other way round",
			doc([]string{ds("t", "t", "", `{name: a, expression: {dialects: [{dialect: BIGQUERY, expression: "LOG(a, 10)"}]}}`)}, nil, nil),
			[]string{"error OSS3010 " + m0 + ".datasets[0].fields[0].expression.dialects[0].expression"}, `(value, base) in BIGQUERY`},
		{"vendor function outside the language is a problem on that expression only",
			doc([]string{ds("t", "t", "", fld("ok", "a"), `{name: a, expression: {dialects: [{dialect: SNOWFLAKE, expression: "ARRAY_SIZE(a)"}]}}`)}, nil, nil),
			[]string{"error OSS3010 " + m0 + ".datasets[0].fields[1].expression.dialects[0].expression"}, `SNOWFLAKE: `},
		{"OSSIE_SQL_2026 is preferred over ANSI_SQL",
			doc([]string{ds("t", "t", "", `{name: a, expression: {dialects: [{dialect: ANSI_SQL, expression: "a"}, {dialect: OSSIE_SQL_2026, expression: "a +"}]}}`)}, nil, nil),
			[]string{"error OSS3001 " + m0 + ".datasets[0].fields[0].expression.dialects[1].expression"}, ``},
		{"expression syntax error",
			doc([]string{ds("t", "t", "", fld("a", "(a + 2"))}, nil, nil),
			[]string{"error OSS3001 " + m0 + ".datasets[0].fields[0].expression.dialects[0].expression"}, `at offset`},
		{"subquery is outside the grammar",
			shop(met("bad", "SUM(orders.amount) + (SELECT 1)")),
			[]string{"error OSS3002 " + m0 + ".metrics[2].expression.dialects[0].expression"}, ``},
		{"field aggregates",
			doc([]string{ds("t", "t", "", fld("a", "SUM(a)"))}, nil, nil),
			[]string{"error OSS3004 " + m0 + ".datasets[0].fields[0].expression.dialects[0].expression"}, `aggregate SUM`},
		{"field references another dataset",
			doc([]string{ordersDS, ds("t", "t", "", fld("a", "orders.amount * 2"))}, nil, nil),
			[]string{"error OSS2009 " + m0 + ".datasets[1].fields[0].expression.dialects[0].expression"}, `orders.amount`},
		{"field may qualify with its own dataset",
			doc([]string{ds("t", "t", "", fld("a", "t.a * 2"))}, nil, nil), nil, ""},
		{"metric reads a field outside an aggregate",
			shop(met("bad", "SUM(orders.amount) + orders.amount")),
			[]string{"error OSS3005 " + m0 + ".metrics[2].expression.dialects[0].expression"}, `outside an aggregate`},
		{"metric neither aggregates nor combines metrics",
			shop(met("bad", "1 + 2")),
			[]string{"error OSS3005 " + m0 + ".metrics[2].expression.dialects[0].expression"}, `neither aggregates`},
		{"metric over a column that is no field: warning, did-you-mean",
			shop(met("m", "SUM(orders.amout)")),
			[]string{"warning OSS2021 " + m0 + ".metrics[2].expression.dialects[0].expression"}, `did you mean "amount"?`},
		{"metric over a bare column of the model's only dataset",
			doc([]string{ds("t", "t", "", fld("a", "a"))}, nil, []string{met("m", "SUM(price * qty)")}),
			[]string{"warning OSS2021 " + m0 + ".metrics[0].expression.dialects[0].expression", "warning OSS2021 " + m0 + ".metrics[0].expression.dialects[0].expression"}, `t.price`},
		{"bare unknown column with several datasets stays unknown",
			shop(met("bad", "SUM(nothing)")),
			[]string{"error OSS2009 " + m0 + ".metrics[2].expression.dialects[0].expression"}, `no dataset has a field`},
		{"stored time zones on model, dataset and field",
			tzDoc(`{vendor_name: OSSIE, data: '{"timezone": "Europe/Amsterdam"}'}`, `{vendor_name: ossie, data: '{"timezone": "UTC"}'}`), nil, ""},
		{"stored time zone that is not IANA",
			tzDoc(`{vendor_name: OSSIE, data: '{"timezone": "Mars/Olympus"}'}`, ""),
			[]string{"error OSS2022 " + m0 + ".custom_extensions"}, `not an IANA time zone`},
		{"stored time zone on a DateTimeTz field",
			doc([]string{ds("t", "t", "", `{name: at, datatype: DateTimeTz, expression: {dialects: [{dialect: ANSI_SQL, expression: at}]}, custom_extensions: [{vendor_name: OSSIE, data: '{"timezone": "UTC"}'}]}`)}, nil, nil),
			[]string{"error OSS2022 " + m0 + ".datasets[0].fields[0].custom_extensions"}, `instants already`},
		{"OSSIE extension with an unknown key",
			tzDoc(`{vendor_name: OSSIE, data: '{"tz": "UTC"}'}`, ""),
			[]string{"error OSS2022 " + m0 + ".custom_extensions[0].data"}, `unknown field`},
		{"metric pins one of two parallel relationships",
			viaDoc("orders_ship_date"),
			[]string{"warning OSS2020 " + m0 + ".relationships[1]"}, ``},
		{"metric pins an unknown relationship",
			viaDoc("orders_shipdate"),
			[]string{"warning OSS2020 " + m0 + ".relationships[1]", "error OSS2022 " + m0 + ".metrics[0].custom_extensions"}, ``},
		{"metric references an unknown dataset",
			shop(met("bad", "SUM(ordrs.amount)")),
			[]string{"error OSS2009 " + m0 + ".metrics[2].expression.dialects[0].expression"}, `did you mean "orders"?`},
		{"metric references an unknown metric",
			shop(met("bad", "revenu / order_count")),
			[]string{"error OSS2009 " + m0 + ".metrics[2].expression.dialects[0].expression"}, `did you mean "revenue"?`},
		{"bare field in an aggregate resolves when one dataset has it",
			shop(met("regions", "COUNT(DISTINCT region)")), nil, ""},
		{"bare field of the model's only dataset",
			doc([]string{ds("t", "t", "", fld("a", "a"))}, nil, []string{met("m", "SUM(a)")}), nil, ""},
		{"bare name no dataset has: did-you-mean",
			shop(met("bad", "SUM(amout)")),
			[]string{"error OSS2009 " + m0 + ".metrics[2].expression.dialects[0].expression"}, `no dataset has a field of that name; write dataset.field; did you mean "amount"?`},
		{"bare field in two datasets is ambiguous",
			shop(met("bad", "COUNT(DISTINCT customer_id)")),
			[]string{"error OSS2009 " + m0 + ".metrics[2].expression.dialects[0].expression"}, `ambiguous: orders.customer_id, customers.customer_id`},
		{"bare field narrowed by the metric's other references",
			shop(met("per_customer", "SUM(orders.amount) / COUNT(DISTINCT customer_id)")), nil, ""},
		{"nested aggregate",
			shop(met("bad", "SUM(AVG(orders.amount))")),
			[]string{"error OSS3006 " + m0 + ".metrics[2].expression.dialects[0].expression"}, `AVG inside SUM`},
		{"metric aggregated inside an aggregate",
			shop(met("bad", "SUM(revenue)")),
			[]string{"error OSS3006 " + m0 + ".metrics[2].expression.dialects[0].expression"}, `already an aggregate`},
		{"derived metric cycle",
			shop(met("a", "b * 2"), met("b", "c + revenue"), met("c", "a - 1")),
			[]string{"error OSS2010 " + m0 + ".metrics[2].expression.dialects[0].expression"}, `a → b → c → a`},
		{"metric using itself",
			shop(met("a", "a + revenue")),
			[]string{"error OSS2010 " + m0 + ".metrics[2].expression.dialects[0].expression"}, `a → a`},
		{"aggregate over disconnected datasets",
			doc([]string{ordersDS, ds("products", "p", "primary_key: [id]", fld("id", "id"), fld("price", "price"))}, nil,
				[]string{met("bad", "SUM(orders.amount * products.price)")}),
			[]string{"error OSS2011 " + m0 + ".metrics[0].expression.dialects[0].expression"}, `no chain of relationships joins "orders" and "products"`},
		{"metrics over disconnected datasets may be combined",
			doc([]string{ordersDS, ds("returns", "r", "primary_key: [id]", fld("id", "id"), fld("amount", "amount"))}, nil,
				[]string{met("sold", "SUM(orders.amount)"), met("returned", "SUM(returns.amount)"), met("net", "sold - returned")}),
			nil, ""},
		{"COUNT(*) counts the fact dataset",
			shop(met("rows", "COUNT(*)")), nil, ""},
		{"COUNT(*) without a single fact dataset",
			doc([]string{ordersDS, ds("returns", "r", "primary_key: [id]", fld("id", "id"))}, nil, []string{met("rows", "COUNT(*)")}),
			[]string{"error OSS2009 " + m0 + ".metrics[0].expression.dialects[0].expression"}, `which dataset's rows`},
		{"source is not a table path",
			doc([]string{ds("t", `"my table"`, "", fld("a", "a"))}, nil, nil),
			[]string{"error OSS2014 " + m0 + ".datasets[0].source"}, `not allowed in an unquoted identifier`},
		{"source query with a second statement",
			doc([]string{ds("t", `"SELECT * FROM x; DROP TABLE x"`, "", fld("a", "a"))}, nil, nil),
			[]string{"error OSS2014 " + m0 + ".datasets[0].source"}, `found 2 statements`},
		{"source query that is not a SELECT",
			doc([]string{ds("t", `{kind: query, object: {dialects: [{dialect: ANSI_SQL, expression: "DELETE FROM x"}]}}`, "", fld("a", "a"))}, nil, nil),
			[]string{"error OSS2014 " + m0 + ".datasets[0].source"}, `must be a SELECT`},
		{"source query without a portable dialect",
			doc([]string{ds("t", `{kind: query, object: {dialects: [{dialect: SNOWFLAKE, expression: "SELECT 1"}]}}`, "", fld("a", "a"))}, nil, nil),
			[]string{"error OSS2008 " + m0 + ".datasets[0].source"}, `it has SNOWFLAKE`},
		{"all source forms accepted",
			doc([]string{
				ds("a", `cat.sch."Tbl"`, "", fld("x", "x")),
				ds("b", `"WITH q AS (SELECT 1 AS x) SELECT x FROM q"`, "", fld("x", "x")),
				ds("c", `data/flights.csv.gz`, "", fld("x", "x")),
				ds("d", `{kind: table, object: sch.tbl}`, "", fld("x", "x")),
				ds("e", `{kind: query, object: {dialects: [{dialect: OSSIE_SQL_2026, expression: "select x from y"}]}}`, "", fld("x", "x")),
			}, nil, nil), nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := parseOK(t, tc.doc)
			got := Validate(p)
			if !slices.Equal(codePaths(got), tc.want) {
				t.Fatalf("problems:\n got  %q\n want %q\nfull:\n%s", codePaths(got), tc.want, got.Error())
			}
			if tc.msg != "" && !strings.Contains(got[0].Message, tc.msg) {
				t.Errorf("message %q does not contain %q", got[0].Message, tc.msg)
			}
			for _, pr := range got {
				if pr.Line == 0 {
					t.Errorf("problem without line: %s", pr)
				}
			}
		})
	}
}

// constellation: orders and returns both point at date, product and store.
func constellation() string {
	dim := func(name, key string) string {
		return ds(name, "shop."+name, "primary_key: ["+key+"]", fld(key, key), fld("label", "label"))
	}
	fact := func(name string) string {
		return ds(name, "shop."+name, "primary_key: [id]", fld("id", "id"), fld("day", "day"), fld("product_id", "product_id"), fld("store_id", "store_id"), fld("amount", "amount"))
	}
	var rels []string
	for _, f := range []string{"orders", "returns"} {
		rels = append(rels, rel(f+"_date", f, "dates", "day", "day"), rel(f+"_product", f, "products", "product_id", "product_id"), rel(f+"_store", f, "stores", "store_id", "store_id"))
	}
	return doc([]string{fact("orders"), fact("returns"), dim("dates", "day"), dim("products", "product_id"), dim("stores", "store_id")}, rels,
		[]string{met("sold", "SUM(orders.amount)"), met("returned", "SUM(returns.amount)"), met("net", "sold - returned")})
}

// tzDoc declares stored time zones on the model (modelExt) and on one field.
func tzDoc(modelExt, fieldExt string) string {
	f := `{name: at, datatype: DateTime, expression: {dialects: [{dialect: ANSI_SQL, expression: at}]}}`
	if fieldExt != "" {
		f = `{name: at, datatype: DateTime, expression: {dialects: [{dialect: ANSI_SQL, expression: at}]}, custom_extensions: [` + fieldExt + `]}`
	}
	d := doc([]string{ds("t", "t", "", f, fld("id", "id"))}, nil, nil)
	return d + "    custom_extensions: [" + modelExt + "]\n"
}

// viaDoc: orders related twice to calendar; metric m pins relationship via.
func viaDoc(via string) string {
	return doc([]string{
		ds("orders", "orders", "primary_key: [id]", fld("id", "id"), fld("order_day", "order_day"), fld("ship_day", "ship_day"), fld("amount", "amount")),
		ds("calendar", "calendar", "primary_key: [day]", fld("day", "day"), fld("month", "month")),
	}, []string{rel("orders_order_date", "orders", "calendar", "order_day", "day"), rel("orders_ship_date", "orders", "calendar", "ship_day", "day")},
		[]string{`{name: shipped, expression: {dialects: [{dialect: ANSI_SQL, expression: "SUM(orders.amount)"}]}, custom_extensions: [{vendor_name: OSSIE, data: '{"via": ["` + via + `"]}'}]}`})
}
