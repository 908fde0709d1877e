package localcluster_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ossie-dev/ossie/test/kubetest"
	"github.com/ossie-dev/ossie/test/localcluster"
	"github.com/ossie-dev/ossie/test/pgtest"
)

// TestClusterDemo runs what `make cluster-demo` runs, on the committed
// sample: the model becomes Ready, the demo's question is answered with
// the rows hand-written SQL computes on the same PostgreSQL, and the three
// next commands the demo prints work as printed: kubectl get sm lists the
// model Ready, curl answers the same rows, and breaking a column makes
// the operator report drift. Stop ends every process it started.
func TestClusterDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts kube-apiserver, etcd, PostgreSQL, the operator and the server")
	}
	if _, err := exec.LookPath("psql"); err != nil {
		t.Fatalf("psql (PostgreSQL client) is needed by the demo's next commands: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var log strings.Builder
	c, err := localcluster.Start(ctx, localcluster.Options{
		DataDir: filepath.Join(kubetest.Root(), "examples", "flights", "data"),
		Log:     &log,
	})
	if errors.Is(err, pgtest.ErrNoBinaries) && os.Getenv(pgtest.RequireEnv) != "1" {
		t.Skipf("no PostgreSQL: %v", err)
	}
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	stopped := false
	defer func() {
		if !stopped {
			_ = c.Stop()
		}
	}()
	t.Logf("start-up:\n%s", log.String())
	if c.FlightRows != 30000 {
		t.Errorf("loaded %d flights, want the sample's 30000", c.FlightRows)
	}

	// The demo's question against hand-written SQL on the same data.
	dsn, err := os.ReadFile(c.DSNFile)
	if err != nil {
		t.Fatal(err)
	}
	pg, err := pgx.Connect(ctx, strings.TrimSpace(string(dsn)))
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close(ctx)
	var want []string
	rows, err := pg.Query(ctx, `SELECT a.state, COUNT(*), AVG(CASE WHEN f.delay < 15 THEN 1.0 ELSE 0.0 END)::float8
		FROM flights f LEFT JOIN airports a ON a.iata = f.origin
		GROUP BY a.state ORDER BY COUNT(*) DESC LIMIT 3`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var state string
		var n int64
		var rate float64
		if err := rows.Scan(&state, &n, &rate); err != nil {
			t.Fatal(err)
		}
		want = append(want, fmt.Sprintf("%s %d %.9f", state, n, rate))
	}
	if rows.Err() != nil || len(want) != 3 {
		t.Fatalf("hand-written SQL: %v %q", rows.Err(), want)
	}
	a, err := c.Ask(ctx, localcluster.Question)
	if err != nil {
		t.Fatal(err)
	}
	if got := answerLines(a.Rows); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("answer %q, want %q", got, want)
	}

	// A misspelt key: server-side apply refuses it in one line naming the
	// key (README's advice); client-side apply's refusal is logged for size.
	sm, err := os.ReadFile(filepath.Join(kubetest.Root(), "examples", "flights", "semanticmodel.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	badFile := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(badFile, []byte(strings.Replace(string(sm), "\nspec:\n", "\nspec:\n  colour: red\n", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = c.Kubectl(ctx, "-n", c.Namespace, "apply", "--server-side", "-f", badFile)
	if err == nil || !strings.Contains(err.Error(), ".spec.colour: field not declared in schema") || len(err.Error()) > 600 {
		t.Errorf("server-side apply of an unknown key: %v", err)
	}
	if _, err := c.Kubectl(ctx, "-n", c.Namespace, "apply", "-f", badFile); err == nil {
		t.Errorf("client-side apply accepted an unknown key")
	} else {
		t.Logf("client-side apply's refusal of one unknown key: %d bytes", len(err.Error()))
	}

	next := c.Next()
	out := sh(t, c, next.Get)
	if !strings.Contains(out, localcluster.ModelName) || !strings.Contains(out, "True") {
		t.Errorf("%s:\n%s", next.Get, out)
	}
	out = sh(t, c, next.Curl)
	if !strings.Contains(out, `"rows":[["`+strings.Fields(want[0])[0]+`",`+strings.Fields(want[0])[1]+",") {
		t.Errorf("%s:\n%s\nwant the first row %s", next.Curl, out, want[0])
	}
	sh(t, c, next.Break)
	deadline := time.Now().Add(60 * time.Second)
	for {
		out, err := c.Kubectl(ctx, "-n", c.Namespace, "get", "sm", localcluster.ModelName,
			"-o", `jsonpath={.status.conditions[?(@.type=="DriftDetected")].status} {.status.conditions[?(@.type=="DriftDetected")].message}`)
		if err == nil && strings.HasPrefix(out, "True") && strings.Contains(out, localcluster.BrokenColumn) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no drift reported after %s: %q %v", next.Break, out, err)
		}
		time.Sleep(200 * time.Millisecond)
	}

	stopped = true
	if err := c.Stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
	if _, err := os.Stat(c.Dir); !os.IsNotExist(err) {
		t.Errorf("%s left behind: %v", c.Dir, err)
	}
}

// sh runs line with bash after the cluster's Env, as a user would paste it.
func sh(t *testing.T, c *localcluster.Cluster, line string) string {
	t.Helper()
	cmd := exec.Command("bash", "-c", c.Env()+"\n"+line)
	cmd.Dir = kubetest.Root()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", line, err, out)
	}
	return string(out)
}

func answerLines(rows [][]any) []string {
	var out []string
	for _, r := range rows {
		if len(r) != 3 {
			return append(out, fmt.Sprint(r))
		}
		n, _ := r[1].(float64)
		rate, _ := r[2].(float64)
		out = append(out, fmt.Sprintf("%v %d %.9f", r[0], int64(n), rate))
	}
	return out
}

// TestMain runs startEnvtestLate instead of the tests when the test
// binary is re-executed with lateEnvtestEnv set.
func TestMain(m *testing.M) {
	if mode := os.Getenv(lateEnvtestEnv); mode != "" {
		os.Exit(startEnvtestLate(mode == "with-logger"))
	}
	os.Exit(pgtest.Main(m))
}
