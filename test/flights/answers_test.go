package flights_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ossie-dev/ossie/compiler/plan"
)

// answerCase is one question on the flights example: the metric query sent
// through server.Answer and the SQL a careful analyst would write by hand
// against the same tables. Both must order their rows completely.
type answerCase struct {
	name  string
	query plan.Query
	// columns the answer must return, in order.
	columns []string
	// hand is DuckDB SQL over the loaded tables flights and airports; its
	// columns line up with the answer's.
	hand string
	// minRows guards against a vacuous pass (both sides empty).
	minRows int
}

func answerCases() []answerCase {
	return []answerCase{
		{
			name: "flights by origin state, top 10",
			query: plan.Query{
				Metrics:    []string{"flight_count"},
				Dimensions: []plan.Dimension{{Field: "origin.state"}},
				OrderBy:    []plan.Order{{Key: "flight_count", Dir: "desc"}, {Key: "origin.state"}},
				Limit:      intp(10),
			},
			columns: []string{"origin.state", "flight_count"},
			hand: `SELECT o.state, COUNT(*) AS n
				FROM flights f LEFT JOIN airports o ON f.origin = o.iata
				GROUP BY o.state ORDER BY n DESC, o.state LIMIT 10`,
			minRows: 10,
		},
		{
			name: "every origin state with distance and delay",
			query: plan.Query{
				Metrics:    []string{"flight_count", "total_distance", "avg_distance", "avg_delay"},
				Dimensions: []plan.Dimension{{Field: "origin.state"}},
				OrderBy:    []plan.Order{{Key: "origin.state"}},
			},
			columns: []string{"origin.state", "flight_count", "total_distance", "avg_distance", "avg_delay"},
			hand: `SELECT o.state, COUNT(*), SUM(f.distance), AVG(f.distance), AVG(f.delay)
				FROM flights f LEFT JOIN airports o ON f.origin = o.iata
				GROUP BY o.state ORDER BY o.state`,
			minRows: 40,
		},
		{
			name: "flights by month",
			query: plan.Query{
				Metrics:    []string{"flight_count", "avg_delay", "on_time_rate"},
				Dimensions: []plan.Dimension{{Field: "flights.departure_time", Grain: "month"}},
				OrderBy:    []plan.Order{{Key: "flights.departure_time.month"}},
			},
			columns: []string{"flights.departure_time.month", "flight_count", "avg_delay", "on_time_rate"},
			hand: `SELECT date_trunc('month', f.date) AS m, COUNT(*), AVG(f.delay),
					COUNT(*) FILTER (WHERE f.delay < 15)::DOUBLE / COUNT(*)
				FROM flights f GROUP BY m ORDER BY m`,
			minRows: 6,
		},
		{
			name: "on-time rate by destination state",
			query: plan.Query{
				Metrics:    []string{"on_time_rate", "on_time_flights", "delayed_flights", "flight_count"},
				Dimensions: []plan.Dimension{{Field: "destination.state"}},
				OrderBy:    []plan.Order{{Key: "destination.state"}},
			},
			columns: []string{"destination.state", "on_time_rate", "on_time_flights", "delayed_flights", "flight_count"},
			hand: `SELECT d.state,
					COUNT(*) FILTER (WHERE f.delay < 15)::DOUBLE / COUNT(*),
					COUNT(*) FILTER (WHERE f.delay < 15),
					COUNT(*) FILTER (WHERE f.delay >= 15),
					COUNT(*)
				FROM flights f LEFT JOIN airports d ON f.destination = d.iata
				GROUP BY d.state ORDER BY d.state`,
			minRows: 40,
		},
		{
			name: "average delay from California and New York, by destination state",
			query: plan.Query{
				Metrics:    []string{"avg_delay", "flight_count"},
				Dimensions: []plan.Dimension{{Field: "destination.state"}},
				Filters:    []plan.Filter{{Field: "origin.state", Op: "in", Values: []any{"CA", "NY"}}},
				OrderBy:    []plan.Order{{Key: "destination.state"}},
			},
			columns: []string{"destination.state", "avg_delay", "flight_count"},
			hand: `SELECT d.state, AVG(f.delay), COUNT(*)
				FROM flights f
				LEFT JOIN airports o ON f.origin = o.iata
				LEFT JOIN airports d ON f.destination = d.iata
				WHERE o.state IN ('CA', 'NY')
				GROUP BY d.state ORDER BY d.state`,
			minRows: 20,
		},
		{
			name: "origin and destination states together (two roles of one table)",
			query: plan.Query{
				Metrics:    []string{"flight_count", "avg_delay", "total_distance"},
				Dimensions: []plan.Dimension{{Field: "origin.state"}, {Field: "destination.state"}},
				OrderBy:    []plan.Order{{Key: "flight_count", Dir: "desc"}, {Key: "origin.state"}, {Key: "destination.state"}},
				Limit:      intp(25),
			},
			columns: []string{"origin.state", "destination.state", "flight_count", "avg_delay", "total_distance"},
			hand: `SELECT o.state, d.state, COUNT(*) AS n, AVG(f.delay), SUM(f.distance)
				FROM flights f
				LEFT JOIN airports o ON f.origin = o.iata
				LEFT JOIN airports d ON f.destination = d.iata
				GROUP BY o.state, d.state ORDER BY n DESC, o.state, d.state LIMIT 25`,
			minRows: 25,
		},
		{
			name: "no dimensions: one row over all flights",
			query: plan.Query{
				Metrics: []string{"flight_count", "total_distance", "avg_distance", "avg_delay", "on_time_flights", "delayed_flights", "on_time_rate"},
			},
			columns: []string{"flight_count", "total_distance", "avg_distance", "avg_delay", "on_time_flights", "delayed_flights", "on_time_rate"},
			hand: `SELECT COUNT(*), SUM(distance), AVG(distance), AVG(delay),
					COUNT(*) FILTER (WHERE delay < 15), COUNT(*) FILTER (WHERE delay >= 15),
					COUNT(*) FILTER (WHERE delay < 15)::DOUBLE / COUNT(*)
				FROM flights`,
			minRows: 1,
		},
		{
			name: "a value with a quote: flights into Chicago O'Hare by day in March",
			query: plan.Query{
				Metrics:    []string{"flight_count", "avg_delay"},
				Dimensions: []plan.Dimension{{Field: "flights.departure_time", Grain: "day"}},
				Filters: []plan.Filter{
					{Field: "destination.name", Op: "=", Values: []any{"Chicago O'Hare International"}},
					{Field: "flights.departure_time", Op: "in_date_range", Values: []any{"2001-03-01", "2001-03-31"}},
				},
				OrderBy: []plan.Order{{Key: "flights.departure_time.day"}},
			},
			columns: []string{"flights.departure_time.day", "flight_count", "avg_delay"},
			hand: `SELECT date_trunc('day', f.date) AS d, COUNT(*), AVG(f.delay)
				FROM flights f LEFT JOIN airports a ON f.destination = a.iata
				WHERE a.name = 'Chicago O''Hare International'
				  AND f.date >= TIMESTAMP '2001-03-01' AND f.date < TIMESTAMP '2001-04-01'
				GROUP BY d ORDER BY d`,
			minRows: 28,
		},
		{
			name: "metric filter: destination states with more than 200 delayed arrivals",
			query: plan.Query{
				Metrics:    []string{"delayed_flights", "on_time_rate"},
				Dimensions: []plan.Dimension{{Field: "destination.state"}},
				Filters:    []plan.Filter{{Metric: "delayed_flights", Op: "gt", Values: []any{200}}},
				OrderBy:    []plan.Order{{Key: "delayed_flights", Dir: "desc"}, {Key: "destination.state"}},
			},
			columns: []string{"destination.state", "delayed_flights", "on_time_rate"},
			hand: `SELECT d.state, COUNT(*) FILTER (WHERE f.delay >= 15) AS late,
					COUNT(*) FILTER (WHERE f.delay < 15)::DOUBLE / COUNT(*)
				FROM flights f LEFT JOIN airports d ON f.destination = d.iata
				GROUP BY d.state HAVING late > 200 ORDER BY late DESC, d.state`,
			minRows: 3,
		},
	}
}

