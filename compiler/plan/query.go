// Package plan turns a metric query into SQL for one dialect, following the
// query semantics of DESIGN.md section 5: each metric is aggregated at its
// own dataset, dimensions are reached by LEFT JOINs along many-to-one
// relationships (exact primary-key deduplication across one-to-many hops),
// and per-dataset results are combined NULL-safely on the dimensions.
package plan

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/ossie-dev/ossie/compiler"
)

// Query is the Cube-style query body, JSON:
//
//	{"metrics": ["flight_count"],
//	 "dimensions": ["origin.state", {"field": "flights.date", "grain": "month"}],
//	 "filters": [{"field": "origin.state", "op": "in", "values": ["CA", "NY"]},
//	             {"metric": "flight_count", "op": "gt", "values": [100]}],
//	 "order_by": [{"key": "flight_count", "dir": "desc"}],
//	 "limit": 10, "offset": 0, "timezone": "America/New_York"}
//
// Without metrics the query returns the distinct members of its dimensions
// (filters, row filters, order and limit apply), present in the rows of
// one dataset ("through": "orders", or chosen by the planner): OSS4001
// when it names neither metrics nor dimensions.
type Query struct {
	Metrics    []string    `json:"metrics"`
	Dimensions []Dimension `json:"dimensions,omitempty"`
	Filters    []Filter    `json:"filters,omitempty"`
	OrderBy    []Order     `json:"order_by,omitempty"`
	// Limit caps the rows returned; nil means no limit (the server still
	// applies its row cap and reports truncation).
	Limit  *int `json:"limit,omitempty"`
	Offset int  `json:"offset,omitempty"`
	// Timezone is an IANA zone name; "" means UTC. Time buckets and relative
	// date ranges are computed in it.
	Timezone string `json:"timezone,omitempty"`
	// Through names whose rows a query without metrics lists: the
	// members of its dimensions present in the rows of that dataset,
	// which must reach every dataset the dimensions and filters read by
	// many-to-one relationships (OSS4012). Without it the planner picks
	// the dataset (rewrite_members_fact.go); with metrics it is OSS4001.
	Through string `json:"through,omitempty"`
	// Explain asks the plan endpoint (POST /v1/models/{model}/sql) for the
	// logical plan too (Plan.Explain). Planning does not read it; the query
	// endpoint refuses it.
	Explain bool `json:"explain,omitempty"`

	// perPeriod plans typed metrics as their per-period values, without
	// the window: the finer-grain values a rolling window that is not a
	// whole number of periods sums (render_window.go, fineCTE).
	perPeriod bool
	// numbered: the answer also carries each row's position in the
	// query's order (a branch of a compared query, compare.go).
	numbered bool
}

// Dimension is a group-by member: `dataset.field`, optionally truncated to
// a time grain (hour, day, week, month, quarter, year). WeekStart "sunday"
// shifts week buckets to Sunday..Saturday; default is ISO (Monday). A
// WeekStart on any other grain, or without one, is OSS4004 ("monday"
// too: a field the answer would not read is refused, never ignored).
// JSON: either the string "dataset.field" or {"field", "grain", "week_start"}.
//
// Via names the relationship to join the member's dataset along where the
// model joins it by several many-to-one paths (parallel relationships such
// as order date and ship date to one calendar): {"field":
// "calendar.month", "via": "orders_ship_date"}. Without it a metric's
// pinned via is used, else the query is refused with OSS4011.
//
// CompareDateRange, on one time dimension of the query, answers the query
// once per date range (Cube's compareDateRange): each range is [start,
// end] as in_date_range takes it, or one relative range ("last month").
// The rows of every range are returned together, in the order of the
// ranges, with a first column "compare_date_range" holding the range as
// "start - end" (relative ranges resolved); without a grain the dimension
// only picks the ranges and is not a column. 2 to 12 ranges; problems are
// OSS4064 at dimensions[i].compare_date_range[j]. The JSON key is
// "compare_date_range"; Cube's spelling "compareDateRange" is accepted.
type Dimension struct {
	Field            string `json:"field"`
	Grain            string `json:"grain,omitempty"`
	WeekStart        string `json:"week_start,omitempty"`
	Via              string `json:"via,omitempty"`
	CompareDateRange []any  `json:"compare_date_range,omitempty"`
}

