package ossiectl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// query --rollups builds the model's rollup in the in-process DuckDB and
// answers from it exactly when the planner proves the answer the same:
// the rows are those of the base tables (the same query without
// --rollups), EXPLAIN names the rollup used, and a dimension the rollup
// lacks is answered from the base tables with the reason.
func TestQueryRollups(t *testing.T) {
	src, err := os.ReadFile("../examples/flights/model.yaml")
	if err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(t.TempDir(), "flights.yaml")
	ext := `    custom_extensions:
      - vendor_name: OSSIE
        data: '{"rollups": [{"version": 1, "name": "by_origin_month", "measures": ["flight_count", "avg_delay", "on_time_rate"],
          "dimensions": ["origin.state"], "time_dimension": {"field": "flights.departure_time", "grain": "month"}}]}'
`
	if err := os.WriteFile(model, append(src, ext...), 0o600); err != nil {
		t.Fatal(err)
	}
	data := "../examples/flights/data/"
	base := []string{"query", model, "--load", "flights=" + data + "flights-sample.parquet", "--load", "airports=" + data + "airports.csv",
		"--format", "csv", "--explain"}
	for _, c := range []struct {
		name, dims, explain string
	}{
		{"covered", "origin.state,flights.departure_time:quarter", "rollup by_origin_month: used"},
		{"not covered", "destination.state", "rollup by_origin_month: dimension destination.state is not in the rollup"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append(append([]string(nil), base...), "--metrics", "flight_count,avg_delay,on_time_rate", "--dimensions", c.dims,
				"--order-by", strings.Split(c.dims, ",")[0])
			code, plain, errs := run(t, "", args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			if strings.Contains(errs, "scan rollup") {
				t.Errorf("a rollup was used without --rollups:\n%s", errs)
			}
			code, rolled, errs := run(t, "", append(args, "--rollups")...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			if !strings.Contains(errs, c.explain) {
				t.Errorf("EXPLAIN lacks %q:\n%s", c.explain, errs)
			}
			if rolled != plain || strings.Count(plain, "\n") < 5 {
				t.Errorf("answers differ or are too small\nwith rollups:\n%s\nwithout:\n%s", rolled, plain)
			}
		})
	}
}
