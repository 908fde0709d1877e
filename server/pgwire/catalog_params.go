package pgwire

import (
	"encoding/json"
	"strconv"

	pg_query "github.com/pganalyze/pg_query_go/v6"
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

// castParam declares the type of a parameter cast to a number or a
// boolean ($1::integer) as that type, as PostgreSQL infers it, so a
// driver that encodes by the described type (pgx) sends an integer
// rather than failing to encode it as text. Other casts leave the
// parameter text.
func castParam(params *paramSet, tc *pg_query.TypeCast) {
	p := tc.GetArg().GetParamRef()
	if p == nil || params == nil {
		return
	}
	switch oid, _ := castType(tc); oid {
	case oidInt2, oidInt4, oidInt8, oidBool:
		_, _ = params.value(int(p.GetNumber()), oid) // an out-of-range number is reported when the cast evaluates it
	}
}
