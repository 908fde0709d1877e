package ossiectl

import (
	"context"
	"database/sql"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/engine/duckdb"
)

// TestImportDbtAnswers imports the corner_store dbt project, validates
// the document with `ossiectl validate` and compares, on DuckDB, what
// `ossiectl query` answers for each kind of dbt metric with a
// hand-written SQL statement of dbt's meaning on the same tables
// (testdata/dbt/corner_store.sql).
func TestImportDbtAnswers(t *testing.T) {
	dir := t.TempDir()
	model := importDbt(t, "testdata/dbt/corner_store", dir)
	db := loadStore(t, dir, "")
	checkDbtAnswers(t, model, db, dbtCases)
}

// The same project compiled into a semantic_manifest.json: tables come
// from node_relation (store.analytics.*, a schema of the DuckDB file
// store.duckdb).
func TestImportDbtManifestAnswers(t *testing.T) {
	dir := t.TempDir()
	model := importDbt(t, "testdata/dbt/corner_store_manifest.json", dir)
	db := loadStore(t, dir, "analytics")
	var cases []dbtCase
	for _, c := range dbtCases {
		if strings.HasPrefix(c.name, "simple") || strings.HasPrefix(c.name, "filtered by") || strings.HasPrefix(c.name, "conversion") {
			cases = append(cases, c)
		}
	}
	cases = append(cases, dbtCase{"ratio, derived and a 7-day window from the manifest", "gift_share,average_order_value,orders_7d", "orders.ordered_at:month",
		`SELECT m, (SELECT SUM(1) FILTER (WHERE is_gift) / COUNT(*) FROM fct_orders WHERE date_trunc('month', ordered_at) = m),
		   (SELECT SUM(amount) / COUNT(*) FROM fct_orders WHERE date_trunc('month', ordered_at) = m),
		   (SELECT SUM(1) FROM fct_orders WHERE CAST(ordered_at AS DATE) > m + INTERVAL 1 MONTH - INTERVAL 8 DAY AND CAST(ordered_at AS DATE) < m + INTERVAL 1 MONTH)
		 FROM (SELECT DISTINCT CAST(date_trunc('month', ordered_at) AS DATE) AS m FROM fct_orders)`})
	checkDbtAnswers(t, model, db, cases)
}

type dbtCase struct{ name, metrics, dims, want string }

// importDbt runs `ossiectl import dbt src -o dir/model.yaml` and
// `ossiectl validate` on the result.
func importDbt(t *testing.T, src, dir string) string {
	t.Helper()
	model := filepath.Join(dir, "model.yaml")
	if code, _, errs := run(t, "", "import", "dbt", src, "-o", model); code != 0 {
		t.Fatalf("import: exit %d\n%s", code, errs)
	}
	if code, out, errs := run(t, "", "validate", model); code != 0 {
		t.Fatalf("validate: exit %d\n%s%s", code, out, errs)
	}
	return model
}

// loadStore writes dir/store.duckdb with the corner_store tables, in
// schema (created) or in main.
func loadStore(t *testing.T, dir, schema string) string {
	t.Helper()
	db := filepath.Join(dir, "store.duckdb")
	eng, err := duckdb.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	data, err := os.ReadFile("testdata/dbt/corner_store.sql")
	if err != nil {
		t.Fatal(err)
	}
	stmts := string(data)
	if schema != "" {
		stmts = "CREATE SCHEMA " + schema + "; USE store." + schema + ";\n" + stmts
	}
	if err := eng.Exec(context.Background(), stmts); err != nil {
		t.Fatal(err)
	}
	return db
}

// checkDbtAnswers runs each case through `ossiectl query` on db and
// compares the rows with the case's SQL run on the same file (in the
// schema the tables are in).
func checkDbtAnswers(t *testing.T, model, db string, cases []dbtCase) {
	t.Helper()
	for _, tc := range cases {
		eng, err := duckdb.Open(db)
		if err != nil {
			t.Fatal(err)
		}
		var recs [][]string
		conn := eng.DB()
		conn.SetMaxOpenConns(1)
		if _, err := conn.Exec("USE store." + storeSchema(t, conn)); err != nil {
			t.Fatal(err)
		}
		for _, line := range queryRows(t, conn, tc.want) {
			recs = append(recs, strings.Split(line, "|"))
		}
		want := normRows(recs)
		eng.Close()
		args := []string{"query", model, "--duckdb", db, "--metrics", tc.metrics, "--format", "csv"}
		if tc.dims != "" {
			args = append(args, "--dimensions", tc.dims)
		}
		code, out, errs := run(t, "", args...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", tc.name, code, errs)
		}
		got, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil || len(got) == 0 {
			t.Fatalf("%s: %v %q", tc.name, err, out)
		}
		if g := normRows(got[1:]); g != want {
			t.Errorf("%s:\n ossie: %s\n sql:   %s", tc.name, g, want)
		}
	}
}

