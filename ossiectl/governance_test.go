package ossiectl

import (
	"encoding/csv"
	"strings"
	"testing"
)

// --governance takes part in validation, with problems located in the
// governance file, and in the artifact version.
func TestGovernanceFlagValidateCompile(t *testing.T) {
	code, out, errs := run(t, "", "validate", "testdata/shop.yaml", "--governance", "testdata/shop.governance.yaml")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	code, out, _ = run(t, "", "validate", "testdata/shop.yaml", "--governance", "testdata/broken.governance.yaml")
	want := `testdata/broken.governance.yaml:4:9: governance.roles[0].row_filters[0].dataset: error OSS2002: row filter names unknown dataset "customer"; did you mean "customers"?`
	if code != ExitProblems || !strings.Contains(out, want+"\n") {
		t.Errorf("exit %d, want %d and the line\n%s\nin\n%s", code, ExitProblems, want, out)
	}
	_, plain, _ := run(t, "", "compile", "testdata/shop.yaml", "--version-only")
	_, governed, errs := run(t, "", "compile", "testdata/shop.yaml", "--version-only", "--governance", "testdata/shop.governance.yaml")
	if plain == "" || governed == "" || plain == governed {
		t.Errorf("versions %q and %q (%s)", plain, governed, errs)
	}
}

// sql and query plan as the caller of --role/--attr: row filters bind the
// attribute as a literal, masks apply, hidden members are unknown.
func TestGovernanceFlagSQLQuery(t *testing.T) {
	gov := []string{"--governance", "testdata/shop.governance.yaml", "--role", "state_manager"}
	code, out, errs := run(t, "", append([]string{"sql", "testdata/shop.yaml", "--metrics", "revenue", "--dimensions", "customers.state", "--attr", "state=CA' OR 'x'='x"}, gov...)...)
	if code != 0 || !strings.Contains(out, `= 'CA'' OR ''x''=''x'`) {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	code, _, errs = run(t, "", append([]string{"sql", "testdata/shop.yaml", "--metrics", "avg_amount"}, gov...)...)
	if code != ExitProblems || !strings.Contains(errs, `OSS4002: unknown metric "avg_amount"`) {
		t.Errorf("hidden metric: exit %d %s", code, errs)
	}
	code, _, errs = run(t, "", "sql", "testdata/shop.yaml", "--metrics", "revenue", "--attr", "state=CA")
	if code != ExitUsage || !strings.Contains(errs, "--attr needs --role") {
		t.Errorf("--attr without --role: exit %d %s", code, errs)
	}

	db := shopDB(t, t.TempDir())
	code, out, errs = run(t, "", append([]string{"query", "testdata/shop.yaml", "--duckdb", db, "--attr", "state=CA", "--format", "csv",
		"--metrics", "revenue", "--dimensions", "customers.state,orders.status"}, gov...)...)
	if code != 0 {
		t.Fatalf("exit %d %s", code, errs)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// CA customers' orders (10.50 + 20.25 + 7.75); the NY order stays, under
	// a NULL state; every status is masked.
	want := "[[customers.state orders.status revenue] [CA hidden 38.5] [ hidden 5]]"
	if fmtRecs(recs) != want {
		t.Errorf("answer %s, want %s", fmtRecs(recs), want)
	}
}

func fmtRecs(recs [][]string) string {
	parts := make([]string, len(recs))
	for i, r := range recs {
		parts[i] = "[" + strings.Join(r, " ") + "]"
	}
	return "[" + strings.Join(parts, " ") + "]"
}
