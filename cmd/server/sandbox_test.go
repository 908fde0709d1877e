package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/server/servertest"
)

// TestModelSourceCannotReadHost reproduces issue 13 finding 3 on the DuckDB
// engine: a model author's query sources call read_text() on the server's
// tokens file and read_csv() on another file of the host. Once the server
// has started they are refused with 403 OSS5014 (no answer carries the
// file's content), while the model's own file source still answers.
func TestModelSourceCannotReadHost(t *testing.T) {
	dir := t.TempDir()
	const secret = "host-secret-0123456789abcdef"
	tokens := filepath.Join(dir, "tokens.yaml")
	host := filepath.Join(dir, "host.csv")
	data := filepath.Join(dir, "sales.csv")
	for name, body := range map[string]string{
		tokens: "tokens:\n  - {name: admin, token: " + secret + ", roles: [admin]}\n",
		host:   "account\n" + secret + "\n",
		data:   "region,amount\nNA,10\nEU,5\nNA,2\n",
	} {
		if err := os.WriteFile(name, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	model := filepath.Join(dir, "model.yaml")
	if err := os.WriteFile(model, []byte(`version: "0.2.0.dev0"
semantic_model:
  - name: m
    datasets:
      - name: sales
        source: `+data+`
        fields:
          - {name: region, expression: {dialects: [{dialect: ANSI_SQL, expression: region}]}, datatype: String}
          - {name: amount, expression: {dialects: [{dialect: ANSI_SQL, expression: amount}]}, datatype: Integer}
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
      - {name: texts, expression: {dialects: [{dialect: ANSI_SQL, expression: COUNT(text_leak.content)}]}}
      - {name: accounts, expression: {dialects: [{dialect: ANSI_SQL, expression: COUNT(csv_leak.account)}]}}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := servertest.Start(t, func(addr string) int {
		return run(ctx, []string{"--models", model, "--no-auth", "--addr", addr})
	})
	srv.WaitServing(t)
	for _, q := range []string{
		`{"metrics":["texts"],"dimensions":["text_leak.content"]}`,
		`{"metrics":["accounts"],"dimensions":["csv_leak.account"]}`,
	} {
		// Refused as the model source's fault (403 OSS5014), not as an
		// engine failure (502 OSS5001).
		code, body := srv.Call("POST", "/v1/models/m/query", q, "")
		if code != 403 || !strings.Contains(body, "OSS5014") || strings.Contains(body, secret) {
			t.Errorf("%s: %d %s; want the source refused with 403 OSS5014", q, code, body)
		}
	}
	if code, body := srv.Call("POST", "/v1/models/m/query", `{"metrics":["total"],"dimensions":["sales.region"],"order_by":[{"key":"sales.region"}]}`, ""); code != 200 || !strings.Contains(body, `["EU",5]`) || !strings.Contains(body, `["NA",12]`) {
		t.Errorf("the model's own file: %d %s", code, body)
	}
	cancel()
	if code := srv.Exit(t); code != 0 {
		t.Errorf("exit code %d after cancel", code)
	}
}
