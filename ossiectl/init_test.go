package ossiectl

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"
	"github.com/jackc/pgx/v5"
	"golang.org/x/sys/unix"

	"github.com/ossie-dev/ossie/catalog/gluetest"
	"github.com/ossie-dev/ossie/test/pgtest"
	"github.com/ossie-dev/ossie/test/trinoserver"
)

const glueKey = "AKIDOSSIECTLTEST"

// glueShop serves two Glue databases whose tables cover every type family,
// comments, partition keys, names that need quoting and a table name
// present in both databases.
func glueShop(t *testing.T) *gluetest.Server {
	t.Helper()
	s := gluetest.StartSigned(t, glueKey)
	s.AddDatabase("crm",
		gluetest.Table{Name: "customers", Description: "People who bought something", Columns: []gluetest.Column{
			{Name: "id", Type: "bigint"}, {Name: "email", Type: "string", Comment: "Login e-mail"},
			{Name: "signup date", Type: "date"}, {Name: "vip", Type: "boolean"},
		}},
		gluetest.Table{Name: "events", Columns: []gluetest.Column{{Name: "id", Type: "bigint"}, {Name: "payload", Type: "binary"}}},
	)
	s.AddDatabase("sales",
		gluetest.Table{Name: "orders", Description: "One row per order\nloaded nightly", Columns: []gluetest.Column{
			{Name: "id", Type: "bigint", Comment: "order id"},
			{Name: "customer_id", Type: "bigint"},
			{Name: "amount", Type: "decimal(12,2)", Comment: "Order total in EUR"},
			{Name: "weight", Type: "double"},
			{Name: "qty", Type: "int"},
			{Name: "placed_at", Type: "timestamp"},
			{Name: "order", Type: "string", Comment: "reserved word"},
			{Name: "Ship Mode", Type: "varchar(20)"},
			{Name: `say "hi"`, Type: "char(2)"},
			{Name: "items", Type: "array<struct<sku:string,qty:int>>"},
			{Name: "attrs", Type: "map<string,string>"},
			{Name: "address", Type: "struct<city:string,zip:string>"},
		}, PartitionKeys: []gluetest.Column{{Name: "dt", Type: "date", Comment: "order day"}, {Name: "region", Type: "string"}}},
		gluetest.Table{Name: "events", TableType: "VIRTUAL_VIEW", Columns: []gluetest.Column{{Name: "at", Type: "timestamp"}}},
		gluetest.Table{Name: "Daily Totals", Columns: []gluetest.Column{{Name: "day", Type: "date"}, {Name: "total", Type: "decimal(18,2)"}}},
	)
	return s
}

func TestInitFromGlue(t *testing.T) {
	s := glueShop(t)
	code, out, errOut := run(t, "", "init", "--from", "glue", "--endpoint", s.URL, "--catalog", "awsdatacatalog")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "init/glue.yaml", []byte(out))
	for _, want := range []string{
		`drafted model "glue" from Glue database(s) crm, sales (engine catalog awsdatacatalog): 5 dataset(s), 23 field(s), 0 relationship(s), written to standard output`,
		"add primary_key to 5 dataset(s) (customers, crm_events, orders, sales_events, daily_totals)",
		"add relationships",
		"4 field(s) have no scalar type and are Opaque (crm_events.payload, orders.items, orders.attrs, orders.address)",
		"add metrics",
		"warning: the draft has no metrics, so it cannot answer any query yet",
		"Without metrics the model answers no query; candidates from the numeric columns: SUM(",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}

	// Written to a file, the draft passes ossiectl validate.
	file := filepath.Join(t.TempDir(), "model.yaml")
	if code, _, errOut := run(t, "", "init", "--from", "glue", "--endpoint", s.URL, "--database", "sales", "--tables", "orders,Daily*", "-o", file); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if code, out, errOut := run(t, "", "validate", file); code != ExitOK {
		t.Fatalf("validate exit %d:\n%s%s", code, out, errOut)
	}
	doc := string(readFile(t, file))
	for _, want := range []string{"name: sales\n", "source: sales.orders\n", `source: sales."Daily Totals"`, "name: daily_totals"} {
		if !strings.Contains(doc, want) {
			t.Errorf("document lacks %q", want)
		}
	}
	// An existing file is kept unless --force.
	code, _, errOut = run(t, "", "init", "--from", "glue", "--endpoint", s.URL, "-o", file)
	if code != ExitUsage || !strings.Contains(errOut, "pass --force") {
		t.Errorf("overwrite without --force: exit %d: %s", code, errOut)
	}
	if code, _, errOut := run(t, "", "init", "--from", "glue", "--endpoint", s.URL, "-o", file, "--force", "--name", "everything"); code != ExitOK {
		t.Errorf("--force: exit %d: %s", code, errOut)
	}
	if !strings.Contains(string(readFile(t, file)), "name: everything") {
		t.Error("--force did not replace the file")
	}
}

