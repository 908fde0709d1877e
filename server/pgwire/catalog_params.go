package pgwire

import (
	"encoding/json"
	"strconv"
)

// catalogParam is a bound parameter as the catalog evaluator computes
// with it: a number parameter (decodeParam's json.Number, exact for the
// planner) becomes int64 when integral, else float64, the types catalog
// columns hold, so `attnum > $1::smallint` (SQLAlchemy's inspector binds
// its 0) casts and compares as a number.
func catalogParam(v any, err error) (any, error) {
	n, ok := v.(json.Number)
	if err != nil || !ok {
		return v, err
	}
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return i, nil
	}
	if f, err := strconv.ParseFloat(string(n), 64); err == nil {
		return f, nil
	}
	return string(n), nil
}
