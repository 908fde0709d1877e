// Package iceberg tests drafting a model from an Apache Iceberg REST
// catalog seen through Trino's Iceberg connector, the way Apache Polaris is
// used: the catalog is Iceberg's published REST fixture (test/icebergrest),
// the engine a real Trino (test/trinoserver) with a catalog "iceberg" of
// type rest on a local-file-system warehouse. Tables are made through
// Trino, drafted by `ossiectl init --from engine --engine trino` and the
// catalog package under it, validated, and queried with `ossiectl query`
// on the same Trino; answers are checked against hand-written SQL.
package iceberg

import (
	"bytes"
	"context"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/ossie-dev/ossie/catalog"
	"github.com/ossie-dev/ossie/engine/trino"
	"github.com/ossie-dev/ossie/ossiectl"
	"github.com/ossie-dev/ossie/test/icebergrest"
	"github.com/ossie-dev/ossie/test/trinoserver"
)

// trinoCatalog is the Trino catalog name of the REST catalog.
const trinoCatalog = "iceberg"

func TestMain(m *testing.M) {
	code := m.Run()
	trinoserver.StopShared()
	icebergrest.StopShared()
	os.Exit(code)
}

// server starts (once) the REST catalog and a Trino reading it.
func server(t *testing.T) *trinoserver.Server {
	t.Helper()
	cat := icebergrest.Shared(t)
	trinoserver.SharedOptions.Plugins = []string{"iceberg"}
	trinoserver.SharedOptions.Catalogs = map[string]string{trinoCatalog: cat.TrinoCatalog()}
	return trinoserver.Shared(t)
}

// The tables: every column type Trino's Iceberg connector can create, with
// table and column comments (some columns without one).
var setup = []string{
	`CREATE SCHEMA iceberg.shop`,
	`CREATE TABLE iceberg.shop.customers (
		customer_id BIGINT COMMENT 'Customer key',
		name VARCHAR COMMENT 'Display name',
		region VARCHAR COMMENT 'Sales region, e.g. EMEA',
		signed_up DATE
	) COMMENT 'One row per customer'`,
	`CREATE TABLE iceberg.shop.orders (
		order_id BIGINT COMMENT 'Order key',
		customer_id BIGINT COMMENT 'Who ordered (customers.customer_id)',
		amount DECIMAL(12,2) COMMENT 'Order total in EUR',
		quantity INTEGER,
		discount DOUBLE COMMENT 'Share off the list price, 0 to 1',
		weight REAL,
		placed_at TIMESTAMP(6) WITH TIME ZONE COMMENT 'When the order was placed',
		created TIMESTAMP(6),
		ship_date DATE,
		ship_time TIME(6),
		shipped BOOLEAN,
		note VARCHAR,
		tracking UUID,
		payload VARBINARY,
		tags ARRAY(VARCHAR),
		address ROW(city VARCHAR, zip VARCHAR)
	) COMMENT 'One row per order'`,
	`INSERT INTO iceberg.shop.customers VALUES
		(1, 'Ada', 'EMEA', DATE '2024-01-05'),
		(2, 'Grace', 'AMER', DATE '2024-02-10'),
		(3, 'Linus', 'EMEA', DATE '2024-03-15'),
		(4, 'Yukihiro', 'APAC', DATE '2024-04-20')`,
	`INSERT INTO iceberg.shop.orders VALUES
		(10, 1, 120.50, 2, 0.1, 1.5, TIMESTAMP '2024-05-01 10:00:00 UTC', TIMESTAMP '2024-05-01 10:00:00', DATE '2024-05-02', TIME '08:00:00', true, 'gift', UUID '12151fd2-7586-11e9-8f9e-2a86e4085a59', X'00ff', ARRAY['a'], ROW('Berlin', '10115')),
		(11, 1, 80.25, 1, 0.0, 0.5, TIMESTAMP '2024-05-03 11:30:00 UTC', TIMESTAMP '2024-05-03 11:30:00', DATE '2024-05-04', TIME '09:00:00', true, NULL, NULL, NULL, NULL, NULL),
		(12, 2, 310.00, 5, 0.2, 4.0, TIMESTAMP '2024-06-10 09:15:00 UTC', TIMESTAMP '2024-06-10 09:15:00', NULL, NULL, false, 'rush', NULL, NULL, ARRAY['b', 'c'], NULL),
		(13, 3, 45.99, 1, 0.0, 0.2, TIMESTAMP '2024-06-11 17:45:00 UTC', TIMESTAMP '2024-06-11 17:45:00', DATE '2024-06-12', TIME '10:30:00', true, NULL, NULL, NULL, NULL, NULL),
		(14, 4, 999.99, 3, 0.05, 9.9, TIMESTAMP '2024-07-01 00:00:00 UTC', TIMESTAMP '2024-07-01 00:00:00', DATE '2024-07-03', TIME '12:00:00', false, NULL, NULL, NULL, NULL, NULL),
		(15, 2, 12.00, 1, 0.0, 0.1, TIMESTAMP '2024-07-02 23:59:59 UTC', TIMESTAMP '2024-07-02 23:59:59', NULL, NULL, false, NULL, NULL, NULL, NULL, NULL)`,
}

