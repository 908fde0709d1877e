package plan_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/plan"
)

// flightsRollups is the flights example model with a few more metrics and
// the rollups flightsRollupDecl declared (rollups, a JSON list, replaces
// them when set).
func flightsRollups(t testing.TB, rollups string) *compiler.Artifact {
	t.Helper()
	arts, probs := compiler.Load([]byte(flightsRollupsDoc(t, rollups)), compiler.CompileOptions{})
	if probs.HasErrors() {
		t.Fatal(probs.Error())
	}
	return arts[0]
}

func flightsRollupsDoc(t testing.TB, rollups string) string {
	t.Helper()
	b, err := os.ReadFile("../../examples/flights/model.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if rollups == "" {
		rollups = flightsRollupDecl
	}
	return strings.TrimRight(string(b), "\n") + "\n" +
		"      - {name: origins, expression: {dialects: [{dialect: OSSIE_SQL_2026, expression: 'COUNT(DISTINCT flights.origin_code)'}]}}\n" +
		"      - {name: max_delay, expression: {dialects: [{dialect: OSSIE_SQL_2026, expression: 'MAX(flights.delay)'}]}}\n" +
		"      - {name: median_delay, expression: {dialects: [{dialect: OSSIE_SQL_2026, expression: 'MEDIAN(flights.delay)'}]}}\n" +
		"      - {name: airport_count, expression: {dialects: [{dialect: OSSIE_SQL_2026, expression: 'COUNT(origin.code)'}]}}\n" +
		"      - {name: flights_ytd, expression: {dialects: [{dialect: OSSIE_SQL_2026, expression: flight_count}]}, custom_extensions: [{vendor_name: OSSIE, data: '{\"metric\": {\"version\": 1, \"type\": \"cumulative\", \"window\": \"to_date\", \"grain\": \"year\"}}'}]}\n" +
		"    custom_extensions:\n      - vendor_name: OSSIE\n        data: '{\"rollups\": " + rollups + "}'\n"
}

const flightsRollupDecl = `[
 {"version": 1, "name": "flights_by_day", "measures": ["flight_count", "avg_delay", "on_time_rate", "total_distance", "delayed_flights", "max_delay", "origins"],
  "dimensions": ["origin.state", "flights.origin_code"], "time_dimension": {"field": "flights.departure_time", "grain": "day"},
  "partition_grain": "month", "refresh": {"mode": "incremental", "every": "1h", "lookback": 2}},
 {"version": 1, "name": "by_destination", "measures": ["flight_count", "avg_distance"], "dimensions": ["destination.state"]},
 {"version": 1, "name": "by_origin_name", "measures": ["flight_count"], "dimensions": ["origin.name", "flights.origin_code"], "refresh": {"mode": "schedule", "every": "1d"}},
 {"version": 1, "name": "airports_by_destination", "measures": ["airport_count"], "dimensions": ["origin.state", "flights.destination_code"]},
 {"version": 1, "name": "two_homes", "measures": ["flight_count", "airport_count"], "dimensions": ["origin.state"]}]`

// openFlightsSample loads the flights sample and the airports into an
// in-memory DuckDB.
func openFlightsSample(t testing.TB) *sql.DB {
	t.Helper()
	dir := filepath.Join("..", "..", "examples", "flights", "data")
	return openDuckDB(t,
		"CREATE TABLE flights AS SELECT * FROM read_parquet('"+filepath.Join(dir, "flights-sample.parquet")+"')",
		"CREATE TABLE airports AS SELECT * FROM read_csv_auto('"+filepath.Join(dir, "airports.csv")+"')")
}