func TestInitFromGlueFailures(t *testing.T) {
	var s *gluetest.Server
	for _, tc := range []struct {
		name  string
		setup func()
		args  []string
		code  int
		want  []string
	}{
		{"access denied", func() {
			s.Fail("GetTables", gluetest.APIError{Type: "AccessDeniedException", Message: "not authorized to perform: glue:GetTables"})
		}, nil, ExitProblems, []string{"AccessDeniedException", "glue:GetTables", "check the AWS credentials"}},
		{"bad credentials", func() { s.AccessKeyID = "AKIDSOMEONEELSE" }, nil, ExitProblems, []string{"UnrecognizedClientException", "check the AWS credentials"}},
		{"unknown database", nil, []string{"--database", "slaes"}, ExitProblems, []string{`no database "slaes"`, "crm, sales", "fix --database"}},
		{"unreachable", func() { s.Close() }, nil, ExitUnreachable, []string{"cannot reach the Glue endpoint", "connection refused", "check the network"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s = glueShop(t)
			if tc.setup != nil {
				tc.setup()
			}
			code, out, errOut := run(t, "", append([]string{"init", "--from", "glue", "--endpoint", s.URL}, tc.args...)...)
			if code != tc.code || out != "" {
				t.Errorf("exit %d (want %d), stdout %q", code, tc.code, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q: %s", w, errOut)
				}
			}
			if strings.Contains(errOut, "gluetest-secret") {
				t.Errorf("secret in stderr: %s", errOut)
			}
		})
	}
}

func TestInitUsage(t *testing.T) {
	for _, args := range [][]string{
		{"init"},
		{"init", "--from", "s3"},
		{"init", "--from", "glue", "--engine", "duckdb"},
		{"init", "--from", "glue", "--schema", "x"},
		{"init", "--from", "engine", "--database", "x", "--engine", "duckdb", "--duckdb", "f"},
		{"init", "--from", "engine"},
		{"init", "--from", "engine", "--engine", "oracle"},
		{"init", "--from", "engine", "--engine", "duckdb"},
		{"init", "--from", "engine", "--engine", "postgres"},
		{"init", "--from", "engine", "--engine", "postgres", "--dsn-env", "A", "--dsn-file", "B"},
		{"init", "--from", "glue", "--tables", "[a"},
		{"init", "--from", "glue", "extra"},
	} {
		code, out, errOut := run(t, "", args...)
		if code != ExitUsage || out != "" || !strings.Contains(errOut, "ossiectl:") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
	code, out, _ := run(t, "", "init", "--help")
	if code != ExitOK || !strings.Contains(out, "ossiectl init --from glue --database sales,crm") {
		t.Errorf("--help: exit %d\n%s", code, out)
	}
}

// A Glue table with 5,000 columns drafts, validates and stays fast.
func TestInitFromGlueWideTable(t *testing.T) {
	gluetest.SetEnv(t, glueKey)
	s := gluetest.Start(t)
	cols := make([]gluetest.Column, 5000)
	types := []string{"bigint", "string", "decimal(10,2)", "timestamp", "date", "array<int>"}
	for i := range cols {
		cols[i] = gluetest.Column{Name: fmt.Sprintf("c%04d", i), Type: types[i%len(types)]}
	}
	s.AddDatabase("wide", gluetest.Table{Name: "t", Columns: cols})
	file := filepath.Join(t.TempDir(), "wide.yaml")
	start := time.Now()
	code, _, errOut := run(t, "", "init", "--from", "glue", "--endpoint", s.URL, "-o", file)
	took := time.Since(start)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "1 dataset(s), 5000 field(s)") {
		t.Errorf("stderr: %s", errOut)
	}
	start = time.Now()
	if code, out, errOut := run(t, "", "validate", file); code != ExitOK {
		t.Fatalf("validate exit %d: %s%s", code, out, errOut)
	}
	t.Logf("5,000 columns: init %v (fetch, draft, render, self-check), validate %v, %d bytes", took, time.Since(start), len(readFile(t, file)))
}

