package catalog

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/engine/postgres"
	"github.com/ossie-dev/ossie/engine/trino"
	"github.com/ossie-dev/ossie/engine/trino/trinotest"
	"github.com/ossie-dev/ossie/test/pgtest"
	"github.com/ossie-dev/ossie/test/trinoserver"
)

func TestMain(m *testing.M) { os.Exit(trinoserver.Main(m, pgtest.StopShared)) }

// shopDDL is one schema with keys, comments, names that need quoting, a
// role-playing pair of foreign keys (origin/destination), a self
// reference and a view; valid on DuckDB and PostgreSQL.
var shopDDL = []string{
	`CREATE SCHEMA shop`,
	`CREATE TABLE shop.customers (id INTEGER PRIMARY KEY, email VARCHAR(200) UNIQUE, region TEXT)`,
	`COMMENT ON TABLE shop.customers IS 'People who bought something'`,
	`COMMENT ON COLUMN shop.customers.email IS 'Login e-mail'`,
	`CREATE TABLE shop.airports (code CHAR(3) PRIMARY KEY, name TEXT)`,
	`CREATE TABLE shop.orders (id BIGINT PRIMARY KEY, customer_id INTEGER REFERENCES shop.customers (id),
		"Order Date" DATE, amount NUMERIC(12,2), placed_at TIMESTAMPTZ, "select" TEXT,
		origin CHAR(3) REFERENCES shop.airports (code), destination CHAR(3) REFERENCES shop.airports (code),
		tags TEXT[])`,
	`COMMENT ON COLUMN shop.orders.amount IS 'Order total in EUR'`,
	`CREATE TABLE shop.employees (id INTEGER PRIMARY KEY, manager_id INTEGER REFERENCES shop.employees (id))`,
	`CREATE VIEW shop.big_orders AS SELECT id, amount FROM shop.orders WHERE amount > 100`,
	`CREATE TABLE public_notes (note TEXT)`,
}