// TestBuildRollup builds flights_by_day with its build SQL and checks the
// table against hand-written SQL on the same data: one row per (origin
// state, origin code, day), partials summing to the base totals; then
// replaces two partitions incrementally and gets the same table.
func TestBuildRollup(t *testing.T) {
	art := flightsRollups(t, "")
	db := openFlightsSample(t)
	rb, probs := plan.BuildRollup(art, "flights_by_day", dialect.DuckDB)
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	if rb.Table != art.Rollup("flights_by_day").Table || rb.PartitionColumn != "d2" || rb.Delete != "" {
		t.Fatalf("build %+v", rb)
	}
	var names []string
	for _, c := range rb.Columns {
		names = append(names, c.Name)
	}
	if got := strings.Join(names, ","); got != "d0,d1,d2,m0,m1,m2,m3,m4,m5,m6" { // origins has no partial: it counts d1
		t.Fatalf("columns %s", got)
	}
	table := `"` + rb.Table + `"`
	if _, err := db.Exec(`CREATE TABLE ` + table + ` AS ` + rb.SQL); err != nil {
		t.Fatal(err)
	}
	const want = `SELECT COUNT(*), SUM(n), SUM(s), SUM(c), SUM(late), MAX(mx) FROM (
		SELECT a.state, f.origin, CAST(f.date AS DATE) AS day, COUNT(*) AS n, SUM(f.delay) AS s, COUNT(f.delay) AS c,
		       COUNT(*) FILTER (WHERE f.delay >= 15) AS late, MAX(f.delay) AS mx
		FROM flights f LEFT JOIN airports a ON f.origin = a.iata GROUP BY 1, 2, 3)`
	const got = `SELECT COUNT(*), SUM(m0), SUM(m1), SUM(m2), SUM(m5), MAX(m6) FROM `
	exp := queryRows(t, db, want)
	if diff := compareRows(queryRows(t, db, got+table), exp); diff != "" {
		t.Fatalf("rollup table: %s", diff)
	}

	// An incremental refresh of the two partitions up to March 2001
	// replaces their rows by the same rows.
	r := art.Rollup("flights_by_day")
	from, to, ok := plan.PartitionRange(r, time.Date(2001, 3, 17, 12, 0, 0, 0, time.UTC))
	if !ok || !from.Equal(time.Date(2001, 2, 1, 0, 0, 0, 0, time.UTC)) || !to.Equal(time.Date(2001, 4, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("partition range %v %v %v", from, to, ok)
	}
	inc, probs := plan.BuildRollupPartitions(art, "flights_by_day", dialect.DuckDB, from, to)
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	var before, moved int
	if err := db.QueryRow(`SELECT COUNT(*) FROM ` + table + ` WHERE ` + inc.Delete).Scan(&before); err != nil || before == 0 {
		t.Fatalf("rows in the partitions: %d, %v", before, err)
	}
	if _, err := db.Exec(`DELETE FROM ` + table + ` WHERE ` + inc.Delete); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT COUNT(*) FROM (` + inc.SQL + `)`).Scan(&moved); err != nil || moved != before {
		t.Fatalf("incremental build computes %d rows, the partitions held %d (%v)", moved, before, err)
	}
	if _, err := db.Exec(`INSERT INTO ` + table + ` ` + inc.SQL); err != nil {
		t.Fatal(err)
	}
	if diff := compareRows(queryRows(t, db, got+table), exp); diff != "" {
		t.Fatalf("after the incremental refresh: %s", diff)
	}
	if _, probs := plan.BuildRollupPartitions(art, "by_destination", dialect.DuckDB, from, to); !probs.HasErrors() {
		t.Fatal("a rollup without partitions was built by partition")
	}
	if _, probs := plan.BuildRollup(art, "nope", dialect.DuckDB); !probs.HasErrors() {
		t.Fatal("an unknown rollup was built")
	}
}

// TestBuildRollupOfTotals: a rollup without dimensions builds one row of
// partials, the base totals.
func TestBuildRollupOfTotals(t *testing.T) {
	art := flightsRollups(t, `[{"version": 1, "name": "totals", "measures": ["flight_count", "avg_delay"]}]`)
	db := openFlightsSample(t)
	rb, probs := plan.BuildRollup(art, "totals", dialect.DuckDB)
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	want := queryRows(t, db, `SELECT COUNT(*), SUM(delay), COUNT(delay) FROM flights`)
	if diff := compareRows(queryRows(t, db, rb.SQL), want); diff != "" {
		t.Fatalf("%s\n%s", diff, rb.SQL)
	}
}
