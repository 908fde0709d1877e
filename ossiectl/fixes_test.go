package ossiectl

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/engine/duckdb"
)

// --load never replaces a table or view of a --duckdb file; a new table
// is added. The user's table keeps its rows.
func TestLoadRefusesToReplace(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "shop.duckdb")
	eng, err := duckdb.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := eng.Exec(ctx, tables+"CREATE VIEW shipped AS SELECT * FROM orders WHERE status = 'shipped';"); err != nil {
		t.Fatal(err)
	}
	csv := filepath.Join(dir, "one.csv")
	if err := eng.Exec(ctx, "COPY (SELECT 1 AS customer_id, 'TX' AS state) TO '"+csv+"' (HEADER)"); err != nil {
		t.Fatal(err)
	}
	eng.Close()
	for _, tc := range []struct{ table, want string }{
		{"customers", `already has a table "customers" and --load never replaces it`},
		{"shipped", `already has a view "shipped"`},
	} {
		code, _, errs := run(t, "", "query", "testdata/shop.yaml", "--duckdb", db, "--load", tc.table+"="+csv, "--metrics", "order_count")
		if code != ExitProblems || !strings.Contains(errs, tc.want) || !strings.Contains(errs, "omit --duckdb") {
			t.Errorf("%s: exit %d %s", tc.table, code, errs)
		}
	}
	code, out, errs := run(t, "", "query", "testdata/shop.yaml", "--duckdb", db, "--metrics", "order_count", "--dimensions", "customers.state", "--format", "csv", "--order-by", "customers.state")
	if code != ExitOK || out != "customers.state,order_count\nCA,3\nNY,1\n" {
		t.Errorf("the file's tables changed: exit %d %q %s", code, out, errs)
	}
	// A table the file does not have is added.
	code, _, errs = run(t, "", "query", "testdata/shop.yaml", "--duckdb", db, "--load", "extra="+csv, "--metrics", "order_count")
	if code != ExitOK {
		t.Errorf("new table: exit %d %s", code, errs)
	}
	// An empty in-memory database: the next step names --load and --duckdb.
	code, _, errs = run(t, "", "query", "testdata/shop.yaml", "--metrics", "revenue")
	if code != ExitProblems || !strings.Contains(errs, "--load TABLE=FILE") || !strings.Contains(errs, "--duckdb FILE") {
		t.Errorf("empty in-memory: exit %d %s", code, errs)
	}
}

// An unset --dsn-env is a usage error; an engine that refuses the
// connection is unreachable (exit 3) at once, with a next step.
func TestEngineExitCodes(t *testing.T) {
	t.Setenv("OSSIE_TEST_DSN_REFUSED", "postgres://u@127.0.0.1:1/db?sslmode=disable")
	t.Setenv("OSSIE_TEST_TRINO_REFUSED", "http://u@127.0.0.1:1?catalog=memory")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"query", "testdata/shop.yaml", "--metrics", "revenue", "--engine", "postgres", "--dsn-env", "OSSIE_TEST_NOPE"}, ExitUsage, "the environment variable OSSIE_TEST_NOPE is not set"},
		{[]string{"init", "--from", "engine", "--engine", "postgres", "--dsn-env", "OSSIE_TEST_NOPE"}, ExitUsage, "export OSSIE_TEST_NOPE="},
		{[]string{"query", "testdata/shop.yaml", "--metrics", "revenue", "--engine", "postgres", "--dsn-env", "OSSIE_TEST_DSN_REFUSED"}, ExitUnreachable, "cannot reach the postgres engine at 127.0.0.1:1"},
		{[]string{"init", "--from", "engine", "--engine", "trino", "--dsn-env", "OSSIE_TEST_TRINO_REFUSED"}, ExitUnreachable, "cannot reach the trino engine at 127.0.0.1:1"},
	} {
		start := time.Now()
		code, _, errs := run(t, "", tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, want %d with %q\n%s", tc.args, code, tc.code, tc.want, errs)
		}
		if tc.code == ExitUnreachable && !strings.Contains(errs, "then retry") {
			t.Errorf("%v: no next step: %s", tc.args, errs)
		}
		if d := time.Since(start); d > dialTimeout {
			t.Errorf("%v took %v: not failing fast", tc.args, d)
		}
	}
	if code, _, errs := run(t, "", "query", "--engine", "postgres"); code != ExitUsage || !strings.Contains(errs, "Run 'ossiectl query --help'") {
		t.Errorf("usage errors point at the command's help: exit %d %s", code, errs)
	}
}