// field is what the draft must say of one column.
type field struct{ datatype, description string }

var wantOrders = map[string]field{
	"order_id":    {"Integer", "Order key"},
	"customer_id": {"Integer", "Who ordered (customers.customer_id)"},
	"amount":      {"Decimal", "Order total in EUR"},
	"quantity":    {"Integer", ""},
	"discount":    {"Float", "Share off the list price, 0 to 1"},
	"weight":      {"Float", ""},
	"placed_at":   {"DateTimeTz", "When the order was placed"},
	"created":     {"DateTime", ""},
	"ship_date":   {"Date", ""},
	"ship_time":   {"Time", ""},
	"shipped":     {"Boolean", ""},
	"note":        {"String", ""},
	"tracking":    {"String", ""},
	"payload":     {"Opaque", "Trino type varbinary is binary data, not a scalar Ossie datatype: kept as Opaque; derive scalar fields from it with an expression before using it."},
	"tags":        {"Opaque", "Trino type array(varchar) is an array, not a scalar Ossie datatype: kept as Opaque; derive scalar fields from it with an expression before using it."},
	"address":     {"Opaque", "Trino type row(city varchar, zip varchar) is a nested record, not a scalar Ossie datatype: kept as Opaque; derive scalar fields from it with an expression before using it."},
}

var wantCustomers = map[string]field{
	"customer_id": {"Integer", "Customer key"},
	"name":        {"String", "Display name"},
	"region":      {"String", "Sales region, e.g. EMEA"},
	"signed_up":   {"Date", ""},
}

// draft is the part of a drafted document the test reads.
type draft struct {
	SemanticModel []struct {
		Name     string `json:"name"`
		Datasets []struct {
			Name        string `json:"name"`
			Source      string `json:"source"`
			Description string `json:"description"`
			Fields      []struct {
				Name        string `json:"name"`
				Description string `json:"description"`
				Datatype    string `json:"datatype"`
			} `json:"fields"`
		} `json:"datasets"`
	} `json:"semantic_model"`
}

