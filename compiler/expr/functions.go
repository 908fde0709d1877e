package expr

import (
	"sort"
	"strings"
)

// FuncInfo describes one function of the Ossie expression language
// (apache/ossie core-spec/expression_language.md). Name is the canonical
// upper-case name; MinArgs/MaxArgs bound the argument count (MaxArgs -1 =
// variadic); Aggregate marks aggregate functions; Kind is one of
// "aggregate", "date", "string", "math", "conditional", "conversion"; Spec
// is the level the language gives it: "REQUIRED", "RECOMMENDED" or
// "EXPERIMENTAL"; Example is a call in Ossie SQL over columns a, b, s, d,
// ts and x (docs/engine-support.md renders it for every engine).
type FuncInfo struct {
	Name             string
	MinArgs, MaxArgs int
	Aggregate        bool
	Kind             string
	Spec             string
	Example          string
}

// catalog holds every accepted function by canonical name. COUNT(*) is
// COUNT with Star and no argument; PERCENTILE_CONT/DISC take the fraction as
// their one argument and the ordered value from WITHIN GROUP.
var catalog = map[string]FuncInfo{}

// aliases maps an accepted spelling to its canonical name.
var aliases = map[string]string{
	"CEILING":  "CEIL",
	"TRUNCATE": "TRUNC",
}

// Spec levels of the expression language.
const (
	Required     = "REQUIRED"
	Recommended  = "RECOMMENDED"
	Experimental = "EXPERIMENTAL"
)