// sql plans for every dialect the README advertises.
func TestSQLDialects(t *testing.T) {
	for _, d := range []string{"duckdb", "postgres", "trino"} {
		code, out, errs := run(t, "", "sql", "testdata/shop.yaml", "--dialect", d, "--metrics", "avg_amount", "--dimensions", "orders.order_date:week")
		if code != ExitOK || !strings.Contains(out, "SELECT") {
			t.Errorf("%s: exit %d %s", d, code, errs)
		}
	}
	if code, _, errs := run(t, "", "sql", "testdata/shop.yaml", "--dialect", "oracle", "--metrics", "revenue"); code != ExitUsage || !strings.Contains(errs, "duckdb, postgres, postgresql, trino") {
		t.Errorf("oracle: exit %d %s", code, errs)
	}
}

// Every command has an example; the root help lists the exit codes.
func TestHelpExamples(t *testing.T) {
	root := (&env{}).rootCmd()
	for _, c := range root.Commands() {
		if c.Name() == "help" {
			continue
		}
		if strings.TrimSpace(c.Example) == "" {
			t.Errorf("%s has no Example", c.Name())
		}
	}
	_, out, _ := run(t, "", "--help")
	for _, want := range []string{"Exit status", "2  usage", "3  a service could not be reached"} {
		if !strings.Contains(out, want) {
			t.Errorf("root help lacks %q", want)
		}
	}
}

// A derived metric changes with the metric it is computed from, and so
// does one derived from it: both are breaking, named through the change.
func TestDiffFlagsDependents(t *testing.T) {
	derived := "    metrics:\n" +
		"      - name: aov\n        expression: {dialects: [{dialect: ANSI_SQL, expression: revenue / order_count}]}\n" +
		"      - name: aov_pct\n        expression: {dialects: [{dialect: ANSI_SQL, expression: aov * 100}]}\n" +
		"      - name: count_x2\n        expression: {dialects: [{dialect: ANSI_SQL, expression: order_count * 2}]}\n"
	oldF := writeTemp(t, "old.yaml", edit(t, "    metrics:\n", derived))
	newF := writeTemp(t, "new.yaml", edit(t, "    metrics:\n", derived, "expression: SUM(orders.amount)}", "expression: SUM(orders.amount) - 1}"))
	if code, out, errs := run(t, "", "validate", oldF, newF); code != ExitOK {
		t.Fatalf("fixture: %s%s", out, errs)
	}
	code, out, errs := run(t, "", "diff", oldF, newF, "-f", "json", "--fail-on", "breaking")
	var got diffJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != ExitProblems {
		t.Fatalf("exit %d %v\n%s%s", code, err, out, errs)
	}
	byName := map[string]change{}
	for _, c := range got.Changes {
		byName[c.Name] = c
	}
	for _, name := range []string{"revenue", "aov", "aov_pct"} {
		if c, ok := byName[name]; !ok || !c.Breaking || c.Kind != "changed" {
			t.Errorf("%s: %+v", name, c)
		}
	}
	if c := byName["aov_pct"]; !strings.Contains(c.Reason, "changed through dependency revenue") {
		t.Errorf("aov_pct reason %q", c.Reason)
	}
	if _, ok := byName["count_x2"]; ok || got.Summary.Breaking != 3 {
		t.Errorf("count_x2 does not depend on revenue: %+v", got)
	}
}