// storeSchema is the schema holding fct_orders.
func storeSchema(t *testing.T, db *sql.DB) string {
	t.Helper()
	var schema string
	if err := db.QueryRow("SELECT schema_name FROM duckdb_tables() WHERE table_name = 'fct_orders'").Scan(&schema); err != nil {
		t.Fatal(err)
	}
	return schema
}

// dbtCases are queries of the corner_store metrics, each with the
// hand-written SQL of dbt's meaning on testdata/dbt/corner_store.sql.
var dbtCases = []dbtCase{
	{"simple by month", "revenue,orders_placed", "orders.ordered_at:month",
		`SELECT CAST(date_trunc('month', ordered_at) AS DATE), SUM(amount), COUNT(*) FROM fct_orders GROUP BY 1 ORDER BY 1`},
	{"filtered: same model, across a relationship, time at a coarser grain", "online_revenue,west_revenue,revenue_from_march", "",
		`SELECT SUM(amount) FILTER (WHERE channel = 'online'),
		        SUM(amount) FILTER (WHERE customer_id IN (SELECT customer_id FROM dim_customers WHERE region = 'west')),
		        SUM(amount) FILTER (WHERE date_trunc('month', ordered_at) >= DATE '2024-03-01') FROM fct_orders`},
	{"filtered by a dimension of another dataset", "west_revenue", "customers.region",
		`SELECT c.region, SUM(o.amount) FILTER (WHERE c.region = 'west') FROM fct_orders o LEFT JOIN dim_customers c USING (customer_id) GROUP BY 1 ORDER BY 1 NULLS LAST`},
	{"ratio with a filtered numerator", "gift_share,revenue_per_buyer", "orders.channel",
		`SELECT channel, SUM(CASE WHEN is_gift THEN 1 ELSE 0 END) / COUNT(*), SUM(amount) / COUNT(DISTINCT customer_id) FROM fct_orders GROUP BY 1 ORDER BY 1`},
	{"derived with an alias and a filtered input", "average_order_value,shop_minus_online", "orders.ordered_at:month",
		`SELECT CAST(date_trunc('month', ordered_at) AS DATE), SUM(amount) / COUNT(*), SUM(amount) - SUM(amount) FILTER (WHERE channel = 'online') FROM fct_orders GROUP BY 1 ORDER BY 1`},
	{"cumulative: running, month-to-date, 7 days, at day grain over the time spine", "revenue_running,revenue_mtd,orders_7d", "orders.ordered_at:day",
		`WITH d AS (SELECT CAST(ordered_at AS DATE) AS day, amount FROM fct_orders),
		 spine AS (SELECT CAST(s AS DATE) AS day FROM generate_series((SELECT MIN(day) FROM d), (SELECT MAX(day) FROM d), INTERVAL 1 DAY) g(s))
		 SELECT spine.day,
		   (SELECT SUM(amount) FROM d WHERE d.day <= spine.day),
		   (SELECT SUM(amount) FROM d WHERE d.day <= spine.day AND date_trunc('month', d.day) = date_trunc('month', spine.day)),
		   (SELECT SUM(1) FROM d WHERE d.day > spine.day - 7 AND d.day <= spine.day)
		 FROM spine ORDER BY 1`},
	{"cumulative at month grain is the window at each month's end (period_agg: last)", "revenue_running", "orders.ordered_at:month",
		`SELECT m, (SELECT SUM(amount) FROM fct_orders WHERE date_trunc('month', ordered_at) <= m) FROM (SELECT DISTINCT CAST(date_trunc('month', ordered_at) AS DATE) AS m FROM fct_orders) ORDER BY 1`},
	{"conversion within 7 days by referrer", "visit_to_order_7d", "visits.referrer",
		`SELECT referrer, COUNT(DISTINCT customer_id) FILTER (WHERE EXISTS (SELECT 1 FROM fct_orders o WHERE o.customer_id = v.customer_id
		   AND CAST(o.ordered_at AS DATE) >= CAST(v.visited_at AS DATE) AND CAST(o.ordered_at AS DATE) <= CAST(v.visited_at AS DATE) + 7)) / COUNT(DISTINCT customer_id)
		 FROM fct_visits v GROUP BY 1 ORDER BY 1`},
	{"conversions counted, online orders only (the conversion measure's filter), any time after", "orders_converted", "visits.referrer",
		`SELECT referrer, COUNT(DISTINCT customer_id) FILTER (WHERE EXISTS (SELECT 1 FROM fct_orders o WHERE o.customer_id = v.customer_id
		   AND o.channel = 'online' AND CAST(o.ordered_at AS DATE) >= CAST(v.visited_at AS DATE)))
		 FROM fct_visits v GROUP BY 1 ORDER BY 1`},
	{"conversion in total", "visit_to_order_7d", "",
		`SELECT COUNT(DISTINCT customer_id) FILTER (WHERE EXISTS (SELECT 1 FROM fct_orders o WHERE o.customer_id = v.customer_id
		   AND CAST(o.ordered_at AS DATE) >= CAST(v.visited_at AS DATE) AND CAST(o.ordered_at AS DATE) <= CAST(v.visited_at AS DATE) + 7)) / COUNT(DISTINCT customer_id)
		 FROM fct_visits v`},
}

