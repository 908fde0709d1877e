package main

import "github.com/ossie-dev/ossie/compiler/plan"

// question is one business question and the metric query that answers it.
type question struct {
	Title string
	Query plan.Query
	// Note, when set, is printed under the answer.
	Note string
}

// questions are the answers `make demo` prints. Each is an ordinary query
// body, the same JSON a client would POST to /v1/models/flights/query.
func questions() []question {
	return []question{
		{
			Title: "Which origin states have the most departures? (top 10)",
			Query: plan.Query{
				Metrics:    []string{"flight_count", "avg_distance", "avg_delay"},
				Dimensions: []plan.Dimension{{Field: "origin.state"}},
				OrderBy:    []plan.Order{{Key: "flight_count", Dir: "desc"}},
				Limit:      intp(10),
			},
		},
		{
			Title: "How many flights per month, and how punctual were they?",
			Query: plan.Query{
				Metrics:    []string{"flight_count", "avg_delay", "on_time_rate"},
				Dimensions: []plan.Dimension{{Field: "flights.departure_time", Grain: "month"}},
				OrderBy:    []plan.Order{{Key: "flights.departure_time.month"}},
			},
			Note: "On the full data a seventh month appears with a handful of flights: flights scheduled late on\n" +
				"30 June that departed at or after midnight are dated 1 July (departure_time is the actual departure).",
		},
		{
			Title: "Where do arriving flights land on time? (destination states with at least 100 arrivals, best 10)",
			Query: plan.Query{
				Metrics:    []string{"on_time_rate", "on_time_flights", "flight_count"},
				Dimensions: []plan.Dimension{{Field: "destination.state"}},
				Filters:    []plan.Filter{{Metric: "flight_count", Op: "gte", Values: []any{100}}},
				OrderBy:    []plan.Order{{Key: "on_time_rate", Dir: "desc"}},
				Limit:      intp(10),
			},
		},
		{
			Title: "Busiest state-to-state routes, origin and destination airports as two roles (top 5)",
			Query: plan.Query{
				Metrics:    []string{"flight_count", "total_distance", "delayed_flights"},
				Dimensions: []plan.Dimension{{Field: "origin.state"}, {Field: "destination.state"}},
				OrderBy:    []plan.Order{{Key: "flight_count", Dir: "desc"}},
				Limit:      intp(5),
			},
		},
	}
}

func intp(n int) *int { return &n }