// An old document is compared as migrated in memory, and says so; -o is
// the output file, -f the format; --fail-on any gives a next step.
func TestDiffOldVersionAndFlags(t *testing.T) {
	legacy := writeTemp(t, "legacy.yaml", strings.Replace(string(readFile(t, "testdata/shop.yaml")), `version: "0.2.0.dev0"`, `version: "1.0"`, 1))
	code, out, errs := run(t, "", "diff", legacy, "testdata/shop.yaml")
	if code != ExitOK || out != "no changes\n" || !strings.Contains(errs, "is at 1.0; compared as migrated to 0.2.0.dev0 in memory") {
		t.Errorf("legacy: exit %d %q %s", code, out, errs)
	}
	if string(readFile(t, legacy)) == string(readFile(t, "testdata/shop.yaml")) {
		t.Error("the legacy file was rewritten")
	}
	report := filepath.Join(t.TempDir(), "changes.json")
	newF := writeTemp(t, "new.yaml", edit(t, "- name: avg_amount", "- name: mean_amount"))
	code, out, errs = run(t, "", "diff", "testdata/shop.yaml", newF, "-f", "json", "-o", report)
	var got diffJSON
	if code != ExitOK || out != "" || json.Unmarshal(readFile(t, report), &got) != nil || len(got.Changes) != 1 {
		t.Errorf("-o: exit %d %q %s %s", code, out, errs, readFile(t, report))
	}
	if code, _, errs := run(t, "", "diff", "testdata/shop.yaml", newF, "-o", "json"); code != ExitUsage || !strings.Contains(errs, "write -f json") {
		t.Errorf("-o json: exit %d %s", code, errs)
	}
	if code, _, errs := run(t, "", "diff", "testdata/shop.yaml", newF, "--fail-on", "any"); code != ExitProblems || !strings.Contains(errs, "Next:") {
		t.Errorf("--fail-on any: exit %d %s", code, errs)
	}
}

// migrate names a missing --to and a missing file with the next step.
func TestMigrateErrors(t *testing.T) {
	if code, _, errs := run(t, "", "migrate", "x.yaml"); code != ExitUsage || !strings.Contains(errs, "migrate needs --to VERSION") || strings.Contains(errs, `not ""`) {
		t.Errorf("no --to: exit %d %s", code, errs)
	}
	missing := filepath.Join(t.TempDir(), "nofile.yaml")
	if code, _, errs := run(t, "", "migrate", "--to", "0.2.0.dev0", missing); code != ExitProblems || !strings.Contains(errs, missing+": cannot read the file") || !strings.Contains(errs, "check the path") {
		t.Errorf("missing file: exit %d %s", code, errs)
	}
}

// Without AWS credentials, init --from glue exits 1 with the next step,
// and the AWS SDK writes nothing of its own to the process's stderr
// (it used to print an IMDSv1 fallback WARN line).
func TestInitGlueNoCredentialsQuiet(t *testing.T) {
	dir := t.TempDir()
	// An instance metadata endpoint without IMDSv2 tokens (404): the SDK
	// falls back to IMDSv1 and logs a warning about it.
	imds := httptest.NewServer(http.NotFoundHandler())
	defer imds.Close()
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_SESSION_TOKEN": "", "AWS_PROFILE": "",
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "none"), "AWS_CONFIG_FILE": filepath.Join(dir, "none"),
		"AWS_REGION": "eu-west-1", "AWS_EC2_METADATA_SERVICE_ENDPOINT": imds.URL,
		"AWS_CONTAINER_CREDENTIALS_FULL_URI": "", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "", "AWS_WEB_IDENTITY_TOKEN_FILE": "",
	} {
		t.Setenv(k, v)
	}
	procErr, err := os.CreateTemp(dir, "stderr")
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = procErr
	code, _, errs := run(t, "", "init", "--from", "glue", "--endpoint", "http://127.0.0.1:1")
	os.Stderr = saved
	procErr.Close()
	if code != ExitProblems || !strings.Contains(errs, "no AWS credentials found") || !strings.Contains(errs, "AWS_ACCESS_KEY_ID") {
		t.Errorf("exit %d %s", code, errs)
	}
	if leaked := readFile(t, procErr.Name()); len(leaked) > 0 {
		t.Errorf("the AWS SDK wrote to stderr: %s", leaked)
	}
	// -v shows the SDK's own log lines on ossiectl's stderr.
	code, _, errs = run(t, "", "init", "--from", "glue", "--endpoint", "http://127.0.0.1:1", "-v")
	if code != ExitProblems || !strings.Contains(errs, "IMDS") {
		t.Errorf("-v: exit %d %s", code, errs)
	}
}

