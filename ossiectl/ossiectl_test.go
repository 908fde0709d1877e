package ossiectl

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/engine/duckdb"
)

func run(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Do(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestValidateValidDocuments(t *testing.T) {
	code, out, errs := run(t, "", "validate", "testdata/shop.yaml", "testdata/small.json")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	if out != "2 documents valid (0.2.0.dev0: 1, 0.1.1: 1)\n" {
		t.Errorf("stdout %q", out)
	}
}

func TestValidateListsEveryProblem(t *testing.T) {
	code, out, _ := run(t, "", "validate", "testdata/broken.yaml", "testdata/shop.yaml")
	if code != ExitProblems {
		t.Fatalf("exit %d\n%s", code, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	summary := lines[len(lines)-1]
	if summary != "1 of 2 documents valid (0.2.0.dev0: 1); 1 invalid: 5 errors" {
		t.Errorf("summary %q", summary)
	}
	lineRe := regexp.MustCompile(`^testdata/broken\.yaml:\d+:\d+: semantic_model\[0\]\.\S+: error (OSS\d{4}): `)
	codes := map[string]bool{}
	for _, l := range lines[:len(lines)-1] {
		m := lineRe.FindStringSubmatch(l)
		if m == nil {
			t.Errorf("problem line %q", l)
			continue
		}
		codes[m[1]] = true
	}
	for _, c := range []string{compiler.CodeUnknownKey, compiler.CodeDuplicateName, compiler.CodeUnknownDataset, compiler.CodeExprSyntax, compiler.CodeExprNotAllowed} {
		if !codes[c] {
			t.Errorf("no %s problem in\n%s", c, out)
		}
	}
}

func TestValidateStdinAndJSON(t *testing.T) {
	broken := "version: \"1.0\"\nsemantic_model: []\n"
	code, out, _ := run(t, broken, "validate", "-")
	if code != 1 || !strings.HasPrefix(out, "<stdin>:1:") || !strings.Contains(out, compiler.CodeUnsupportedVersion) || !strings.Contains(out, "0.2.0.dev0") {
		t.Errorf("exit %d: %s", code, out)
	}

	code, out, _ = run(t, "", "validate", "--format", "json", "testdata/broken.yaml", "testdata/small.json")
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	var rep struct {
		Documents []docReport
		Summary   validateSummary
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(rep.Documents) != 2 || rep.Documents[0].Valid || !rep.Documents[1].Valid ||
		len(rep.Documents[0].Problems) != 5 || strings.Join(rep.Documents[1].Models, ",") != "small,other" ||
		rep.Summary.Valid != 1 || rep.Summary.Invalid != 1 || rep.Summary.Versions["0.1.1"] != 1 {
		t.Errorf("report %+v", rep)
	}
	if code, _, _ := run(t, "", "validate", "testdata/absent.yaml"); code != 1 {
		t.Errorf("missing file: exit %d", code)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"validate"},
		{"validate", "--nope", "x"},
		{"frobnicate"},
		{"validate", "--format", "xml", "testdata/shop.yaml"},
		{"compile"},
		{"compile", "a", "b"},
		{"sql", "testdata/shop.yaml"},
		{"sql", "testdata/small.json", "--metrics", "n"},
		{"sql", "testdata/shop.yaml", "--metrics", "revenue", "--query", "{}"},
		{"sql", "testdata/shop.yaml", "--metrics", "revenue", "--dialect", "oracle"},
		{"sql", "testdata/shop.yaml", "--metrics", "revenue", "--filter", "justtext"},
		{"query", "testdata/shop.yaml", "--metrics", "revenue", "--load", "nofile"},
		{"version", "extra"},
	} {
		code, _, errs := run(t, "", args...)
		if code != ExitUsage {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errs)
		}
		if !strings.Contains(errs, "ossiectl") {
			t.Errorf("%v: stderr %q", args, errs)
		}
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := run(t, "", "version")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 3 || !strings.HasPrefix(lines[0], "ossiectl ") {
		t.Fatalf("exit %d %q", code, out)
	}
	if lines[1] != "document versions: 0.1.1, 0.2.0.dev0" || lines[2] != "artifact format: "+compiler.ArtifactFormat {
		t.Errorf("%q", lines[1:])
	}
	if code, flag, _ := run(t, "", "--version"); code != 0 || flag != out {
		t.Errorf("--version: exit %d %q, want %q", code, flag, out)
	}
}

func TestCompile(t *testing.T) {
	code, out, errs := run(t, "", "compile", "--version-only", "testdata/shop.yaml")
	if code != 0 || !regexp.MustCompile(`^sha256:[0-9a-f]{64}\n$`).MatchString(out) {
		t.Fatalf("exit %d %q %s", code, out, errs)
	}
	version := strings.TrimSpace(out)

	code, out, _ = run(t, "", "compile", "testdata/shop.yaml")
	var art struct {
		Format, Version, Name string
		Metrics               []json.RawMessage
	}
	if err := json.Unmarshal([]byte(out), &art); code != 0 || err != nil {
		t.Fatalf("exit %d %v", code, err)
	}
	if art.Format != compiler.ArtifactFormat || art.Version != version || art.Name != "shop" || len(art.Metrics) != 3 {
		t.Errorf("artifact %s %s %s %d", art.Format, art.Version, art.Name, len(art.Metrics))
	}

	code, out, _ = run(t, "", "compile", "--version-only", "testdata/small.json")
	if code != 0 || !regexp.MustCompile(`^small sha256:[0-9a-f]{64}\nother sha256:[0-9a-f]{64}\n$`).MatchString(out) {
		t.Errorf("two models: exit %d %q", code, out)
	}
	code, out, _ = run(t, "", "compile", "--version-only", "--model", "other", "testdata/small.json")
	if code != 0 || strings.Count(out, "\n") != 1 || strings.Contains(out, "small") {
		t.Errorf("--model: exit %d %q", code, out)
	}

	code, out, errs = run(t, "", "compile", "testdata/broken.yaml")
	if code != 1 || out != "" || strings.Count(errs, "testdata/broken.yaml:") != 1 {
		t.Errorf("broken: exit %d out %q err %q", code, out, errs)
	}
}

func TestSQL(t *testing.T) {
	code, out, errs := run(t, "", "sql", "testdata/shop.yaml", "--metrics", "revenue,order_count",
		"--dimensions", "customers.state,orders.order_date:month", "--filter", "orders.status:in:placed,shipped",
		"--filter", "revenue>10", "--order-by", "revenue:desc", "--limit", "5")
	if code != 0 {
		t.Fatalf("exit %d %s", code, errs)
	}
	for _, want := range []string{"SELECT", `"customers"`, "'placed'", "'shipped'", "LIMIT 5", "date_trunc('month'"} {
		if !strings.Contains(out, want) {
			t.Errorf("SQL lacks %q:\n%s", want, out)
		}
	}

	// The same query from JSON plans to the same SQL.
	q := `{"metrics":["revenue","order_count"],"dimensions":["customers.state",{"field":"orders.order_date","grain":"month"}],
	  "filters":[{"field":"orders.status","op":"in","values":["placed","shipped"]},{"metric":"revenue","op":">","values":[10]}],
	  "order_by":[{"key":"revenue","dir":"desc"}],"limit":5}`
	code, out2, _ := run(t, q, "sql", "testdata/shop.yaml", "--query-file", "-")
	if code != 0 || out2 != out {
		t.Errorf("--query-file: exit %d\n%s\nvs\n%s", code, out2, out)
	}

	code, out, _ = run(t, "", "sql", "testdata/shop.yaml", "--metrics", "revenue", "--format", "json")
	var p plan.Plan
	if err := json.Unmarshal([]byte(out), &p); code != 0 || err != nil || p.SQL == "" || len(p.Columns) != 1 || p.ModelVersion == "" {
		t.Errorf("json: exit %d %v %s", code, err, out)
	}

	code, out, errs = run(t, "", "sql", "testdata/shop.yaml", "--metrics", "revenu", "--dimensions", "customers.stat")
	if code != 1 || out != "" || !strings.Contains(errs, compiler.CodeUnknownMetric) || !strings.Contains(errs, compiler.CodeUnknownMember) {
		t.Errorf("bad query: exit %d %q %q", code, out, errs)
	}
	code, _, errs = run(t, "", "sql", "testdata/small.json", "--metrics", "n", "--model", "nope")
	if code != 1 || !strings.Contains(errs, "small, other") {
		t.Errorf("unknown model: exit %d %q", code, errs)
	}
}

const tables = `
CREATE TABLE customers (customer_id INTEGER, state VARCHAR);
INSERT INTO customers VALUES (1, 'CA'), (2, 'NY'), (3, 'CA');
CREATE TABLE orders (order_id INTEGER, customer_id INTEGER, status VARCHAR, order_date DATE, amount DECIMAL(10,2));
INSERT INTO orders VALUES (10, 1, 'placed', '2024-01-05', 10.50), (11, 1, 'shipped', '2024-01-20', 20.25),
  (12, 2, 'shipped', '2024-02-01', 5.00), (13, 3, 'returned', '2024-02-11', 7.75);
`

// shopDB writes dir/shop.duckdb holding tables and returns its path.
func shopDB(t *testing.T, dir string) string {
	t.Helper()
	db := filepath.Join(dir, "shop.duckdb")
	eng, err := duckdb.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if err := eng.Exec(context.Background(), tables); err != nil {
		t.Fatal(err)
	}
	return db
}

func TestQuery(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "shop.duckdb")
	eng, err := duckdb.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := eng.Exec(ctx, tables); err != nil {
		t.Fatal(err)
	}
	pq := filepath.Join(dir, "orders.parquet")
	if err := eng.Exec(ctx, "COPY orders TO '"+pq+"' (FORMAT parquet)"); err != nil {
		t.Fatal(err)
	}
	eng.Close()

	args := []string{"query", "testdata/shop.yaml", "--duckdb", db, "--metrics", "revenue,order_count", "--dimensions", "customers.state", "--order-by", "customers.state"}
	code, out, errs := run(t, "", append(args, "--format", "csv")...)
	if code != 0 {
		t.Fatalf("exit %d %s", code, errs)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"customers.state", "revenue", "order_count"}, {"CA", "38.5", "3"}, {"NY", "5", "1"}}
	if got, _ := json.Marshal(recs); string(got) != mustJSON(want) {
		t.Errorf("csv %s, want %s", got, mustJSON(want))
	}

	code, out, _ = run(t, "", append(args, "--format", "json")...)
	var resp struct {
		Model     string
		Rows      [][]any
		RowCount  int `json:"row_count"`
		Truncated bool
	}
	if err := json.Unmarshal([]byte(out), &resp); code != 0 || err != nil || resp.Model != "shop" || resp.RowCount != 2 || resp.Truncated {
		t.Errorf("json: exit %d %v %s", code, err, out)
	}

	code, out, _ = run(t, "", args...)
	wantTable := "customers.state  revenue  order_count\n" +
		"---------------  -------  -----------\n" +
		"CA                  38.5            3\n" +
		"NY                     5            1\n" +
		"(2 rows)\n"
	if code != 0 || out != wantTable {
		t.Errorf("table: exit %d\n%s\nwant\n%s", code, out, wantTable)
	}

	code, out, _ = run(t, "", append(args, "--max-rows", "1")...)
	if code != 0 || !strings.Contains(out, "(1 row, truncated") {
		t.Errorf("max-rows: exit %d %s", code, out)
	}

	// In-memory database fed by --load from Parquet; a filter value with
	// quotes is data, never SQL.
	code, out, errs = run(t, "", "query", "testdata/shop.yaml", "--load", "orders="+pq,
		"--metrics", "order_count", "--filter", "orders.status=placed' OR '1'='1", "--format", "csv")
	if code != 0 || out != "order_count\n0\n" {
		t.Errorf("--load: exit %d %q %s", code, out, errs)
	}
	code, out, errs = run(t, "", "query", "testdata/shop.yaml", "--load", "orders="+pq,
		"--metrics", "order_count", "--filter", "orders.amount:gte:10", "--format", "csv")
	if code != 0 || out != "order_count\n2\n" {
		t.Errorf("gte: exit %d %q %s", code, out, errs)
	}

	code, _, errs = run(t, "", "query", "testdata/shop.yaml", "--duckdb", filepath.Join(dir, "typo.duckdb"), "--metrics", "revenue")
	if code != 1 || !strings.Contains(errs, "typo.duckdb") {
		t.Errorf("missing database file: exit %d %q", code, errs)
	}

	// A model whose tables are missing: engine error, exit 1, message names the table.
	code, _, errs = run(t, "", "query", "testdata/shop.yaml", "--metrics", "revenue")
	if code != 1 || !strings.Contains(errs, "OSS5001") || !strings.Contains(errs, "orders") {
		t.Errorf("missing tables: exit %d %q", code, errs)
	}
}

func TestParseFilter(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
	}{
		{"ds.f=CA", `{"field":"ds.f","op":"=","values":["CA"]}`},
		{"ds.f!=a=b", `{"field":"ds.f","op":"!=","values":["a=b"]}`},
		{"ds.zip=01234", `{"field":"ds.zip","op":"=","values":["01234"]}`},
		{"ds.n>=10", `{"field":"ds.n","op":">=","values":[10]}`},
		{"ds.n<2.5", `{"field":"ds.n","op":"<","values":[2.5]}`},
		{"flight_count>100", `{"metric":"flight_count","op":">","values":[100]}`},
		{"ds.f:in:CA,NY", `{"field":"ds.f","op":"in","values":["CA","NY"]}`},
		{"ds.f:is_null", `{"field":"ds.f","op":"is_null"}`},
		{"ds.t:in_date_range:2024-01-01 10:00,2024-02-01", `{"field":"ds.t","op":"in_date_range","values":["2024-01-01 10:00","2024-02-01"]}`},
		{"ds.n:between:1,20", `{"field":"ds.n","op":"between","values":[1,20]}`},
		{"ds.t=10:30", `{"field":"ds.t","op":"=","values":["10:30"]}`},
	} {
		f, err := parseFilter(tc.in)
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if got := mustJSON(f); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.in, got, tc.want)
		}
	}
	for _, bad := range []string{"", "nooperator", "=x", ":in:a"} {
		if _, err := parseFilter(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func mustJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSpace(b.String())
}
