package pgwire

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// clientInstall is the install directory a repo script made for a real
// client (env names it, e.g. OSSIE_PG_PYTHON_HOME) with file inside it;
// without it the test is skipped, or fails when require is set (make
// test sets it, so a fresh machine runs the client rather than skipping).
func clientInstall(t *testing.T, env, require, file, script string) string {
	t.Helper()
	home := os.Getenv(env)
	path := filepath.Join(home, file)
	if _, err := os.Stat(path); home == "" || err != nil {
		if os.Getenv(require) != "" {
			t.Fatalf("%s is set but %s=%q has no %s: run %s", require, env, home, file, script)
		}
		t.Skipf("no client: set %s=$(%s | tail -n1)", env, script)
	}
	return path
}

// clientReport is what a client script (testdata/pg_python.py,
// testdata/pg_node.mjs) prints: the catalog as the auditor lists it,
// the answers of named queries, the cancelled query, and what the state
// analyst sees.
type clientReport struct {
	Schemas []string           `json:"schemas"`
	Tables  [][]any            `json:"tables"`
	Columns [][]any            `json:"columns"`
	Queries map[string][][]any `json:"queries"`
	Cancel  struct {
		SQLState string  `json:"sqlstate"`
		Error    string  `json:"error"`
		Seconds  float64 `json:"seconds"`
		Alive    *bool   `json:"alive"`
		After    [][]any `json:"after"`
	} `json:"cancel"`
	GovernedColumns []string `json:"governed_columns"`
	GovernedHidden  string   `json:"governed_hidden"`
}

// runClient runs a client program (name and args, then host, port and
// the auditor's and the state analyst's tokens) against f's endpoint and
// decodes its JSON report into out.
func (f *fixture) runClient(t *testing.T, env []string, out any, name string, args ...string) {
	t.Helper()
	host, port, _ := net.SplitHostPort(f.addr)
	cmd := exec.Command(name, append(args, host, port, tokenAuditor, tokenState)...)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, stderr.String())
	}
	if err := json.Unmarshal(stdout, out); err != nil {
		t.Fatalf("%s: %v", stdout, err)
	}
}

// The shop table's columns and types as the auditor (who may read every
// member) lists them, in information_schema's data_type spelling.
var shopColumns = [][]any{
	{"orders_order_id", "bigint"}, {"orders_customer_id", "bigint"}, {"orders_status", "text"},
	{"orders_order_date", "date"}, {"orders_amount", "numeric"}, {"customers_customer_id", "text"},
	{"customers_state", "text"}, {"order_count", "bigint"}, {"revenue", "numeric"}, {"avg_amount", "numeric"},
}

// clientQueries are the HTTP queries (with the token they run under)
// that a client's named answers must equal value by value.
var clientQueries = map[string]struct{ token, query string }{
	"by_state":   {tokenAuditor, `{"metrics":["revenue"],"dimensions":["customers.state"],"order_by":[{"key":"revenue","dir":"desc"}],"limit":2}`},
	"by_month":   {tokenAuditor, `{"metrics":["order_count","revenue"],"dimensions":[{"field":"orders.order_date","grain":"month"}],"order_by":[{"key":"orders.order_date.month"}]}`},
	"params":     {tokenAuditor, `{"metrics":["order_count","revenue"],"dimensions":["customers.state"],"filters":[{"field":"orders.order_date","op":"between","values":["2024-01-01","2024-02-11"]},{"field":"customers.state","op":"in","values":["CA","NY"]}],"order_by":[{"key":"customers.state"}],"limit":10}`},
	"prepared_1": {tokenAuditor, `{"metrics":["order_count"],"dimensions":["customers.state"],"filters":[{"metric":"order_count","op":"gt","values":[1]}],"order_by":[{"key":"customers.state"}]}`},
	"prepared_2": {tokenAuditor, `{"metrics":["order_count"],"dimensions":["customers.state"],"filters":[{"metric":"order_count","op":"gt","values":[2]}],"order_by":[{"key":"customers.state"}]}`},
	"governed":   {tokenState, `{"metrics":["order_count","revenue"],"dimensions":["customers.state"],"order_by":[{"key":"customers.state"}]}`},
}

