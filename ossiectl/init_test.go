package ossiectl

import (
	"context"
	"database/sql"
	"encoding/json"
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

	"github.com/ossie-dev/ossie/test/pgtest"
	"github.com/ossie-dev/ossie/test/trinoserver"
)

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

	// The drafted metric total_orders_amount answers on the same database: its
	// sources, quoted expressions and relationships are real.
	code, out, errOut = run(t, "", "query", model, "--duckdb", file, "--metrics", "total_orders_amount",
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
	t.Logf("drafted model's total_orders_amount on DuckDB:\n%s", out)
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

// TestInitDraftsOnlyMetricsThatValidate drafts a DuckDB database whose
// numeric columns include coordinates, identifiers, codes and calendar
// parts: only the row count and the sums of real quantities are drafted,
// the draft validates, and each drafted metric answers on the database as
// hand-written SQL does. No COUNT(*) is proposed anywhere.
func TestInitDraftsOnlyMetricsThatValidate(t *testing.T) {
	file := filepath.Join(t.TempDir(), "transit.duckdb") // not geo: a catalog and a schema of one name are ambiguous
	db, err := sql.Open("duckdb", file)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		`CREATE SCHEMA geo`,
		`CREATE TABLE geo.stations (station_id INTEGER PRIMARY KEY, name VARCHAR, latitude DOUBLE, longitude DOUBLE, "customerId" INTEGER,
			zip INTEGER, "year" INTEGER, riders INTEGER, fare DECIMAL(8,2))`,
		`INSERT INTO geo.stations VALUES (1, 'a', 52.5, 13.4, 7, 10115, 2024, 100, 2.50), (2, 'b', 48.1, 11.6, 8, 80331, 2024, 40, 3.00), (3, 'c', 50.1, 8.7, 7, 60311, 2023, NULL, 1.25)`,
		`CREATE TABLE geo.pings (lat DOUBLE, lng DOUBLE, device_id BIGINT, "Sensor No" INTEGER)`,
		`INSERT INTO geo.pings VALUES (1.5, 2.5, 9, 1)`,
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	hand := map[string]string{}
	for name, q := range map[string]string{
		"stations_count": `SELECT COUNT(*) FROM geo.stations`,
		"total_riders":   `SELECT SUM(riders) FROM geo.stations`,
		"total_fare":     `SELECT SUM(fare) FROM geo.stations`,
	} {
		var v float64
		if err := db.QueryRow(q).Scan(&v); err != nil {
			t.Fatal(err)
		}
		hand[name] = fmt.Sprintf("%.2f", v)
	}
	db.Close()

	model := filepath.Join(t.TempDir(), "geo.yaml")
	code, _, errOut := run(t, "", "init", "--from", "engine", "--engine", "duckdb", "--duckdb", file, "-o", model)
	if code != ExitOK {
		t.Fatalf("init exit %d: %s", code, errOut)
	}
	if strings.Contains(errOut, "COUNT(*)") || strings.Contains(string(readFile(t, model)), "COUNT(*)") || !strings.Contains(errOut, "3 metric(s) were drafted") {
		t.Errorf("report:\n%s", errOut)
	}
	if code, out, errOut := run(t, "", "validate", model); code != ExitOK {
		t.Fatalf("the draft does not validate: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := run(t, "", "list", "metrics", model, "--format", "json")
	if code != ExitOK {
		t.Fatalf("list exit %d: %s", code, errOut)
	}
	var metrics []struct{ Name string }
	if err := json.Unmarshal([]byte(out), &metrics); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range metrics {
		names = append(names, m.Name)
	}
	if !slices.Equal(names, []string{"stations_count", "total_riders", "total_fare"}) {
		t.Fatalf("drafted metrics %v", names)
	}
	for _, name := range names {
		code, out, errOut := run(t, "", "query", model, "--duckdb", file, "--metrics", name, "--format", "csv")
		if code != ExitOK {
			t.Fatalf("query %s: exit %d: %s", name, code, errOut)
		}
		var v float64
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if _, err := fmt.Sscan(lines[len(lines)-1], &v); err != nil || fmt.Sprintf("%.2f", v) != hand[name] {
			t.Errorf("%s answers %q, hand-written SQL %s", name, out, hand[name])
		}
	}
}
