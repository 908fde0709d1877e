package soak

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand"
	"sort"
	"time"

	"github.com/ossie-dev/ossie/test/differential/dcase"
)

// flightsRef is the memory soak's reference for the flights model: the
// flights counted, summed and on-time counted per origin, destination and
// day by hand-written SQL over the same data, once at start. An answer to
// any question of flightsQuestion is these cells added up in Go, so the
// soak can ask thousands of never-asked questions (the result cache
// churns) and check each without asking an engine twice.
type flightsRef struct {
	cells []flightCell
	state map[string]string // airport code -> state ("" when NULL)
	first time.Time         // first and last day with flights
	days  int
}

type flightCell struct {
	origin, dest    string
	day             time.Time
	count, distance int64
	delaySum        int64
	delayN, onTime  int64
}

// loadFlightsRef reads the cells from db (the DuckDB file the server
// will serve, before it does).
func loadFlightsRef(ctx context.Context, db *sql.DB) (*flightsRef, error) {
	r := &flightsRef{state: map[string]string{}}
	rows, err := db.QueryContext(ctx, `SELECT origin, destination, CAST(date AS DATE), COUNT(*), SUM(distance)::BIGINT,
		COALESCE(SUM(delay), 0)::BIGINT, COUNT(delay), COUNT(CASE WHEN delay < 15 THEN 1 END) FROM flights GROUP BY ALL`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var c flightCell
		if err := rows.Scan(&c.origin, &c.dest, &c.day, &c.count, &c.distance, &c.delaySum, &c.delayN, &c.onTime); err != nil {
			return nil, err
		}
		c.day = c.day.UTC()
		if r.first.IsZero() || c.day.Before(r.first) {
			r.first = c.day
		}
		r.cells = append(r.cells, c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, c := range r.cells { // first was not known while reading
		if d := int(c.day.Sub(r.first).Hours()/24) + 1; d > r.days {
			r.days = d
		}
	}
	ap, err := db.QueryContext(ctx, `SELECT iata, COALESCE(state, '') FROM airports`)
	if err != nil {
		return nil, err
	}
	defer ap.Close()
	for ap.Next() {
		var code, st string
		if err := ap.Scan(&code, &st); err != nil {
			return nil, err
		}
		r.state[code] = st
	}
	return r, ap.Err()
}

// A flights dimension: its query form, its answer column and its value
// for a cell.
type flightsDim struct {
	query  any
	column string
	typ    string
	of     func(r *flightsRef, c *flightCell) any
}

var (
	dimOriginState = flightsDim{"origin.state", "origin.state", "String", func(r *flightsRef, c *flightCell) any { return r.stateOf(c.origin) }}
	dimDestState   = flightsDim{"destination.state", "destination.state", "String", func(r *flightsRef, c *flightCell) any { return r.stateOf(c.dest) }}
	dimOrigin      = flightsDim{"flights.origin_code", "flights.origin_code", "String", func(_ *flightsRef, c *flightCell) any { return c.origin }}
	dimDest        = flightsDim{"flights.destination_code", "flights.destination_code", "String", func(_ *flightsRef, c *flightCell) any { return c.dest }}
	dimMonth       = flightsDim{map[string]string{"field": "flights.departure_time", "grain": "month"}, "flights.departure_time.month", "Date",
		func(_ *flightsRef, c *flightCell) any {
			return time.Date(c.day.Year(), c.day.Month(), 1, 0, 0, 0, 0, time.UTC)
		}}
	dimDay = flightsDim{map[string]string{"field": "flights.departure_time", "grain": "day"}, "flights.departure_time.day", "Date",
		func(_ *flightsRef, c *flightCell) any { return c.day }}
)

// stateOf is an airport's state, nil for an airport the table lacks or
// lists without one (the LEFT JOIN's NULL member).
func (r *flightsRef) stateOf(code string) any {
	if st, ok := r.state[code]; ok && st != "" {
		return st
	}
	return nil
}

// flightsMetrics are the metrics a question picks from, with their answer
// datatype and their value from summed cells.
var flightsMetrics = []struct {
	name, typ string
	of        func(s *flightCell) any
}{
	{"flight_count", "Integer", func(s *flightCell) any { return s.count }},
	{"total_distance", "Integer", func(s *flightCell) any { return s.distance }},
	{"on_time_flights", "Integer", func(s *flightCell) any { return s.onTime }},
	{"avg_delay", "Float", func(s *flightCell) any {
		if s.delayN == 0 {
			return nil
		}
		return float64(s.delaySum) / float64(s.delayN)
	}},
}

// flightsShapes are the question shapes: small answers (states, months,
// airports) and, marked large, tens of thousands of rows (routes by
// month), which the MCP tool's row cap cannot carry.
var flightsShapes = []struct {
	dims  []flightsDim
	large bool
}{
	{dims: []flightsDim{dimOriginState}},
	{dims: []flightsDim{dimDestState, dimMonth}},
	{dims: []flightsDim{dimOrigin}},
	{dims: []flightsDim{dimDay}},
	{dims: []flightsDim{dimOrigin, dimDest, dimMonth}, large: true},
}

// question is a flights question of shape (an index of flightsShapes)
// over the days [from, from+span) with the metrics picked by rnd, and its
// answer.
func (r *flightsRef) question(rnd *rand.Rand, shape, from, span int) dcase.Case {
	sh := flightsShapes[shape]
	var metrics []string
	var cols []dcase.ResultColumn
	var pick []int
	for i, m := range flightsMetrics {
		if i == 0 || rnd.Intn(2) == 0 {
			metrics, pick = append(metrics, m.name), append(pick, i)
		}
	}
	dims := make([]any, len(sh.dims))
	for i, d := range sh.dims {
		dims[i], cols = d.query, append(cols, dcase.ResultColumn{Name: d.column, Datatype: d.typ})
	}
	for _, i := range pick {
		cols = append(cols, dcase.ResultColumn{Name: flightsMetrics[i].name, Datatype: flightsMetrics[i].typ})
	}
	lo := r.first.AddDate(0, 0, from)
	hi := lo.AddDate(0, 0, span-1)
	q, _ := json.Marshal(map[string]any{"metrics": metrics, "dimensions": dims,
		"filters": []any{map[string]any{"field": "flights.departure_time", "op": "in_date_range",
			"values": []string{lo.Format(time.DateOnly), hi.Format(time.DateOnly)}}}})
	want := r.answer(sh.dims, pick, lo, hi)
	want.Columns = cols
	return dcase.Case{Name: fmt.Sprintf("flights shape %d days %d+%d", shape, from, span), ModelName: "flights",
		Query: q, Want: &want}
}

// answer adds up the cells of the days lo..hi (inclusive) per group of
// dims and gives each group's metrics picked.
func (r *flightsRef) answer(dims []flightsDim, pick []int, lo, hi time.Time) dcase.Result {
	groups := map[string]*flightCell{}
	keys := map[string][]any{}
	for i := range r.cells {
		c := &r.cells[i]
		if c.day.Before(lo) || c.day.After(hi) {
			continue
		}
		vals := make([]any, len(dims))
		for j, d := range dims {
			vals[j] = d.of(r, c)
		}
		k := fmt.Sprint(vals...)
		g := groups[k]
		if g == nil {
			g = &flightCell{}
			groups[k], keys[k] = g, vals
		}
		g.count += c.count
		g.distance += c.distance
		g.delaySum += c.delaySum
		g.delayN += c.delayN
		g.onTime += c.onTime
	}
	order := make([]string, 0, len(groups))
	for k := range groups {
		order = append(order, k)
	}
	sort.Strings(order)
	var res dcase.Result
	for _, k := range order {
		row := append([]any{}, keys[k]...)
		for _, i := range pick {
			row = append(row, flightsMetrics[i].of(groups[k]))
		}
		res.Rows = append(res.Rows, row)
	}
	return res
}