// TestFlightsAnswers runs every case through server.Answer on the committed
// 30,000-row sample and compares with the hand-written SQL run directly on
// the same DuckDB database.
func TestFlightsAnswers(t *testing.T) {
	checkAnswers(t, newEnv(t, sampleDir))
}

// TestFlightsAnswersFull repeats the comparison on the 3 M-row file when
// `make fetch-flights` (or `make demo`) has put it in place; skipped
// otherwise and under -short.
func TestFlightsAnswersFull(t *testing.T) {
	if _, err := os.Stat(filepath.Join(fullDir, "flights-3m.parquet")); err != nil {
		t.Skip("no full data in " + fullDir + " (make fetch-flights)")
	}
	if testing.Short() {
		t.Skip("-short: skipping the 3 M-row comparison")
	}
	checkAnswers(t, newEnv(t, fullDir))
}

func checkAnswers(t *testing.T, env *env) {
	ctx := context.Background()
	for _, c := range answerCases() {
		t.Run(c.name, func(t *testing.T) {
			gotCols, got := env.answer(ctx, t, &c.query)
			if !slices.Equal(gotCols, c.columns) {
				t.Fatalf("columns: got %q, want %q", gotCols, c.columns)
			}
			want := env.raw(ctx, t, c.hand)
			if len(want) < c.minRows {
				t.Fatalf("hand-written SQL returned %d rows, the case expects at least %d: the data or the case is wrong", len(want), c.minRows)
			}
			if diff := sameRows(want, got); diff != "" {
				t.Fatalf("answer differs from hand-written SQL: %s", diff)
			}
		})
	}
}

// TestSampleIsTheDocumentedOne pins the facts data/README.md states about the
// committed sample, so a replaced file cannot silently change every answer.
func TestSampleIsTheDocumentedOne(t *testing.T) {
	env := newEnv(t, sampleDir)
	ctx := context.Background()
	rows := env.raw(ctx, t, `SELECT COUNT(*), COUNT(DISTINCT origin), MIN(date)::DATE::VARCHAR, MAX(date)::DATE::VARCHAR,
		(SELECT COUNT(*) FROM airports),
		(SELECT COUNT(*) FROM flights f WHERE NOT EXISTS (SELECT 1 FROM airports a WHERE a.iata = f.origin)
		                                   OR NOT EXISTS (SELECT 1 FROM airports a WHERE a.iata = f.destination))
		FROM flights`)
	want := [][]any{{int64(30000), int64(223), "2001-01-01", "2001-06-30", int64(3376), int64(0)}}
	if diff := sameRows(want, rows); diff != "" {
		t.Fatal(diff)
	}
}

func intp(n int) *int { return &n }
