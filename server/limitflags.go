package server

import (
	"errors"
	"flag"
	"strings"
)

// Register defines the load and query-size flags of cmd/server, `ossiectl
// serve` and `ossiectl mcp` on fs, filling l (pflag users add them with
// AddGoFlagSet). 0 keeps a field's default (DefaultLimits; the
// concurrency defaults follow the engine's pool, see Limits).
func (l *Limits) Register(fs *flag.FlagSet) {
	fs.IntVar(&l.MaxInFlight, "max-in-flight", 0, "engine queries running at once (0: the engine's connection pool size - 1, so /readyz keeps a connection; 4 without a pool)")
	fs.IntVar(&l.MaxQueued, "max-queued", 0, "queries waiting for a slot; one more is 429 OSS5010 with Retry-After (0: 2 x --max-in-flight)")
	fs.DurationVar(&l.QueueWait, "queue-wait", DefaultLimits.QueueWait, "how long a query waits for a slot before 429 OSS5010")
	fs.IntVar(&l.PerCaller, "max-per-caller", 0, "queries one authenticated caller may have running or waiting (0: --max-in-flight / 2, at least 1)")
	fs.IntVar(&l.MaxMetrics, "max-metrics", DefaultLimits.MaxMetrics, "metrics in one query (more: 400 OSS4020)")
	fs.IntVar(&l.MaxDimensions, "max-dimensions", DefaultLimits.MaxDimensions, "dimensions in one query (more: 400 OSS4020)")
	fs.IntVar(&l.MaxFilters, "max-filters", DefaultLimits.MaxFilters, "filters in one query (more: 400 OSS4020)")
	fs.IntVar(&l.MaxFilterValues, "max-filter-values", DefaultLimits.MaxFilterValues, "values in one filter (more: 400 OSS4020)")
	fs.IntVar(&l.MaxOrderKeys, "max-order-keys", DefaultLimits.MaxOrderKeys, "order keys in one query (more: 400 OSS4020)")
}

// Check refuses negative limits, naming every such flag; its error is a
// usage error.
func (l *Limits) Check() error {
	var bad []string
	for _, f := range []struct {
		name string
		v    int
	}{{"--max-in-flight", l.MaxInFlight}, {"--max-queued", l.MaxQueued}, {"--max-per-caller", l.PerCaller},
		{"--max-metrics", l.MaxMetrics}, {"--max-dimensions", l.MaxDimensions}, {"--max-filters", l.MaxFilters},
		{"--max-filter-values", l.MaxFilterValues}, {"--max-order-keys", l.MaxOrderKeys}} {
		if f.v < 0 {
			bad = append(bad, f.name)
		}
	}
	if l.QueueWait < 0 {
		bad = append(bad, "--queue-wait")
	}
	if len(bad) > 0 {
		return errors.New(strings.Join(bad, ", ") + " must not be negative (0 keeps the default)")
	}
	return nil
}
