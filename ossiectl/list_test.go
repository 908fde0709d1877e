package ossiectl

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/server/servertest"
)

// TestListFromFile lists the shop model's members as written in
// testdata/shop.yaml (listed here by hand), as a table and as JSON.
func TestListFromFile(t *testing.T) {
	code, out, errs := run(t, "", "list", "metrics", "testdata/shop.yaml")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	want := "MODEL  METRIC       DATATYPE  TYPE  DESCRIPTION\n" +
		"shop   order_count  Integer   -     Number of orders.\n" +
		"shop   revenue      Decimal   -     Total order amount.\n" +
		"shop   avg_amount   -         -     \n"
	if out != want {
		t.Errorf("table:\n%s\nwant:\n%s", out, want)
	}

	code, out, errs = run(t, "", "list", "dimensions", "testdata/shop.yaml", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	var dims []struct {
		Model, Dataset, Name, Field, Datatype string
		IsTime                                bool `json:"is_time"`
		Grains                                []string
	}
	if err := json.Unmarshal([]byte(out), &dims); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var names []string
	for _, d := range dims {
		names = append(names, d.Name)
		if d.Model != "shop" || !strings.HasPrefix(d.Name, d.Dataset+".") || d.Name != d.Dataset+"."+d.Field {
			t.Errorf("dimension %+v", d)
		}
		if d.Name == "orders.order_date" && (!d.IsTime || !slices.Contains(d.Grains, "month") || d.Datatype != "Date") {
			t.Errorf("order_date: %+v", d)
		}
	}
	if want := []string{"orders.order_id", "orders.customer_id", "orders.status", "orders.order_date", "orders.amount", "customers.customer_id", "customers.state"}; !slices.Equal(names, want) {
		t.Errorf("dimensions %v, want %v", names, want)
	}

	// Two models in one file; --model picks one, a typo gets a suggestion.
	code, out, _ = run(t, "", "list", "models", "testdata/small.json")
	if code != 0 || !strings.HasPrefix(out, "MODEL  NAMESPACE  DATASETS  DIMENSIONS  METRICS  DOCUMENT  DESCRIPTION\nother  -          1         1           0        0.1.1") || strings.Count(out, "\n") != 3 {
		t.Errorf("models: exit %d\n%s", code, out)
	}
	code, _, errs = run(t, "", "list", "metrics", "testdata/small.json", "--model", "smal")
	if code != ExitProblems || !strings.Contains(errs, `no model named "smal" (did you mean "small"?)`) {
		t.Errorf("--model typo: exit %d\n%s", code, errs)
	}
}

func TestListUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"list"}, "needs what to list"},
		{[]string{"list", "metric", "testdata/shop.yaml"}, `cannot list "metric" (did you mean "metrics"?)`},
		{[]string{"list", "metrics"}, "needs a model FILE or --server URL"},
		{[]string{"list", "metrics", "testdata/shop.yaml", "--server", "http://127.0.0.1:1"}, "either FILE or --server"},
		{[]string{"list", "metrics", "--server", "localhost:8080"}, "want the server's base URL"},
		{[]string{"list", "metrics", "testdata/shop.yaml", "--format", "csv"}, "--format must be table or json"},
	} {
		code, _, errs := run(t, "", tc.args...)
		if code != ExitUsage || !strings.Contains(errs, tc.err) {
			t.Errorf("%v: exit %d\n%s", tc.args, code, errs)
		}
	}
}

// TestListFromServer lists a running `ossiectl serve` under a token's
// role and checks it matches the file listed under the same role (one
// definition of the metadata), that the role's denied metric is absent,
// that a missing token is the server's 401 with its code (exit 1), and
// that a closed port is exit 3.
func TestListFromServer(t *testing.T) {
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens.yaml")
	const token = "ossiectl-list-token-0123456789"
	if err := os.WriteFile(tokens, []byte("tokens:\n  - {name: ca, token: "+token+", roles: [state_analyst], attributes: {state: CA}}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	gov := "../server/testdata/shop.governance.yaml"
	var sout, serr bytes.Buffer
	srv := servertest.Start(t, func(addr string) int {
		return Do([]string{"serve", "--models", "../server/testdata/shop.yaml", "--governance", gov,
			"--tokens-file", tokens, "--addr", addr}, strings.NewReader(""), &sout, &serr)
	})
	srv.WaitServing(t)
	url := "http://" + srv.Addr

	for _, kind := range listKinds {
		code, remote, errs := run(t, "", "list", kind, "--server", url+"/", "--token-file", tokenFile, "-f", "json")
		if code != 0 {
			t.Fatalf("%s from the server: exit %d\n%s", kind, code, errs)
		}
		code, local, errs := run(t, "", "list", kind, "../server/testdata/shop.yaml", "--governance", gov, "--role", "state_analyst", "--attr", "state=CA", "-f", "json")
		if code != 0 {
			t.Fatalf("%s from the file: exit %d\n%s", kind, code, errs)
		}
		if remote != local {
			t.Errorf("%s: the server lists\n%s\nthe file under the same role\n%s", kind, remote, local)
		}
	}
	t.Setenv("OSSIE_TOKEN", token)
	code, out, errs := run(t, "", "list", "metrics", "--server", url)
	if code != 0 || !strings.Contains(out, "revenue") || strings.Contains(out, "avg_amount") {
		t.Errorf("metrics under the role (token from $OSSIE_TOKEN): exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = run(t, "", "list", "dimensions", "--server", url)
	if code != 0 || strings.Contains(out, "customer_id") || !strings.Contains(out, "customers.state") {
		t.Errorf("dimensions under the role: exit %d\n%s%s", code, out, errs)
	}
	code, _, errs = run(t, "", "list", "models", "--server", url, "--token-env", "OSSIE_NO_SUCH_TOKEN")
	if code != ExitProblems || !strings.Contains(errs, "HTTP 401 OSS5005") || !strings.Contains(errs, "Next: set OSSIE_TOKEN") || strings.Contains(errs, token) {
		t.Errorf("no token: exit %d\n%s", code, errs)
	}
	interruptServe(t, srv, &serr)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	code, _, errs = run(t, "", "list", "models", "--server", "http://"+closed)
	if code != ExitUnreachable || !strings.Contains(errs, "cannot reach the server at http://"+closed) {
		t.Errorf("closed port: exit %d\n%s", code, errs)
	}
}