// queryRows runs a hand-written statement and returns its rows as
// "a|b|c" lines: dates as YYYY-MM-DD, NULL as "", everything else as
// fmt prints it.
func queryRows(t *testing.T, db *sql.DB, query string) []string {
	t.Helper()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatalf("%v\n%s", err, query)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		rec := make([]string, len(cols))
		for i, v := range vals {
			switch x := v.(type) {
			case nil:
			case interface{ Format(string) string }:
				rec[i] = x.Format("2006-01-02")
			default:
				rec[i] = fmt.Sprint(x)
			}
		}
		out = append(out, strings.Join(rec, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// normRows renders rows in one sorted order, numbers rounded to 9
// digits, so an answer of ossiectl query and one of queryRows compare
// whatever order_by each had.
func normRows(recs [][]string) string {
	var lines []string
	for _, r := range recs {
		cells := make([]string, len(r))
		for i, c := range r {
			if f, err := strconv.ParseFloat(c, 64); err == nil {
				c = strconv.FormatFloat(math.Round(f*1e9)/1e9, 'f', -1, 64)
			}
			cells[i] = strings.TrimSuffix(c, "T00:00:00Z")
		}
		lines = append(lines, strings.Join(cells, "|"))
	}
	slices.Sort(lines)
	return strings.Join(lines, "; ")
}

func TestImportDbtCLI(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "model.yaml")
	code, _, errs := run(t, "", "import", "dbt", "testdata/dbt/corner_store", "--strict", "-o", out)
	if code != ExitProblems || !strings.Contains(errs, "2 dbt item(s) not mapped") || !strings.Contains(errs, "not mapped: models/marts/metrics.yml: metrics[15] (weekly_buyers)") {
		t.Errorf("--strict: exit %d\n%s", code, errs)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("--strict wrote %s", out)
	}
	code, stdout, errs := run(t, "", "import", "dbt", "testdata/dbt/corner_store", "--name", "shop")
	if code != 0 || !strings.Contains(stdout, "  - name: shop\n") || !strings.Contains(errs, "2 item(s) not mapped, written to standard output") {
		t.Errorf("to stdout: exit %d\n%s", code, errs)
	}
	if code, _, errs := run(t, "", "import", "dbt", "testdata/dbt/corner_store", "-o", out); code != 0 {
		t.Fatalf("exit %d %s", code, errs)
	}
	if code, _, errs := run(t, "", "import", "dbt", "testdata/dbt/corner_store", "-o", out); code != ExitUsage || !strings.Contains(errs, "--force") {
		t.Errorf("existing output: exit %d %s", code, errs)
	}
	if code, _, errs := run(t, "", "import", "dbt", "testdata/dbt/corner_store_manifest.json", "-o", out, "--force", "--strict"); code != ExitProblems || !strings.Contains(errs, "saved_queries[0]") {
		t.Errorf("manifest --strict: exit %d %s", code, errs)
	}
	if code, _, errs := run(t, "", "import"); code != ExitUsage || !strings.Contains(errs, "import dbt PATH") {
		t.Errorf("import alone: exit %d %s", code, errs)
	}
	if code, _, errs := run(t, "", "import", "dbt", filepath.Join(dir, "nothing")); code != ExitProblems || !strings.Contains(errs, "nothing") {
		t.Errorf("missing path: exit %d %s", code, errs)
	}
}