func init() {
	type f struct {
		name     string
		min, max int
		example  string
	}
	add := func(kind, spec string, agg bool, fs ...f) {
		for _, x := range fs {
			catalog[x.name] = FuncInfo{Name: x.name, MinArgs: x.min, MaxArgs: x.max, Aggregate: agg, Kind: kind, Spec: spec, Example: x.example}
		}
	}
	add("aggregate", Required, true,
		f{"SUM", 1, 1, "SUM(x)"}, f{"COUNT", 1, 1, "COUNT(DISTINCT x)"}, f{"AVG", 1, 1, "AVG(x)"},
		f{"MIN", 1, 1, "MIN(x)"}, f{"MAX", 1, 1, "MAX(x)"},
		f{"STDDEV", 1, 1, "STDDEV(x)"}, f{"STDDEV_POP", 1, 1, "STDDEV_POP(x)"}, f{"STDDEV_SAMP", 1, 1, "STDDEV_SAMP(x)"},
		f{"VARIANCE", 1, 1, "VARIANCE(x)"}, f{"VAR_POP", 1, 1, "VAR_POP(x)"}, f{"VAR_SAMP", 1, 1, "VAR_SAMP(x)"},
		f{"MEDIAN", 1, 1, "MEDIAN(x)"},
		f{"PERCENTILE_CONT", 1, 1, "PERCENTILE_CONT(0.9) WITHIN GROUP (ORDER BY x)"},
		f{"PERCENTILE_DISC", 1, 1, "PERCENTILE_DISC(0.9) WITHIN GROUP (ORDER BY x)"})
	add("aggregate", Recommended, true,
		f{"APPROX_COUNT_DISTINCT", 1, 1, "APPROX_COUNT_DISTINCT(x)"}, f{"APPROX_PERCENTILE", 2, 2, "APPROX_PERCENTILE(x, 0.9)"})

	add("date", Required, false,
		f{"CURRENT_DATE", 0, 0, "CURRENT_DATE"}, f{"CURRENT_TIMESTAMP", 0, 0, "CURRENT_TIMESTAMP()"}, f{"CURRENT_TIME", 0, 0, "CURRENT_TIME"},
		f{"YEAR", 1, 1, "YEAR(d)"}, f{"QUARTER", 1, 1, "QUARTER(d)"}, f{"MONTH", 1, 1, "MONTH(d)"}, f{"DAY", 1, 1, "DAY(d)"},
		f{"DAYOFYEAR", 1, 1, "DAYOFYEAR(d)"}, f{"HOUR", 1, 1, "HOUR(ts)"}, f{"MINUTE", 1, 1, "MINUTE(ts)"}, f{"SECOND", 1, 1, "SECOND(ts)"},
		f{"EXTRACT", 2, 2, "EXTRACT(DAYOFWEEK FROM d)"}, f{"DATE_PART", 2, 2, "DATE_PART('millisecond', ts)"},
		f{"DATE_TRUNC", 2, 2, "DATE_TRUNC('week', d)"}, f{"DATEADD", 3, 3, "DATEADD(month, 1, d)"}, f{"DATEDIFF", 3, 3, "DATEDIFF(month, d, ts)"},
		f{"TO_DATE", 1, 2, "TO_DATE(s)"}, f{"TO_TIMESTAMP", 1, 2, "TO_TIMESTAMP(s)"})
	add("date", Experimental, false, f{"TO_CHAR", 2, 2, "TO_CHAR(d, '%Y-%m')"})

	add("string", Required, false,
		f{"CONCAT", 1, -1, "CONCAT(s, a, b)"}, f{"LENGTH", 1, 1, "LENGTH(s)"}, f{"LOWER", 1, 1, "LOWER(s)"}, f{"UPPER", 1, 1, "UPPER(s)"},
		f{"TRIM", 1, 2, "TRIM(s)"}, f{"LTRIM", 1, 2, "LTRIM(s)"}, f{"RTRIM", 1, 2, "RTRIM(s)"},
		f{"LEFT", 2, 2, "LEFT(s, 3)"}, f{"RIGHT", 2, 2, "RIGHT(s, 3)"}, f{"SUBSTRING", 2, 3, "SUBSTRING(s, 2, 3)"},
		f{"REPLACE", 2, 3, "REPLACE(s, 'a', 'b')"}, f{"SPLIT_PART", 3, 3, "SPLIT_PART(s, ',', 2)"},
		f{"POSITION", 2, 2, "POSITION('a' IN s)"}, f{"CHARINDEX", 2, 3, "CHARINDEX('a', s)"},
		f{"CONTAINS", 2, 2, "CONTAINS(s, 'a')"}, f{"STARTSWITH", 2, 2, "STARTSWITH(s, 'a')"}, f{"ENDSWITH", 2, 2, "ENDSWITH(s, 'a')"},
		f{"REGEXP_LIKE", 2, 2, "REGEXP_LIKE(s, '^a.*')"})
	add("string", Recommended, false,
		f{"REGEXP_EXTRACT", 2, 3, "REGEXP_EXTRACT(s, 'a(b+)', 1)"}, f{"REGEXP_REPLACE", 3, 4, "REGEXP_REPLACE(s, 'a+', 'b')"},
		f{"REGEXP_COUNT", 2, 2, "REGEXP_COUNT(s, 'a')"})

	add("math", Required, false,
		f{"ABS", 1, 1, "ABS(x)"}, f{"ROUND", 1, 2, "ROUND(x, 2)"}, f{"FLOOR", 1, 1, "FLOOR(x)"}, f{"CEIL", 1, 1, "CEIL(x)"},
		f{"TRUNC", 1, 2, "TRUNC(x, 2)"}, f{"MOD", 2, 2, "MOD(a, b)"}, f{"SIGN", 1, 1, "SIGN(x)"},
		f{"POWER", 2, 2, "POWER(x, 2)"}, f{"SQRT", 1, 1, "SQRT(x)"}, f{"EXP", 1, 1, "EXP(x)"}, f{"LN", 1, 1, "LN(x)"},
		f{"LOG", 1, 2, "LOG(2, x)"}, f{"LOG10", 1, 1, "LOG10(x)"},
		f{"GREATEST", 1, -1, "GREATEST(a, b)"}, f{"LEAST", 1, -1, "LEAST(a, b)"})
	add("math", Recommended, false,
		f{"SIN", 1, 1, "SIN(x)"}, f{"COS", 1, 1, "COS(x)"}, f{"TAN", 1, 1, "TAN(x)"}, f{"ASIN", 1, 1, "ASIN(x)"},
		f{"ACOS", 1, 1, "ACOS(x)"}, f{"ATAN", 1, 1, "ATAN(x)"}, f{"ATAN2", 2, 2, "ATAN2(a, b)"},
		f{"RADIANS", 1, 1, "RADIANS(x)"}, f{"DEGREES", 1, 1, "DEGREES(x)"}, f{"PI", 0, 0, "PI()"})

	add("conditional", Required, false,
		f{"COALESCE", 1, -1, "COALESCE(a, b, 0)"}, f{"NULLIF", 2, 2, "NULLIF(a, b)"},
		f{"IF", 3, 3, "IF(a > b, a, b)"}, f{"IFF", 3, 3, "IFF(a > b, a, b)"},
		f{"IFNULL", 2, 2, "IFNULL(a, b)"}, f{"NVL", 2, 2, "NVL(a, b)"}, f{"NVL2", 3, 3, "NVL2(a, 1, 0)"},
		f{"ZEROIFNULL", 1, 1, "ZEROIFNULL(a)"}, f{"NULLIFZERO", 1, 1, "NULLIFZERO(a)"})
}