// UnmarshalJSON accepts a string or an object (unknown keys refused).
func (d *Dimension) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*d = Dimension{Field: s}
		return nil
	}
	type plain Dimension
	var p struct {
		plain
		CubeCompare []any `json:"compareDateRange,omitempty"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(&p); err != nil {
		return err
	}
	if p.CubeCompare != nil {
		if p.CompareDateRange != nil {
			return errors.New("compare_date_range and compareDateRange are the same key; give one")
		}
		p.CompareDateRange = p.CubeCompare
	}
	*d = Dimension(p.plain)
	return nil
}

// Name is the result column name: `dataset.field` or `dataset.field.grain`.
func (d Dimension) Name() string {
	if d.Grain == "" {
		return d.Field
	}
	return d.Field + "." + d.Grain
}

// Filter restricts rows. Exactly one of Field (a dimension, applied before
// aggregation) or Metric (applied after) is set. Op is one of:
// = (equals), != (not_equals), in, not_in, gt, gte, lt, lte, between,
// contains, starts_with, is_null, is_not_null, in_date_range.
// Values are JSON scalars; `value` is accepted for a single value (both
// at once is OSS4005). Grain, on a time dimension, compares the member
// truncated to that grain ({"field": "orders.ordered_at", "grain":
// "month", "op": "=", "value": "2024-02-01"} is February); Via chooses
// the dimension's join path. Both apply to dimension filters only: on a
// metric filter, which compares the metric's value in each row, Grain
// is OSS4004 and Via OSS4013.
// in_date_range takes [start, end] (a date end includes that whole day, a
// timestamp end is exact; `between` on a time field is the same range) or
// one relative range such as "last 7 days",
// "this month", "last quarter", "today", "yesterday".
type Filter struct {
	Field  string `json:"field,omitempty"`
	Metric string `json:"metric,omitempty"`
	Grain  string `json:"grain,omitempty"`
	Via    string `json:"via,omitempty"` // as Dimension.Via
	Op     string `json:"op"`
	Values []any  `json:"values,omitempty"`
	Value  any    `json:"value,omitempty"`
}

// Order sorts by a metric or dimension name (selected or not); Dir is
// "asc" (default) or "desc".
type Order struct {
	Key string `json:"key"`
	Dir string `json:"dir,omitempty"`
}

// Column describes one result column of a Plan.
type Column struct {
	Name     string `json:"name"`
	Kind     string `json:"kind"` // "dimension" or "metric"
	Datatype string `json:"datatype,omitempty"`
	Grain    string `json:"grain,omitempty"`
	// Timezone is the IANA zone a time dimension's values are wall time
	// in (the query zone) when a zone was applied: a DateTimeTz value, or
	// a naive DateTime read in StoredTimezone and converted.
	Timezone       string `json:"timezone,omitempty"`
	StoredTimezone string `json:"stored_timezone,omitempty"`
}

// Plan is planned SQL plus the columns it returns, in order. Explain
// prints the logical plan the SQL was rendered from.
type Plan struct {
	SQL          string   `json:"sql"`
	Columns      []Column `json:"columns"`
	ModelVersion string   `json:"model_version"`
	// Rollup names the rollup the plan reads instead of the base tables
	// (docs/rollups.md); "" when it reads the base tables.
	Rollup string `json:"rollup,omitempty"`

	tree    node         // the logical plan; nil on a Plan not made by a Planner
	rollups []rollupNote // per declared rollup, used or why not
}

// ParseQuery decodes a query body strictly (unknown keys, trailing data and
// wrong types are CodeBadQuery problems). A body over compiler.BodyLimits
// is refused before it is decoded (compiler.CheckBody, OSS1021).
func ParseQuery(data []byte) (*Query, compiler.Problems) {
	if p := compiler.CheckBody(data); p != nil {
		return nil, compiler.Problems{*p}
	}
	var q Query
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(&q); err != nil {
		return nil, compiler.Problems{{Code: compiler.CodeBadQuery, Severity: compiler.SeverityError, Message: "query body: " + err.Error()}}
	}
	if dec.More() {
		return nil, compiler.Problems{{Code: compiler.CodeBadQuery, Severity: compiler.SeverityError, Message: "query body: trailing data after the JSON object"}}
	}
	return &q, nil
}

// AllValues is the filter's values, Value first when it is set.
func (f Filter) AllValues() []any {
	if f.Value != nil {
		return append([]any{f.Value}, f.Values...)
	}
	return f.Values
}

// FilterOps are the filter operators in their canonical spelling, as
// normOp returns them; the aliases it also reads (eq, ne, >, notin,
// not_set, date_range, ...) map onto these.
var FilterOps = []string{"=", "!=", "in", "not_in", "gt", "gte", "lt", "lte", "between", "contains", "starts_with", "is_null", "is_not_null", "in_date_range"}

// opList is FilterOps for a message: "=, !=, in, ...".
func opList() string { return strings.Join(FilterOps, ", ") }

func normOp(op string) string {
	switch strings.ToLower(strings.TrimSpace(op)) {
	case "=", "==", "eq", "equals":
		return "="
	case "!=", "<>", "ne", "not_equals", "notequals":
		return "!="
	case ">", "gt":
		return "gt"
	case ">=", "gte":
		return "gte"
	case "<", "lt":
		return "lt"
	case "<=", "lte":
		return "lte"
	case "in":
		return "in"
	case "not_in", "notin", "not in":
		return "not_in"
	case "between":
		return "between"
	case "contains":
		return "contains"
	case "starts_with", "startswith":
		return "starts_with"
	case "is_null", "isnull", "not_set":
		return "is_null"
	case "is_not_null", "isnotnull", "set":
		return "is_not_null"
	case "in_date_range", "indaterange", "date_range":
		return "in_date_range"
	}
	return ""
}
