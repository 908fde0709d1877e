// Package python runs the Python client's tests (clients/python/tests)
// against a real server: `ossiectl serve` on the corner_store model
// imported from its dbt project, with answers expected from hand-written
// SQL on the same DuckDB file. The virtual environment comes from
// scripts/pyclient.sh (OSSIE_PYCLIENT_HOME); OSSIE_REQUIRE_PYCLIENT=1
// turns its absence into a failure.
package python

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/ossiectl"
	"github.com/ossie-dev/ossie/server/servertest"
)

const maxRows = 5000

type pyCase struct {
	Name  string         `json:"name"`
	Query map[string]any `json:"query"`
	SQL   string         `json:"-"`
	Rows  [][]any        `json:"rows"`
}

func TestPythonClient(t *testing.T) {
	home := os.Getenv("OSSIE_PYCLIENT_HOME")
	if home == "" {
		if os.Getenv("OSSIE_REQUIRE_PYCLIENT") == "1" {
			t.Fatal("OSSIE_PYCLIENT_HOME is not set: run scripts/pyclient.sh")
		}
		t.Skip("set OSSIE_PYCLIENT_HOME=$(scripts/pyclient.sh | tail -n1) to run the Python client's tests")
	}
	dir := t.TempDir()
	model := filepath.Join(dir, "model.yaml")
	var out, errb bytes.Buffer
	if code := ossiectl.Do([]string{"import", "dbt", "../../ossiectl/testdata/dbt/corner_store", "-o", model}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("import: %d %s", code, errb.String())
	}
	db := filepath.Join(dir, "store.duckdb")
	eng, err := duckdb.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("../../ossiectl/testdata/dbt/corner_store.sql")
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Exec(context.Background(), string(data)); err != nil {
		t.Fatal(err)
	}
	cases := []pyCase{
		{Name: "simple and ratio by channel", Query: map[string]any{"metrics": []string{"revenue", "gift_share"}, "dimensions": []string{"orders.channel"}},
			SQL: `SELECT channel, CAST(SUM(amount) AS DOUBLE), SUM(1) FILTER (WHERE is_gift) / COUNT(*) FROM fct_orders GROUP BY 1`},
		{Name: "filtered by region, per month", Query: map[string]any{"metrics": []string{"west_revenue"}, "dimensions": []any{map[string]string{"field": "orders.ordered_at", "grain": "month"}},
			"filters": []any{map[string]any{"field": "orders.channel", "op": "=", "values": []string{"shop"}}}},
			SQL: `SELECT strftime(date_trunc('month', o.ordered_at), '%Y-%m-%d'), CAST(SUM(o.amount) FILTER (WHERE c.region = 'west') AS DOUBLE) FROM fct_orders o LEFT JOIN dim_customers c USING (customer_id) WHERE o.channel = 'shop' GROUP BY 1`},
		{Name: "conversion in total", Query: map[string]any{"metrics": []string{"visit_to_order_7d"}},
			SQL: `SELECT COUNT(DISTINCT customer_id) FILTER (WHERE EXISTS (SELECT 1 FROM fct_orders o WHERE o.customer_id = v.customer_id
			  AND CAST(o.ordered_at AS DATE) BETWEEN CAST(v.visited_at AS DATE) AND CAST(v.visited_at AS DATE) + 7)) / COUNT(DISTINCT customer_id) FROM fct_visits v`},
	}
	for i := range cases {
		rows, err := eng.DB().Query(cases[i].SQL)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for j := range vals {
				ptrs[j] = &vals[j]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			cases[i].Rows = append(cases[i].Rows, vals)
		}
		rows.Close()
	}
	eng.Close()
	expected := filepath.Join(dir, "expected.json")
	js, _ := json.Marshal(map[string]any{"cases": cases, "max_rows": maxRows})
	if err := os.WriteFile(expected, js, 0o600); err != nil {
		t.Fatal(err)
	}
	const token = "python-client-token-0123456789"
	tokens := filepath.Join(dir, "tokens.yaml")
	if err := os.WriteFile(tokens, []byte("tokens:\n  - {name: py, token: "+token+", roles: [analyst]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var sout, serr bytes.Buffer
	srv := servertest.Start(t, func(addr string) int {
		return ossiectl.Do([]string{"serve", "--models", model, "--duckdb", db, "--tokens-file", tokens, "--addr", addr, "--max-rows", "5000"}, strings.NewReader(""), &sout, &serr)
	})
	srv.WaitServing(t)
	cmd := exec.Command(filepath.Join(home, "venv", "bin", "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests")
	cmd.Env = append(os.Environ(), "PYTHONPATH=src", "OSSIE_URL=http://"+srv.Addr, "OSSIE_TOKEN="+token, "OSSIE_EXPECTED="+expected)
	pyOut, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("pytest: %v\n%s\nserver:\n%s", err, pyOut, serr.String())
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	srv.Exit(t)
}
