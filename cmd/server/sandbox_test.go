package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/server/servertest"
)

// sandboxModel is a model whose sales dataset reads the data glob and
// whose other datasets try to read host files: read_text() on the
// server's tokens file (kept in the data directory, beside the allowed
// files), read_csv() on another file, and a glob file source over `/`,
// which used to widen the sandbox to the whole directory before its
// first wildcard (issue 25 item 3).
func sandboxModel(t *testing.T) (model, dataGlob, secret string) {
	t.Helper()
	dir := t.TempDir()
	secret = "host-secret-0123456789abcdef"
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	tokens := filepath.Join(data, "tokens.yaml")
	host := filepath.Join(dir, "host.csv")
	for name, body := range map[string]string{
		tokens:                        "tokens:\n  - {name: admin, token: " + secret + ", roles: [admin]}\n",
		host:                          "account\n" + secret + "\n",
		filepath.Join(data, "na.csv"): "region,amount\nNA,10\nNA,2\n",
		filepath.Join(data, "eu.csv"): "region,amount\nEU,5\n",
	} {
		if err := os.WriteFile(name, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	dataGlob = filepath.Join(data, "*.csv")
	model = filepath.Join(dir, "model.yaml")
	if err := os.WriteFile(model, []byte(`version: "0.2.0.dev0"
semantic_model:
  - name: m
    datasets:
      - name: sales
        source: `+dataGlob+`
        fields:
          - {name: region, expression: {dialects: [{dialect: ANSI_SQL, expression: region}]}, datatype: String}
          - {name: amount, expression: {dialects: [{dialect: ANSI_SQL, expression: amount}]}, datatype: Integer}
      - name: root_glob
        source: /*.csv
        fields:
          - {name: x, expression: {dialects: [{dialect: ANSI_SQL, expression: x}]}, datatype: String}
      - name: text_leak
        source: "SELECT content FROM read_text('`+tokens+`')"
        fields:
          - {name: content, expression: {dialects: [{dialect: ANSI_SQL, expression: content}]}, datatype: String}
      - name: csv_leak
        source: "SELECT account FROM read_csv('`+host+`')"
        fields:
          - {name: account, expression: {dialects: [{dialect: ANSI_SQL, expression: account}]}, datatype: String}
    metrics:
      - {name: total, expression: {dialects: [{dialect: ANSI_SQL, expression: SUM(sales.amount)}]}}
      - {name: roots, expression: {dialects: [{dialect: ANSI_SQL, expression: COUNT(root_glob.x)}]}}
      - {name: texts, expression: {dialects: [{dialect: ANSI_SQL, expression: COUNT(text_leak.content)}]}}
      - {name: accounts, expression: {dialects: [{dialect: ANSI_SQL, expression: COUNT(csv_leak.account)}]}}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	return model, dataGlob, secret
}

const totalByRegion = `{"metrics":["total"],"dimensions":["sales.region"],"order_by":[{"key":"sales.region"}]}`

// TestModelSourceCannotReadHost reproduces issue 13 finding 3 and issue 25
// item 3 on the DuckDB engine. With --allow-read naming the data glob,
// the sales dataset answers (NA 10+2, EU 5), while the tokens file in the
// same directory, another host file and a `/*.csv` source are refused
// with 403 OSS5014 and no answer carries the secret.
func TestModelSourceCannotReadHost(t *testing.T) {
	model, dataGlob, secret := sandboxModel(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := servertest.Start(t, func(addr string) int {
		return run(ctx, []string{"--models", model, "--no-auth", "--addr", addr, "--allow-read", dataGlob})
	})
	srv.WaitServing(t)
	for _, q := range []string{
		`{"metrics":["texts"],"dimensions":["text_leak.content"]}`,
		`{"metrics":["accounts"],"dimensions":["csv_leak.account"]}`,
		`{"metrics":["roots"],"dimensions":["root_glob.x"]}`,
		// After the root glob was tried, the tokens file is still refused.
		`{"metrics":["texts"],"dimensions":["text_leak.content"]}`,
	} {
		// Refused as the model source's fault (403 OSS5014), not as an
		// engine failure (502 OSS5001).
		code, body := srv.Call("POST", "/v1/models/m/query", q, "")
		if code != 403 || !strings.Contains(body, "OSS5014") || strings.Contains(body, secret) {
			t.Errorf("%s: %d %s; want the source refused with 403 OSS5014", q, code, body)
		}
	}
	if code, body := srv.Call("POST", "/v1/models/m/query", totalByRegion, ""); code != 200 || !strings.Contains(body, `["EU",5]`) || !strings.Contains(body, `["NA",12]`) {
		t.Errorf("the allowed files: %d %s", code, body)
	}
	cancel()
	if code := srv.Exit(t); code != 0 {
		t.Errorf("exit code %d after cancel", code)
	}
}

// TestModelFileSourceNeedsAllowRead: a model's own file source is not
// allowed by the model: without --allow-read it is refused (403 OSS5014)
// like any other host file, and a glob --allow-read that matches nothing
// stops the server at start.
func TestModelFileSourceNeedsAllowRead(t *testing.T) {
	model, dataGlob, _ := sandboxModel(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := servertest.Start(t, func(addr string) int {
		return run(ctx, []string{"--models", model, "--no-auth", "--addr", addr})
	})
	srv.WaitServing(t)
	if code, body := srv.Call("POST", "/v1/models/m/query", totalByRegion, ""); code != 403 || !strings.Contains(body, "OSS5014") {
		t.Errorf("a file source without --allow-read: %d %s", code, body)
	}
	cancel()
	if code := srv.Exit(t); code != 0 {
		t.Errorf("exit code %d after cancel", code)
	}
	var stderr strings.Builder
	if code := runTo(context.Background(), []string{"--models", model, "--no-auth", "--addr", "127.0.0.1:0", "--allow-read", filepath.Join(filepath.Dir(dataGlob), "*.parquet")}, io.Discard, &stderr); code != 1 || !strings.Contains(stderr.String(), "matches no file") {
		t.Errorf("a glob matching nothing: exit %d\n%s", code, stderr.String())
	}
}