func execAll(t *testing.T, e engine.Engine, stmts []string) {
	t.Helper()
	for _, s := range stmts {
		if err := e.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// checkShop asserts what both DuckDB and PostgreSQL must yield for shopDDL.
func checkShop(t *testing.T, tables []Table, system string) {
	t.Helper()
	var names []string
	for _, tb := range tables {
		names = append(names, tb.Schema+"."+tb.Name)
	}
	want := []string{"shop.airports", "shop.big_orders", "shop.customers", "shop.employees", "shop.orders"}
	if !slices.Equal(names, want) {
		t.Fatalf("tables %v, want %v", names, want)
	}
	doc, rep := Draft(tables, Options{ModelName: "shop", TypeSystem: system})
	loadDraft(t, doc)
	m := doc.SemanticModel[0]
	ds := map[string]ossie.Dataset{}
	for _, d := range m.Datasets {
		ds[d.Name] = d
	}
	if c := ds["customers"]; c.Description != "People who bought something" || !slices.Equal(c.PrimaryKey, []string{"id"}) ||
		len(c.UniqueKeys) != 1 || c.UniqueKeys[0][0] != "email" || c.Fields[1].Description != "Login e-mail" || c.Source.Object != "shop.customers" {
		t.Errorf("customers = %+v", c)
	}
	o := ds["orders"]
	types := map[string]ossie.Datatype{}
	for _, f := range o.Fields {
		types[f.Name] = f.Datatype
	}
	wantTypes := map[string]ossie.Datatype{"id": "Integer", "customer_id": "Integer", "order_date": "Date", "amount": "Decimal",
		"placed_at": "DateTimeTz", "select": "String", "origin": "String", "tags": "Opaque"}
	for f, dt := range wantTypes {
		if types[f] != dt {
			t.Errorf("orders.%s datatype %q, want %q", f, types[f], dt)
		}
	}
	if o.Fields[3].Description != "Order total in EUR" {
		t.Errorf("amount description %q", o.Fields[3].Description)
	}
	var rels []string
	for _, r := range m.Relationships {
		rels = append(rels, r.Name+":"+r.From+"("+strings.Join(r.FromColumns, ",")+")->"+r.To+"("+strings.Join(r.ToColumns, ",")+")")
	}
	// Of the two keys to airports, the one on the earlier column wins.
	wantRels := []string{"orders_customers:orders(customer_id)->customers(id)", "orders_airports:orders(origin)->airports(code)"}
	if !slices.Equal(rels, wantRels) {
		t.Errorf("relationships %v, want %v", rels, wantRels)
	}
	if len(rep.Skipped) != 2 || !strings.Contains(strings.Join(rep.Skipped, "\n"), "already joined through another path") ||
		!strings.Contains(strings.Join(rep.Skipped, "\n"), "references its own table") {
		t.Errorf("skipped %q", rep.Skipped)
	}
	if !slices.Equal(rep.WithoutPrimaryKey, []string{"big_orders"}) {
		t.Errorf("without primary key %v", rep.WithoutPrimaryKey)
	}
}

func TestListEngineDuckDB(t *testing.T) {
	e, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	execAll(t, e, shopDDL)
	tables, err := ListEngine(context.Background(), e, EngineOptions{Kind: KindDuckDB, Schemas: []string{"shop"}})
	if err != nil {
		t.Fatal(err)
	}
	checkShop(t, tables, "DuckDB")

	all, err := ListEngine(context.Background(), e, EngineOptions{Kind: KindDuckDB, Tables: []string{"main.*", "shop.cust*"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all[0].Name != "public_notes" || all[1].Name != "customers" {
		t.Errorf("selection: %+v", all)
	}
	_, err = ListEngine(context.Background(), e, EngineOptions{Kind: KindDuckDB, Schemas: []string{"nope"}})
	wantError(t, err, NotFound, "no table matched on DuckDB", "main, shop", "--schema")
}

func TestListEnginePostgres(t *testing.T) {
	srv := pgtest.Shared(t)
	dsn := srv.NewDatabase(t)
	e, err := postgres.Open(context.Background(), postgres.Config{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	execAll(t, e, shopDDL)
	// A partitioned table is listed once, through its parent.
	execAll(t, e, []string{
		`CREATE TABLE shop.events (id BIGINT, at DATE, customer_id INTEGER REFERENCES shop.customers (id)) PARTITION BY RANGE (at)`,
		`CREATE TABLE shop.events_2026 PARTITION OF shop.events FOR VALUES FROM ('2026-01-01') TO ('2027-01-01')`,
	})
	tables, err := ListEngine(context.Background(), e, EngineOptions{Kind: KindPostgres, Schemas: []string{"shop"}, Tables: []string{"[^e]*", "employees"}})
	if err != nil {
		t.Fatal(err)
	}
	checkShop(t, tables, "PostgreSQL")
	ev, err := ListEngine(context.Background(), e, EngineOptions{Kind: KindPostgres, Tables: []string{"shop.events*"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ev) != 1 || ev[0].Name != "events" || len(ev[0].ForeignKeys) != 1 {
		t.Errorf("partitioned: %+v", ev)
	}
	// Exact PostgreSQL types reach the mapping.
	for _, tb := range tables {
		if tb.Name == "orders" && (tb.Columns[3].Type != "numeric(12,2)" || tb.Columns[8].Type != "text[]") {
			t.Errorf("orders column types %+v", tb.Columns)
		}
	}
}

func TestListEnginePostgresUnreachable(t *testing.T) {
	srv := pgtest.Private(t)
	dsn := srv.NewDatabase(t)
	e, err := postgres.Open(context.Background(), postgres.Config{DSN: dsn, ConnectTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := srv.StopServer(); err != nil {
		t.Fatal(err)
	}
	_, err = ListEngine(context.Background(), e, EngineOptions{Kind: KindPostgres})
	wantError(t, err, Unreachable, "cannot reach the postgres engine", "check the DSN")
	if strings.Contains(err.Error(), srv.Password()) {
		t.Errorf("password in message: %v", err)
	}
}

// TestListEngineTrino drafts from a real Trino's information_schema
// (memory connector): Trino's own type names, its lower-cased
// identifiers, three-part sources.
func TestListEngineTrino(t *testing.T) {
	srv := trinoserver.Shared(t)
	schema := srv.NewSchema(t, "sales")
	ctx := context.Background()
	if err := srv.Exec(ctx,
		`CREATE TABLE memory.`+schema+`.orders (id BIGINT, amount DECIMAL(12,2), placed_at TIMESTAMP(6) WITH TIME ZONE, items ARRAY(ROW(sku VARCHAR, qty INTEGER)))`,
		`CREATE TABLE memory.`+schema+`."Order Lines" (order_id BIGINT, "Line No" INTEGER)`,
	); err != nil {
		t.Fatal(err)
	}
	e, err := trino.Open(ctx, trino.Config{DSN: srv.DSN(trinoserver.AdminUser, "memory", ""), RetryTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	tables, err := ListEngine(ctx, e, EngineOptions{Kind: KindTrino, Catalog: "memory", Schemas: []string{schema}})
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := Draft(tables, Options{ModelName: "sales", TypeSystem: "Trino"})
	loadDraft(t, doc)
	m := doc.SemanticModel[0]
	// Trino stores the quoted name lower-cased: "Order Lines" is "order lines".
	if len(m.Datasets) != 2 || m.Datasets[0].Source.Object != `memory.`+schema+`."order lines"` || m.Datasets[1].Source.Object != "memory."+schema+".orders" {
		t.Fatalf("datasets %+v", m.Datasets)
	}
	var got []string
	for _, f := range m.Datasets[1].Fields {
		got = append(got, f.Name+":"+string(f.Datatype))
	}
	if !slices.Equal(got, []string{"id:Integer", "amount:Decimal", "placed_at:DateTimeTz", "items:Opaque"}) {
		t.Errorf("orders fields %v", got)
	}
	_, err = ListEngine(ctx, e, EngineOptions{Kind: KindTrino})
	wantError(t, err, Problem, "no Trino catalog", "--catalog")
}

// TestListEngineTrinoGone: a coordinator that vanishes after the engine
// was opened (the protocol test server, closed) is unreachable.
func TestListEngineTrinoGone(t *testing.T) {
	s := trinotest.Start(t, "author", "", 3)
	e, err := trino.Open(context.Background(), trino.Config{DSN: s.DSN("memory", ""), HTTPClient: s.Client, RetryTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	s.Close()
	_, err = ListEngine(context.Background(), e, EngineOptions{Kind: KindTrino, Catalog: "memory"})
	wantError(t, err, Unreachable, "cannot reach the trino engine")
}
