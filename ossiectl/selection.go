package ossiectl

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ossie-dev/ossie/compiler/plan"
)

// selection holds the query flags shared by `sql` and `query`.
type selection struct {
	metrics    []string
	dimensions []string
	filters    []string
	orderBy    []string
	limit      int
	offset     int
	timezone   string
	through    string
	queryFile  string
	queryJSON  string
}

func (s *selection) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringSliceVar(&s.metrics, "metrics", nil, "metric names (comma-separated or repeated)")
	f.StringSliceVar(&s.dimensions, "dimensions", nil, "dimensions `dataset.field[:grain][@relationship]` (grain: hour, day, week, month, quarter, year; @relationship: the join path to use where the model has several, e.g. calendar.month@orders_ship_date)")
	f.StringArrayVar(&s.filters, "filter", nil, "filter, repeatable: `ds.f=CA`, `ds.f!=x`, `ds.f>=10`, `metric>100`, or `ds.f:OP[:V1,V2]` with OP in, not_in, between, contains, starts_with, is_null, is_not_null, in_date_range, gt, gte, lt, lte; `ds.f@relationship=...` chooses the join path")
	f.StringSliceVar(&s.orderBy, "order-by", nil, "sort keys `member[:asc|desc]`")
	f.IntVar(&s.limit, "limit", -1, "maximum rows (-1: no limit)")
	f.IntVar(&s.offset, "offset", 0, "rows to skip")
	f.StringVar(&s.timezone, "timezone", "", "IANA time zone for time buckets and relative ranges (default UTC)")
	f.StringVar(&s.through, "through", "", "without --metrics: the `dataset` whose rows' members to list, where the dimensions' datasets meet only in a fact (e.g. orders)")
	f.StringVar(&s.queryFile, "query-file", "", "read the query JSON from this file ('-' for stdin) instead of the flags above")
	f.StringVar(&s.queryJSON, "query", "", "the query as JSON instead of the flags above")
}

// build returns the query from --query / --query-file or from the
// selection flags. Mixing the two is a usage error; a malformed query is a
// problem (exit 1).
func (s *selection) build(e *env) (*plan.Query, error) {
	flagsUsed := len(s.metrics) > 0 || len(s.dimensions) > 0 || len(s.filters) > 0 || len(s.orderBy) > 0 ||
		s.limit >= 0 || s.offset != 0 || s.timezone != "" || s.through != ""
	if s.queryFile != "" && s.queryJSON != "" {
		return nil, usagef("use --query or --query-file, not both")
	}
	if s.queryFile != "" || s.queryJSON != "" {
		if flagsUsed {
			return nil, usagef("--query/--query-file replace --metrics, --dimensions, --filter, --order-by, --limit, --offset, --timezone and --through; do not mix them")
		}
		data := []byte(s.queryJSON)
		if s.queryFile != "" {
			var err error
			if data, err = e.readInput(s.queryFile); err != nil {
				return nil, failf("%v", err)
			}
		}
		q, probs := plan.ParseQuery(data)
		if probs.HasErrors() {
			printProblems(e.stderr, "query", probs)
			return nil, failed
		}
		return q, nil
	}
	if len(s.metrics) == 0 && len(s.dimensions) == 0 {
		// The planner's rule (OSS4001 "a query needs at least one metric
		// or dimension"), said before anything is read.
		return nil, usagef("a query needs at least one metric or dimension: name them with --metrics or --dimensions (dimensions alone list their distinct members), or pass --query/--query-file")
	}
	q := &plan.Query{Metrics: s.metrics, Offset: s.offset, Timezone: s.timezone, Through: s.through}
	if s.limit >= 0 {
		l := s.limit
		q.Limit = &l
	}
	for _, d := range s.dimensions {
		member, via, _ := strings.Cut(strings.TrimSpace(d), "@")
		field, grain, _ := strings.Cut(member, ":")
		q.Dimensions = append(q.Dimensions, plan.Dimension{Field: field, Grain: grain, Via: via})
	}
	for _, f := range s.filters {
		flt, err := parseFilter(f)
		if err != nil {
			return nil, usagef("--filter %q: %v", f, err)
		}
		q.Filters = append(q.Filters, flt)
	}
	for _, o := range s.orderBy {
		key, dir, _ := strings.Cut(strings.TrimSpace(o), ":")
		q.OrderBy = append(q.OrderBy, plan.Order{Key: key, Dir: dir})
	}
	return q, nil
}

// namedOps are the operators written as `member:op[:values]`.
var namedOps = map[string]bool{
	"in": true, "not_in": true, "between": true, "contains": true, "starts_with": true,
	"is_null": true, "is_not_null": true, "in_date_range": true,
	"gt": true, "gte": true, "lt": true, "lte": true, "equals": true, "not_equals": true,
}

// orderingOps compare by magnitude; their number-looking values are sent
// as JSON numbers. Elsewhere values stay strings (a zip code "01234" must
// not become 1234).
var orderingOps = map[string]bool{"gt": true, "gte": true, "lt": true, "lte": true, "between": true, ">": true, ">=": true, "<": true, "<=": true}

// jsonNumber is the JSON number grammar (no leading zeros).
var jsonNumber = regexp.MustCompile(`^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?$`)

// parseFilter reads `member OP value` (OP one of = != >= <= > <) or
// `member:op[:v1,v2,...]`. A member with a dot is a field (filtered before
// aggregation), without one a metric (after).
func parseFilter(s string) (plan.Filter, error) {
	var member, op string
	var values []string
	if name, rest, ok := strings.Cut(s, ":"); ok {
		o, vals, hasVals := strings.Cut(rest, ":")
		if namedOps[strings.ToLower(o)] {
			member, op = strings.TrimSpace(name), strings.ToLower(o)
			if hasVals {
				values = strings.Split(vals, ",")
			}
		}
	}
	if op == "" {
		i := strings.IndexAny(s, "=!<>")
		if i <= 0 {
			return plan.Filter{}, fmt.Errorf("want MEMBER=VALUE, MEMBER!=VALUE, MEMBER>=VALUE, ... or MEMBER:OP:VALUES")
		}
		member = strings.TrimSpace(s[:i])
		rest := s[i:]
		for _, cand := range []string{"!=", ">=", "<=", "=", ">", "<"} {
			if strings.HasPrefix(rest, cand) {
				op = cand
				values = []string{rest[len(cand):]}
				break
			}
		}
		if op == "" {
			return plan.Filter{}, fmt.Errorf("unknown operator in %q", rest)
		}
	}
	if member == "" {
		return plan.Filter{}, fmt.Errorf("no member before the operator")
	}
	f := plan.Filter{Op: op}
	member, f.Via, _ = strings.Cut(member, "@")
	isMetric := !strings.Contains(member, ".")
	if isMetric {
		f.Metric = member
	} else {
		f.Field = member
	}
	for _, v := range values {
		if (isMetric || orderingOps[op]) && jsonNumber.MatchString(v) {
			f.Values = append(f.Values, json.Number(v))
		} else {
			f.Values = append(f.Values, v)
		}
	}
	return f, nil
}