// A field drafted from a column that is not an identifier (expression
// "Order Date") matches DataHub's `Order Date`; --platform is required;
// a missing token is said, and a DataHub that wants one says so too.
func TestEnrichQuotedColumnsPlatformToken(t *testing.T) {
	srv, _ := startDataHub(t, "s3cret")
	t.Setenv("DATAHUB_TOKEN", "s3cret")
	model := writeTemp(t, "m.yaml", `version: "0.2.0.dev0"
semantic_model:
  - name: shop
    datasets:
      - name: orders
        source: shop.public.orders
        fields:
          - name: order_date
            expression: {dialects: [{dialect: ANSI_SQL, expression: '"Order Date"'}]}
`)
	code, out, errs := run(t, "", "enrich", "--datahub", srv.URL, "--platform", "trino", model, "-o", "-")
	if code != ExitOK || !strings.Contains(out, "orders.order_date: description added") || !strings.Contains(out, `description: "Day the order was placed."`) {
		t.Errorf("quoted column: exit %d\n%s%s", code, out, errs)
	}
	if !strings.Contains(out, "1 dataset: 1 looked up in DataHub, 1 found, 0 skipped") {
		t.Errorf("summary: %s", out)
	}
	if code, _, errs := run(t, "", "enrich", "--datahub", srv.URL, model); code != ExitUsage || !strings.Contains(errs, "--platform is required") {
		t.Errorf("no --platform: exit %d %s", code, errs)
	}
	t.Setenv("DATAHUB_TOKEN", "")
	code, _, errs = run(t, "", "enrich", "--datahub", srv.URL, "--platform", "trino", "--dry-run", model)
	if code != ExitProblems || !strings.Contains(errs, "warning: no DataHub token ($DATAHUB_TOKEN is not set") || !strings.Contains(errs, "DataHub requires a token and none was given") {
		t.Errorf("no token: exit %d %s", code, errs)
	}
	if code, _, errs := run(t, "", "enrich", "--datahub", srv.URL, "--platform", "trino", filepath.Join(t.TempDir(), "nope.yaml")); code != ExitProblems || !strings.Contains(errs, "nope.yaml") || !strings.Contains(errs, "Next:") {
		t.Errorf("missing file: exit %d %s", code, errs)
	}
}

// Small wording fixes: the metrics rule is the planner's, manifest names
// a missing document, git errors end with one period.
func TestErrorWording(t *testing.T) {
	if code, _, errs := run(t, "", "sql", "testdata/shop.yaml", "--limit", "3"); code != ExitUsage || !strings.Contains(errs, "a query needs at least one metric or dimension") {
		t.Errorf("neither metrics nor dimensions: exit %d %s", code, errs)
	}
	// Dimensions alone list the distinct members (issue 12 item 7).
	if code, out, errs := run(t, "", "sql", "testdata/shop.yaml", "--dimensions", "customers.state", "--explain"); code != 0 || !strings.Contains(out, "distinct members") {
		t.Errorf("dimensions only: exit %d %s %s", code, out, errs)
	}
	missing := filepath.Join(t.TempDir(), "model.yaml")
	if code, _, errs := run(t, "", "manifest", missing, "--name", "x"); code != ExitProblems || !strings.Contains(errs, "cannot read the document "+missing) || !strings.Contains(errs, "Next:") {
		t.Errorf("manifest missing file: exit %d %s", code, errs)
	}
	if code, _, errs := run(t, "", "diff", "nosuchrev:shop.yaml", "testdata/shop.yaml"); code != ExitProblems || strings.Contains(errs, "..") || !strings.Contains(errs, "Next:") {
		t.Errorf("git show: exit %d %s", code, errs)
	}
}