func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = ossiectl.Do(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestDraftFromIcebergRESTThroughTrino(t *testing.T) {
	srv := server(t)
	ctx := context.Background()
	if err := srv.Exec(ctx, setup...); err != nil {
		t.Fatal(err)
	}
	dsn := srv.DSN(trinoserver.AdminUser, trinoCatalog, "")

	// The catalog package: what Trino reports of the Iceberg tables.
	eng, err := trino.Open(ctx, trino.Config{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	tables, err := catalog.ListEngine(ctx, eng, catalog.EngineOptions{Kind: catalog.KindTrino, Catalog: trinoCatalog, Schemas: []string{"shop"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(tables) != 2 || tables[0].Name != "customers" || tables[1].Name != "orders" {
		t.Fatalf("tables: %+v", tables)
	}
	orders := tables[1]
	if orders.Catalog != trinoCatalog || orders.Schema != "shop" || orders.Comment != "One row per order" || len(orders.Columns) != len(wantOrders) {
		t.Errorf("orders: %s.%s %q, %d columns", orders.Catalog, orders.Schema, orders.Comment, len(orders.Columns))
	}
	wantTypes := map[string]string{"amount": "decimal(12,2)", "placed_at": "timestamp(6) with time zone", "created": "timestamp(6)", "ship_time": "time(6)", "weight": "real", "tracking": "uuid"}
	for _, c := range orders.Columns {
		if w, ok := wantTypes[c.Name]; ok && c.Type != w {
			t.Errorf("orders.%s: type %q, want %q", c.Name, c.Type, w)
		}
		if w := wantOrders[c.Name].description; !strings.HasPrefix(w, "Trino type") && c.Comment != w {
			t.Errorf("orders.%s: comment %q, want %q", c.Name, c.Comment, w)
		}
	}

	// ossiectl init: the draft, with comments as descriptions.
	t.Setenv("OSSIE_TEST_ICEBERG_DSN", dsn)
	code, out, errOut := run(t, "init", "--from", "engine", "--engine", "trino", "--dsn-env", "OSSIE_TEST_ICEBERG_DSN", "--schema", "shop")
	if code != ossiectl.ExitOK {
		t.Fatalf("init: exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, `drafted model "shop" from Trino catalog iceberg: 2 dataset(s), 20 field(s), 0 relationship(s)`) {
		t.Errorf("init stderr: %s", errOut)
	}
	var d draft
	if err := yaml.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("draft: %v\n%s", err, out)
	}
	if len(d.SemanticModel) != 1 || d.SemanticModel[0].Name != "shop" || len(d.SemanticModel[0].Datasets) != 2 {
		t.Fatalf("draft:\n%s", out)
	}
	for _, ds := range d.SemanticModel[0].Datasets {
		want, source, desc := wantOrders, "iceberg.shop.orders", "One row per order"
		if ds.Name == "customers" {
			want, source, desc = wantCustomers, "iceberg.shop.customers", "One row per customer"
		}
		if ds.Source != source || ds.Description != desc || len(ds.Fields) != len(want) {
			t.Errorf("dataset %s: source %q, description %q, %d fields", ds.Name, ds.Source, ds.Description, len(ds.Fields))
		}
		for _, f := range ds.Fields {
			if got := (field{f.Datatype, f.Description}); got != want[f.Name] {
				t.Errorf("%s.%s: %+v, want %+v", ds.Name, f.Name, got, want[f.Name])
			}
		}
	}

	// The draft validates as it is, and, with the key, relationship and
	// metrics a reviewer adds, answers on Trino.
	dir := t.TempDir()
	drafted := filepath.Join(dir, "drafted.yaml")
	if err := os.WriteFile(drafted, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, vout, verr := run(t, "validate", drafted); code != ossiectl.ExitOK {
		t.Fatalf("validate the draft: exit %d\n%s%s", code, vout, verr)
	}
	model := filepath.Join(dir, "shop.yaml")
	if err := os.WriteFile(model, reviewed(t, out), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, vout, verr := run(t, "validate", model); code != ossiectl.ExitOK {
		t.Fatalf("validate the reviewed model: exit %d\n%s%s", code, vout, verr)
	}
	if code, vout, verr := run(t, "validate", "--engine", "trino", "--dsn-env", "OSSIE_TEST_ICEBERG_DSN", model); code != ossiectl.ExitOK {
		t.Fatalf("validate bound to Trino: exit %d\n%s%s", code, vout, verr)
	}
	code, out, errOut = run(t, "query", model, "--engine", "trino", "--dsn-env", "OSSIE_TEST_ICEBERG_DSN",
		"--metrics", "revenue,order_count,avg_amount", "--dimensions", "customers.region", "--order-by", "customers.region", "--format", "csv")
	if code != ossiectl.ExitOK {
		t.Fatalf("query: exit %d: %s", code, errOut)
	}
	got, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(got) < 1 {
		t.Fatalf("query output: %v\n%s", err, out)
	}
	if strings.Join(got[0], ",") != "customers.region,revenue,order_count,avg_amount" {
		t.Errorf("columns: %v", got[0])
	}
	rows, err := srv.DB.QueryContext(ctx, `SELECT c.region, CAST(sum(o.amount) AS VARCHAR), count(o.order_id), avg(CAST(o.amount AS DOUBLE))
		FROM iceberg.shop.orders o JOIN iceberg.shop.customers c ON o.customer_id = c.customer_id
		GROUP BY c.region ORDER BY c.region`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var want [][]string
	for rows.Next() {
		var region, revenue string
		var count int64
		var avg float64
		if err := rows.Scan(&region, &revenue, &count, &avg); err != nil {
			t.Fatal(err)
		}
		want = append(want, []string{region, revenue, strconv.FormatInt(count, 10), strconv.FormatFloat(avg, 'g', -1, 64)})
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(want) != 3 || len(got)-1 != len(want) {
		t.Fatalf("ossiectl query answered %d rows, the hand-written SQL %d:\n%s\nwant %v", len(got)-1, len(want), out, want)
	}
	for i, w := range want {
		g := got[i+1]
		if g[0] != w[0] || !sameNumber(g[1], w[1]) || g[2] != w[2] || !sameNumber(g[3], w[3]) {
			t.Errorf("row %d: ossiectl query %v, hand-written SQL %v", i, g, w)
		}
	}

	// A column dropped from the Iceberg table is drift when the model is
	// bound to Trino again.
	if err := srv.Exec(ctx, `ALTER TABLE iceberg.shop.orders DROP COLUMN note`); err != nil {
		t.Fatal(err)
	}
	code, vout, verr := run(t, "validate", "--engine", "trino", "--dsn-env", "OSSIE_TEST_ICEBERG_DSN", model)
	if code != ossiectl.ExitProblems || !strings.Contains(vout+verr, "OSS5001") || !strings.Contains(vout+verr, "note") {
		t.Errorf("validate after DROP COLUMN note: exit %d\n%s%s", code, vout, verr)
	}
	t.Logf("validate after DROP COLUMN note:\n%s%s", vout, verr)
}

// reviewed adds to a draft what a reviewer adds: the customers' primary
// key, the orders-to-customers relationship and three metrics.
func reviewed(t *testing.T, drafted string) []byte {
	t.Helper()
	var doc map[string]any
	if err := yaml.Unmarshal([]byte(drafted), &doc); err != nil {
		t.Fatal(err)
	}
	m := doc["semantic_model"].([]any)[0].(map[string]any)
	for _, ds := range m["datasets"].([]any) {
		ds := ds.(map[string]any)
		switch ds["name"] {
		case "customers":
			ds["primary_key"] = []any{"customer_id"}
		case "orders":
			ds["primary_key"] = []any{"order_id"}
		}
	}
	m["relationships"] = []any{map[string]any{
		"name": "orders_to_customers", "from": "orders", "to": "customers",
		"from_columns": []any{"customer_id"}, "to_columns": []any{"customer_id"},
	}}
	metric := func(name, expr, datatype string) map[string]any {
		return map[string]any{"name": name, "datatype": datatype, "expression": map[string]any{
			"dialects": []any{map[string]any{"dialect": "ANSI_SQL", "expression": expr}},
		}}
	}
	m["metrics"] = []any{
		metric("revenue", "SUM(orders.amount)", "Decimal"),
		metric("order_count", "COUNT(orders.order_id)", "Integer"),
		metric("avg_amount", "AVG(orders.amount)", "Float"),
	}
	b, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sameNumber compares two decimal renderings within 1e-9 (relative).
func sameNumber(a, b string) bool {
	x, err1 := strconv.ParseFloat(a, 64)
	y, err2 := strconv.ParseFloat(b, 64)
	return err1 == nil && err2 == nil && math.Abs(x-y) <= 1e-9*math.Max(1, math.Abs(y))
}
