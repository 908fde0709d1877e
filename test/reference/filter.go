package reference

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// rfilter is a resolved dimension filter.
type rfilter struct {
	m      rdim
	op     string
	values []any
}

// normOp is the op's canonical spelling (plan.Filter's list).
func normOp(op string) string {
	switch strings.ToLower(op) {
	case "=", "==", "eq", "equals":
		return "="
	case "!=", "<>", "ne", "not_equals":
		return "!="
	}
	return strings.ToLower(op)
}

func (e *evaluator) resolveFilter(f Filter) (rfilter, error) {
	m, err := e.resolve(f.Field, "", "", f.Via)
	if err != nil {
		return rfilter{}, err
	}
	return rfilter{m: m, op: normOp(f.Op), values: f.Values}, nil
}

// admits is every filter true on the joined row.
func (e *evaluator) admits(c combo, fs []rfilter) bool {
	for _, f := range fs {
		ok, err := e.test(f, e.value(c, f.m))
		if err != nil || !ok {
			return false
		}
	}
	return true
}

// memberType is the datatype a member's values have in the query (String
// when masked).
func (e *evaluator) memberType(m rdim) string {
	if e.mask(m.ds+"."+m.field) != nil {
		return "String"
	}
	return e.datatype(m.ds, m.field)
}

// test is one filter on a value as the query sees it. NULL fails every
// comparison; a date end of a range includes that whole day, a timestamp
// end is exact (query-semantics.md, "between on a time field").
func (e *evaluator) test(f rfilter, v any) (bool, error) {
	switch f.op {
	case "is_null":
		return v == nil, nil
	case "is_not_null":
		return v != nil, nil
	}
	if v == nil {
		return false, nil
	}
	dt := e.memberType(f.m)
	vals := make([]any, len(f.values))
	var dates []bool
	for i, x := range f.values {
		cv, isDate, err := e.filterValue(dt, x)
		if err != nil {
			return false, err
		}
		vals[i] = cv
		dates = append(dates, isDate)
	}
	cmpTo := func(i int) int {
		c, _ := compare(v, vals[i])
		return c
	}
	eq := func(i int) bool {
		c, ok := compare(v, vals[i])
		return ok && c == 0
	}
	switch f.op {
	case "=":
		return eq(0), nil
	case "!=":
		return !eq(0), nil
	case "in", "not_in":
		for i := range vals {
			if eq(i) {
				return f.op == "in", nil
			}
		}
		return f.op == "not_in", nil
	case "gt":
		return cmpTo(0) > 0, nil
	case "gte":
		return cmpTo(0) >= 0, nil
	case "lt":
		return cmpTo(0) < 0, nil
	case "lte":
		return cmpTo(0) <= 0, nil
	case "between", "in_date_range":
		if len(vals) != 2 {
			return false, fmt.Errorf("%s needs two values", f.op)
		}
		if cmpTo(0) < 0 {
			return false, nil
		}
		if isTimeType(dt) && dates[1] {
			end := vals[1].(time.Time).AddDate(0, 0, 1)
			c, _ := compare(v, end)
			return c < 0, nil
		}
		return cmpTo(1) <= 0, nil
	case "contains":
		s, _ := v.(string)
		p, _ := vals[0].(string)
		return strings.Contains(strings.ToLower(s), strings.ToLower(p)), nil
	case "starts_with":
		s, _ := v.(string)
		p, _ := vals[0].(string)
		return strings.HasPrefix(s, p), nil
	}
	return false, fmt.Errorf("filter op %q not covered", f.op)
}

// filterValue converts a filter's JSON value to the member's kind.
func (e *evaluator) filterValue(dt string, x any) (any, bool, error) {
	switch {
	case isTimeType(dt):
		t, isDate, err := parseTimeValue(x, e.loc)
		return t, isDate, err
	case dt == "Boolean":
		switch v := x.(type) {
		case bool:
			return v, false, nil
		case string:
			return strings.EqualFold(v, "true"), false, nil
		}
	case dt == "String":
		switch v := x.(type) {
		case string:
			return v, false, nil
		case json.Number:
			return v.String(), false, nil
		}
	}
	return x, false, nil
}