// Functions returns every catalogue entry, sorted by Kind and then Name.
func Functions() []FuncInfo {
	out := make([]FuncInfo, 0, len(catalog))
	for _, fi := range catalog {
		out = append(out, fi)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return out[i].Kind < out[j].Kind
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// distinctAggregates are the aggregates that take DISTINCT (the language
// defines it for SUM and COUNT; AVG, MIN and MAX mean the same on every
// engine). Holistic and approximate ones refuse it.
var distinctAggregates = map[string]bool{"COUNT": true, "SUM": true, "AVG": true, "MIN": true, "MAX": true}

// Lookup returns the catalog entry for name (case-insensitive; aliases such
// as CEILING and TRUNCATE resolve to their canonical entry).
func Lookup(name string) (FuncInfo, bool) {
	n := strings.ToUpper(name)
	if c, ok := aliases[n]; ok {
		n = c
	}
	fi, ok := catalog[n]
	return fi, ok
}

// IsAggregate reports whether n contains a call to an aggregate function
// anywhere in its tree.
func IsAggregate(n Node) bool {
	found := false
	Walk(n, func(x Node) bool {
		if found {
			return false
		}
		if f, ok := deref(x).(Func); ok {
			if fi, ok := Lookup(f.Name); ok && fi.Aggregate {
				found = true
				return false
			}
		}
		return true
	})
	return found
}

// DateParts are the date/time parts accepted by EXTRACT, DATE_PART,
// DATE_TRUNC, DATEADD and DATEDIFF (OSSIE.md, expression language).
var DateParts = []string{"YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "DAYOFWEEK",
	"DAYOFYEAR", "HOUR", "MINUTE", "SECOND", "MILLISECOND"}

// TruncParts are the parts DATE_TRUNC accepts: a day of the week or of the
// year is not a unit to truncate to.
var TruncParts = []string{"YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "HOUR", "MINUTE", "SECOND", "MILLISECOND"}

func isDatePart(s string) bool {
	u := strings.ToUpper(s)
	for _, p := range DateParts {
		if p == u {
			return true
		}
	}
	return false
}

// datePartArg is the index of the date-part argument of a function, or -1.
func datePartArg(name string) int {
	switch name {
	case "EXTRACT", "DATE_PART", "DATE_TRUNC", "DATEADD", "DATEDIFF":
		return 0
	}
	return -1
}

// suggestFunc returns the catalog name closest to name when it is within a
// small edit distance, for did-you-mean messages; "" when none is close.
func suggestFunc(name string) string {
	u := strings.ToUpper(name)
	names := make([]string, 0, len(catalog)+len(aliases))
	for n := range catalog {
		names = append(names, n)
	}
	for n := range aliases {
		names = append(names, n)
	}
	sort.Strings(names) // deterministic choice among equal distances
	best, bestD := "", 3
	if len(u) <= 4 {
		bestD = 2
	}
	for _, n := range names {
		if d := editDistance(u, n); d < bestD {
			best, bestD = n, d
		}
	}
	if c, ok := aliases[best]; ok {
		return c
	}
	return best
}

// editDistance is the Levenshtein distance between a and b (bytes; names
// are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