// sql --explain prints the logical plan instead of the SQL, each node with
// the rewrite that made it; --format json carries both.
func TestSQLExplain(t *testing.T) {
	code, out, errs := run(t, "", "sql", "testdata/shop.yaml", "--metrics", "revenue", "--dimensions", "customers.state", "--explain")
	if code != ExitOK || strings.Contains(out, "SELECT") || !strings.Contains(out, "aggregate g0 at orders by customers.state  [per-home aggregation:") ||
		!strings.Contains(out, "left join customers along") {
		t.Fatalf("exit %d %s\n%s", code, errs, out)
	}
	code, out, errs = run(t, "", "sql", "testdata/shop.yaml", "--metrics", "revenue", "--explain", "--format", "json")
	var doc struct {
		SQL     string `json:"sql"`
		Explain string `json:"explain"`
	}
	if code != ExitOK || json.Unmarshal([]byte(out), &doc) != nil || !strings.Contains(doc.SQL, "SELECT") || !strings.Contains(doc.Explain, "scan orders") {
		t.Fatalf("exit %d %s\n%s", code, errs, out)
	}
}

// --dimensions field@relationship and --filter field@relationship=... choose
// the join path where the model has several (issue 12 item 3).
func TestSQLVia(t *testing.T) {
	model := filepath.Join("..", "test", "cases", "RW-03", "model.yaml")
	code, out, errs := run(t, "", "sql", model, "--metrics", "revenue", "--dimensions", "calendar.month@orders_ship_date", "--explain")
	if code != 0 || !strings.Contains(out, "left join calendar along orders_ship_date") || !strings.Contains(out, "chosen of several paths by the query's via orders_ship_date") {
		t.Fatalf("dimension via: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = run(t, "", "sql", model, "--metrics", "revenue", "--dimensions", "orders.channel", "--filter", "calendar.month@orders_order_date=2024-02")
	if code != 0 || !strings.Contains(out, `"calendar"."day" = "orders"."order_day"`) && !strings.Contains(out, `"orders"."order_day" = "calendar"."day"`) {
		t.Fatalf("filter via: exit %d\n%s\n%s", code, out, errs)
	}
	if code, _, errs := run(t, "", "sql", model, "--metrics", "revenue", "--dimensions", "calendar.month"); code == 0 || !strings.Contains(errs, "OSS4011") {
		t.Fatalf("no via: exit %d %s", code, errs)
	}
}

// Naive DateTime values are instants in the stored zone: UTC unless
// --stored-timezone says otherwise; the JSON plan states both zones.
func TestStoredTimezoneFlag(t *testing.T) {
	model := filepath.Join("..", "test", "cases", "RW-04", "model.yaml")
	args := []string{"sql", model, "--metrics", "event_count", "--dimensions", "events.at:hour", "--timezone", "Europe/Amsterdam"}
	code, out, errs := run(t, "", append(args, "--format", "json")...)
	if code != 0 || !strings.Contains(out, `timezone('UTC', CAST(`) || !strings.Contains(out, `"timezone": "Europe/Amsterdam"`) || !strings.Contains(out, `"stored_timezone": "UTC"`) {
		t.Fatalf("default UTC: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = run(t, "", append(args, "--stored-timezone", "Europe/Amsterdam")...)
	if code != 0 || strings.Contains(out, "timezone(") {
		t.Fatalf("stored in the query zone: no conversion: exit %d\n%s\n%s", code, out, errs)
	}
	if code, _, errs := run(t, "", append(args, "--stored-timezone", "Mars/Olympus")...); code != ExitUsage || !strings.Contains(errs, "not an IANA time zone") {
		t.Fatalf("bad zone: exit %d %s", code, errs)
	}
}