// handQueries are hand-written SQL on the same tables for some of the
// named answers: the HTTP API's answer is itself checked elsewhere, these
// check the client's directly.
var handQueries = map[string]string{
	"by_state": `SELECT c.state, SUM(o.amount) FROM orders o LEFT JOIN customers c USING (customer_id) GROUP BY 1 ORDER BY 2 DESC NULLS LAST LIMIT 2`,
	"by_month": `SELECT CAST(date_trunc('month', order_date) AS DATE), COUNT(order_id), SUM(amount) FROM orders GROUP BY 1 ORDER BY 1`,
	"params": `SELECT c.state, COUNT(o.order_id), SUM(o.amount) FROM orders o LEFT JOIN customers c USING (customer_id)
		WHERE o.order_date BETWEEN DATE '2024-01-01' AND DATE '2024-02-11' AND c.state IN ('CA', 'NY') GROUP BY 1 ORDER BY 1`,
	"governed": `SELECT c.state, COUNT(o.order_id), SUM(o.amount)
		FROM (SELECT * FROM orders WHERE status <> 'returned') o
		LEFT JOIN (SELECT * FROM customers WHERE state = 'CA') c USING (customer_id)
		GROUP BY 1 ORDER BY 1 NULLS LAST`,
}

// checkAnswer compares a client's named answer got with the HTTP API's
// answer to the query behind key (as) and, when there is one, with
// hand-written SQL.
func (f *fixture) checkAnswer(t *testing.T, name string, got [][]any, key string) {
	t.Helper()
	if got == nil {
		t.Errorf("%s: no answer", name)
		return
	}
	q := clientQueries[key]
	if err := sameRows(got, f.httpRows(t, "shop", q.query, q.token)); err != nil {
		t.Errorf("%s vs HTTP: %v", name, err)
	}
	if hand, ok := handQueries[key]; ok {
		if err := sameRows(got, f.handRows(t, hand)); err != nil {
			t.Errorf("%s vs hand-written SQL: %v", name, err)
		}
	}
}

// checkReport checks what every client reports: the catalog, the named
// answers, the cancel and the governed caller.
func (f *fixture) checkReport(t *testing.T, client string, r *clientReport) {
	t.Helper()
	if !slices.Contains(r.Schemas, "shop") || !slices.Contains(r.Schemas, "slow") {
		t.Errorf("%s: schemas %v", client, r.Schemas)
	}
	if err := sameRows(r.Tables, [][]any{{"missing", "missing"}, {"shop", "shop"}, {"slow", "slow"}}); err != nil {
		t.Errorf("%s: tables: %v", client, err)
	}
	if err := sameRows(r.Columns, shopColumns); err != nil {
		t.Errorf("%s: columns: %v", client, err)
	}
	for key := range clientQueries {
		f.checkAnswer(t, client+" "+key, r.Queries[key], key)
	}
	c := r.Cancel
	if c.SQLState != codeCanceled || c.Alive == nil || !*c.Alive {
		t.Errorf("%s: cancel: %+v, want %s", client, c, codeCanceled)
	}
	t.Logf("%s: cancelled after %.3fs", client, c.Seconds)
	f.checkAnswer(t, client+" after the cancel", c.After, "by_state")
	var all []string
	for _, col := range shopColumns {
		all = append(all, col[0].(string))
	}
	want := slices.DeleteFunc(slices.Clone(all), func(c string) bool {
		return c == "orders_customer_id" || c == "customers_customer_id" || c == "avg_amount"
	})
	if !slices.Equal(r.GovernedColumns, want) {
		t.Errorf("%s: the state analyst's columns %v, want %v", client, r.GovernedColumns, want)
	}
	if r.GovernedHidden != codeUndefinedColumn {
		t.Errorf("%s: the state analyst asking for avg_amount: %q, want %s", client, r.GovernedHidden, codeUndefinedColumn)
	}
	if g, a := len(r.Queries["governed"]), len(f.httpRows(t, "shop", clientQueries["governed"].query, tokenAuditor)); g == 0 || g >= a {
		t.Errorf("%s: the state analyst gets %d rows, the auditor %d", client, g, a)
	}
}
