package ossiectl

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/server/servertest"
)

// hostFiles is a directory with data (data/na.csv, data/eu.csv), a tokens
// file beside them (data/tokens.yaml) and a model whose sales dataset
// reads the data glob, whose leak dataset read_text()s the tokens file
// and whose root dataset is a `/*.csv` glob source (issue 25 items 2, 3:
// `ossiectl query` used to run without a sandbox, and a glob source
// allowed the directory before its first wildcard).
type hostFiles struct {
	dir, model, dataGlob, tokens, secret string
}

func newHostFiles(t *testing.T) hostFiles {
	t.Helper()
	dir := t.TempDir()
	h := hostFiles{dir: dir, secret: "ossiectl-host-secret-0123456789",
		dataGlob: filepath.Join(dir, "data", "*.csv"), tokens: filepath.Join(dir, "data", "tokens.yaml"),
		model: filepath.Join(dir, "model.yaml")}
	if err := os.Mkdir(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		h.tokens:                             "tokens:\n  - {name: admin, token: " + h.secret + "}\n",
		filepath.Join(dir, "data", "na.csv"): "region,amount\nNA,10\nNA,2\n",
		filepath.Join(dir, "data", "eu.csv"): "region,amount\nEU,5\n",
		filepath.Join(dir, "orders.csv"):     "id,amount\n1,7\n2,8\n",
		h.model: `version: "0.2.0.dev0"
semantic_model:
  - name: m
    datasets:
      - name: sales
        source: ` + h.dataGlob + `
        fields:
          - {name: region, expression: {dialects: [{dialect: ANSI_SQL, expression: region}]}, datatype: String}
          - {name: amount, expression: {dialects: [{dialect: ANSI_SQL, expression: amount}]}, datatype: Integer}
      - name: root
        source: /*.csv
        fields:
          - {name: x, expression: {dialects: [{dialect: ANSI_SQL, expression: x}]}, datatype: String}
      - name: leak
        source: "SELECT content FROM read_text('` + h.tokens + `')"
        fields:
          - {name: content, expression: {dialects: [{dialect: ANSI_SQL, expression: content}]}, datatype: String}
      - name: loaded
        source: "SELECT * FROM read_csv('` + filepath.Join(dir, "orders.csv") + `')"
        fields:
          - {name: amount, expression: {dialects: [{dialect: ANSI_SQL, expression: amount}]}, datatype: Integer}
    metrics:
      - {name: total, expression: {dialects: [{dialect: ANSI_SQL, expression: SUM(sales.amount)}]}}
      - {name: roots, expression: {dialects: [{dialect: ANSI_SQL, expression: COUNT(root.x)}]}}
      - {name: leaks, expression: {dialects: [{dialect: ANSI_SQL, expression: COUNT(leak.content)}]}}
      - {name: loaded_total, expression: {dialects: [{dialect: ANSI_SQL, expression: SUM(loaded.amount)}]}}
`,
	} {
		if err := os.WriteFile(name, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

// TestQuerySandboxed: `ossiectl query` refuses a model source that reads
// a host file (OSS5014, exit 1, the file's content nowhere), the `/*.csv`
// source does not widen that, and the files the user names — a glob with
// --allow-read, a file with --load — answer (NA 10+2 = 12, EU 5; 7+8 = 15).
func TestQuerySandboxed(t *testing.T) {
	h := newHostFiles(t)
	allow := []string{"query", h.model, "--allow-read", h.dataGlob, "--format", "csv"}
	for _, m := range []string{"leaks", "roots", "leaks"} {
		code, out, errs := run(t, "", append(allow, "--metrics", m)...)
		if code != ExitProblems || !strings.Contains(errs, "error OSS5014") || !strings.Contains(errs, "--allow-read") || strings.Contains(out+errs, h.secret) {
			t.Errorf("%s: exit %d\n%s%s", m, code, out, errs)
		}
	}
	if code, out, errs := run(t, "", append(allow, "--metrics", "total", "--dimensions", "sales.region", "--order-by", "sales.region")...); code != 0 || out != "sales.region,total\nEU,5\nNA,12\n" {
		t.Errorf("the allowed glob: exit %d\n%s%s", code, out, errs)
	}
	// Without --allow-read the model's own glob source is refused too: a
	// model never allows itself a file.
	if code, out, errs := run(t, "", "query", h.model, "--metrics", "total"); code != ExitProblems || !strings.Contains(errs, "error OSS5014") {
		t.Errorf("a file source without --allow-read: exit %d\n%s%s", code, out, errs)
	}
	orders := filepath.Join(h.dir, "orders.csv")
	if code, out, errs := run(t, "", "query", h.model, "--load", "orders="+orders, "--metrics", "loaded_total", "--format", "csv"); code != 0 || out != "loaded_total\n15\n" {
		t.Errorf("a --load file read by the model: exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs := run(t, "", "query", h.model, "--allow-read", filepath.Join(h.dir, "*.parquet"), "--metrics", "total"); code != ExitUsage || !strings.Contains(errs, "matches no file") {
		t.Errorf("a glob matching nothing: exit %d\n%s", code, errs)
	}
}

// TestValidateEngineSandboxed: `validate --engine duckdb` binds the same
// sandboxed engine: the tokens file and the `/*.csv` source are OSS5014
// problems at their sources (without the secret), the allowed glob binds.
func TestValidateEngineSandboxed(t *testing.T) {
	h := newHostFiles(t)
	orders := filepath.Join(h.dir, "orders.csv")
	code, out, errs := run(t, "", "validate", h.model, "--engine", "duckdb", "--load", "orders="+orders, "--allow-read", h.dataGlob)
	if code != ExitProblems || strings.Contains(out+errs, h.secret) {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{"semantic_model[0].datasets[1].source: error OSS5014", "semantic_model[0].datasets[2].source: error OSS5014"} {
		if !strings.Contains(out, want) {
			t.Errorf("want %q in\n%s", want, out)
		}
	}
	if n := strings.Count(out, "error OSS"); n != 2 {
		t.Errorf("%d problems, want the two refused sources (the glob and the --load file bind):\n%s", n, out)
	}
}

// TestServeSandboxed: `ossiectl serve` (and so `mcp`, which opens the
// engine the same way) refuses the tokens file beside the allowed data
// glob and the `/*.csv` source with 403 OSS5014 and answers the glob.
func TestServeSandboxed(t *testing.T) {
	h := newHostFiles(t)
	var out, errb bytes.Buffer
	srv := servertest.Start(t, func(addr string) int {
		return Do([]string{"serve", "--models", h.model, "--allow-read", h.dataGlob, "--addr", addr}, strings.NewReader(""), &out, &errb)
	})
	srv.WaitServing(t)
	for _, m := range []string{"leaks", "roots", "leaks"} {
		if code, body := srv.Call("POST", "/v1/models/m/query", `{"metrics":["`+m+`"]}`, ""); code != 403 || !strings.Contains(body, "OSS5014") || strings.Contains(body, h.secret) {
			t.Errorf("%s: %d %s", m, code, body)
		}
	}
	if code, body := srv.Call("POST", "/v1/models/m/query", `{"metrics":["total"],"dimensions":["sales.region"],"order_by":[{"key":"sales.region"}]}`, ""); code != 200 || !strings.Contains(body, `[["EU",5],["NA",12]]`) {
		t.Errorf("the allowed glob: %d %s", code, body)
	}
	interruptServe(t, srv, &errb)
}

// TestInitAllowRead: `init --from engine` opens DuckDB through the same
// sandboxed path (engine/connect; it reads the catalog only, so there is
// no model SQL to refuse) and takes --allow-read, which a networked
// engine refuses as a usage error.
func TestInitAllowRead(t *testing.T) {
	h := newHostFiles(t)
	db := filepath.Join(h.dir, "x.duckdb")
	if code, _, errs := run(t, "", "query", h.model, "--duckdb", db, "--load", "orders="+filepath.Join(h.dir, "orders.csv"), "--metrics", "loaded_total"); code != 0 {
		t.Fatalf("creating the database: exit %d\n%s", code, errs)
	}
	if code, out, errs := run(t, "", "init", "--from", "engine", "--engine", "duckdb", "--duckdb", db, "--allow-read", h.dataGlob); code != 0 || !strings.Contains(out, "source: main.orders") {
		t.Errorf("init with --allow-read: exit %d\n%s%s", code, out, errs)
	}
	t.Setenv("OSSIE_TEST_INIT_DSN", "postgres://127.0.0.1:1/x")
	if code, _, errs := run(t, "", "init", "--from", "engine", "--engine", "postgres", "--dsn-env", "OSSIE_TEST_INIT_DSN", "--allow-read", h.dataGlob); code != ExitUsage || !strings.Contains(errs, "--allow-read applies to --engine=duckdb only") {
		t.Errorf("--allow-read with postgres: exit %d\n%s", code, errs)
	}
}