// shopStatements splits testdata/init/shop.sql into statements.
func shopStatements(t *testing.T) []string {
	var out []string
	for _, s := range strings.Split(string(readFile(t, "testdata/init/shop.sql")), ";\n") {
		var lines []string
		for _, l := range strings.Split(s, "\n") {
			if !strings.HasPrefix(strings.TrimSpace(l), "--") {
				lines = append(lines, l)
			}
		}
		if s := strings.TrimSpace(strings.Join(lines, "\n")); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func TestInitFromDuckDB(t *testing.T) {
	// Not shop.duckdb: DuckDB names the catalog after the file, and a
	// catalog and a schema both called shop make "shop.customers" ambiguous.
	file := filepath.Join(t.TempDir(), "store.duckdb")
	db, err := sql.Open("duckdb", file)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range shopStatements(t) {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	for _, s := range []string{
		`INSERT INTO shop.customers VALUES (1, 'a@example.com', 'EU', DATE '2024-01-01'), (2, 'b@example.com', 'US', NULL)`,
		`INSERT INTO shop.airports VALUES ('BER', 'Berlin', 'g1')`,
		`INSERT INTO shop.orders (id, customer_id, "Order Date", amount, "say ""hi""", origin) VALUES
			(10, 1, DATE '2024-02-01', 100.50, 'x', 'BER'), (11, 1, DATE '2024-02-20', 20.00, 'y', NULL),
			(12, 2, DATE '2024-03-01', 5.25, 'x', 'BER'), (13, NULL, DATE '2024-03-02', 7.00, NULL, NULL)`,
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	// The answer the drafted model must reproduce, written by hand.
	rows, err := db.Query(`SELECT c.region, date_trunc('month', o."Order Date")::DATE, o."say ""hi""", SUM(o.amount)
		FROM shop.orders o LEFT JOIN shop.customers c ON o.customer_id = c.id GROUP BY ALL ORDER BY ALL`)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for rows.Next() {
		var region, hi sql.NullString
		var month time.Time
		var sum float64
		if err := rows.Scan(&region, &month, &hi, &sum); err != nil {
			t.Fatal(err)
		}
		want = append(want, fmt.Sprintf("%s|%s|%s|%.2f", region.String, month.Format(time.DateOnly), hi.String, sum))
	}
	rows.Close()
	db.Close()
	code, out, errOut := run(t, "", "init", "--from", "engine", "--engine", "duckdb", "--duckdb", file)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	model := checkShopDraft(t, "init/duckdb.yaml", out, errOut)

	// With one metric added by the author, the draft answers on the same
	// database: its sources, quoted expressions and relationships are real.
	withMetric := out + "    metrics:\n      - name: revenue\n        expression:\n          dialects:\n            - {dialect: OSSIE_SQL_2026, expression: SUM(orders.amount)}\n"
	if err := os.WriteFile(model, []byte(withMetric), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = run(t, "", "query", model, "--duckdb", file, "--metrics", "revenue",
		"--dimensions", "customers.region,orders.order_date:month,orders.say_hi", "--format", "csv")
	if code != ExitOK {
		t.Fatalf("query exit %d: %s", code, errOut)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		f := strings.Split(line, ",")
		var sum float64
		fmt.Sscan(f[3], &sum)
		got = append(got, fmt.Sprintf("%s|%s|%s|%.2f", f[0], strings.TrimSuffix(f[1], "T00:00:00Z"), f[2], sum))
	}
	slices.Sort(got)
	slices.Sort(want)
	t.Logf("drafted model + revenue on DuckDB:\n%s", out)
	if !slices.Equal(got, want) || len(want) != 4 {
		t.Errorf("drafted model answers\n%v\nhand-written SQL answers\n%v\n(raw CLI output:\n%s)", got, want, out)
	}

	code, _, errOut = run(t, "", "init", "--from", "engine", "--engine", "duckdb", "--duckdb", filepath.Join(t.TempDir(), "missing.duckdb"))
	if code != ExitProblems || !strings.Contains(errOut, "check --duckdb") {
		t.Errorf("missing file: exit %d: %s", code, errOut)
	}
}

// checkShopDraft checks a draft of the shop tables: out against the golden
// file, the report on errOut (checkShopReport), and that the draft, written
// to a file whose path it returns, passes ossiectl validate.
func checkShopDraft(t *testing.T, goldenFile, out, errOut string) string {
	t.Helper()
	golden(t, goldenFile, []byte(out))
	checkShopReport(t, errOut)
	model := filepath.Join(t.TempDir(), "shop.yaml")
	if err := os.WriteFile(model, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := run(t, "", "validate", model); code != ExitOK {
		t.Fatalf("validate exit %d:\n%s%s", code, out, errOut)
	}
	return model
}

func checkShopReport(t *testing.T, errOut string) {
	t.Helper()
	for _, want := range []string{
		`drafted model "shop"`, "5 dataset(s), 24 field(s), 2 relationship(s)",
		"add primary_key to 1 dataset(s) (big_orders)",
		"review the 2 relationship(s) drafted from foreign keys",
		"left out foreign key", "already joined through another path", "references its own table",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
}

func TestInitFromPostgres(t *testing.T) {
	srv := pgtest.Private(t)
	dsn := srv.NewDatabase(t)
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range shopStatements(t) {
		if _, err := conn.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	conn.Close(context.Background())
	t.Setenv("OSSIECTL_TEST_PG_DSN", dsn)
	code, out, errOut := run(t, "", "init", "--from", "engine", "--engine", "postgres", "--dsn-env", "OSSIECTL_TEST_PG_DSN")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	checkShopDraft(t, "init/postgres.yaml", out, errOut)

	// Down: exit 3, the next step, and never the password.
	if err := srv.StopServer(); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = run(t, "", "init", "--from", "engine", "--engine", "postgres", "--dsn-env", "OSSIECTL_TEST_PG_DSN")
	if code != ExitUnreachable || out != "" || !strings.Contains(errOut, "cannot reach the postgres engine") || !strings.Contains(errOut, "check the DSN") {
		t.Errorf("server down: exit %d: %s", code, errOut)
	}
	if strings.Contains(errOut, srv.Password()) {
		t.Errorf("password in stderr: %s", errOut)
	}
}

// Trino (a real server, memory connector): information_schema of the
// DSN's catalog, Trino's type names, three-part sources.
func TestInitFromTrino(t *testing.T) {
	srv := trinoserver.Shared(t)
	srv.Schema(t, "sales")
	if err := srv.Exec(context.Background(),
		`CREATE TABLE memory.sales.orders (id BIGINT, amount DECIMAL(12,2), placed_at TIMESTAMP(6) WITH TIME ZONE, day DATE, items ARRAY(ROW(sku VARCHAR, qty INTEGER)))`,
		`CREATE TABLE memory.sales."Order Lines" (order_id BIGINT, "Line No" INTEGER)`,
	); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OSSIECTL_TEST_TRINO_DSN", srv.DSN(trinoserver.AdminUser, "memory", ""))
	code, out, errOut := run(t, "", "init", "--from", "engine", "--engine", "trino", "--dsn-env", "OSSIECTL_TEST_TRINO_DSN", "--schema", "sales")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "init/trino.yaml", []byte(out))
	if !strings.Contains(errOut, `drafted model "sales" from Trino catalog memory: 2 dataset(s), 7 field(s), 0 relationship(s)`) {
		t.Errorf("stderr: %s", errOut)
	}
	// Down: exit 3 at once (no retry for the client's 2 minutes), with
	// the next step.
	t.Setenv("OSSIECTL_TEST_TRINO_DSN", trinoserver.DownDSN(t, trinoserver.AdminUser, "memory"))
	start := time.Now()
	code, _, errOut = run(t, "", "init", "--from", "engine", "--engine", "trino", "--dsn-env", "OSSIECTL_TEST_TRINO_DSN")
	if d := time.Since(start); d > dialTimeout {
		t.Errorf("an unreachable Trino took %v", d)
	}
	if code != ExitUnreachable || !strings.Contains(errOut, "check the DSN in $OSSIECTL_TEST_TRINO_DSN (host and port) and that the server is running") {
		t.Errorf("server down: exit %d: %s", code, errOut)
	}
}

// openPTY returns a pseudo-terminal pair (Linux /dev/ptmx), or skips.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		m.Close()
		t.Skipf("ptsname: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("open pts: %v", err)
	}
	t.Cleanup(func() { s.Close(); m.Close() })
	return m, s
}

// Progress appears on a terminal and nowhere else.
func TestInitProgressOnlyOnTerminal(t *testing.T) {
	s := glueShop(t)
	master, tty := openPTY(t)
	got := make(chan string)
	go func() {
		var b bytes.Buffer
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			b.Write(buf[:n])
			if err != nil || strings.Contains(b.String(), "Next steps:") {
				break
			}
		}
		got <- b.String()
	}()
	var out bytes.Buffer
	if code := Do([]string{"init", "--from", "glue", "--endpoint", s.URL}, strings.NewReader(""), &out, tty); code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	select {
	case term := <-got:
		if !strings.Contains(term, "reading Glue database sales: 2 tables") || !strings.Contains(term, "reading Glue database sales: 3 tables") {
			t.Errorf("terminal shows no progress:\n%q", term)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("nothing on the terminal")
	}
	// A file (or pipe) gets the report only.
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if code := Do([]string{"init", "--from", "glue", "--endpoint", s.URL}, strings.NewReader(""), &out, f); code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	if b := readFile(t, f.Name()); strings.Contains(string(b), "reading Glue") || !strings.Contains(string(b), "Next steps:") {
		t.Errorf("file stderr:\n%s", b)
	}
}
