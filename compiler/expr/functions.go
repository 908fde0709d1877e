package expr

import (
	"sort"
	"strings"
)

// FuncInfo describes one function of the Ossie expression language
// (apache/ossie core-spec/expression_language.md, REQUIRED and RECOMMENDED
// sets). Name is the canonical upper-case name; MinArgs/MaxArgs bound the
// argument count (MaxArgs -1 = variadic); Aggregate marks aggregate
// functions; Kind is one of "aggregate", "date", "string", "math",
// "conditional", "conversion".
type FuncInfo struct {
	Name             string
	MinArgs, MaxArgs int
	Aggregate        bool
	Kind             string
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

func init() {
	add := func(kind string, agg bool, min, max int, names ...string) {
		for _, n := range names {
			catalog[n] = FuncInfo{Name: n, MinArgs: min, MaxArgs: max, Aggregate: agg, Kind: kind}
		}
	}
	add("aggregate", true, 1, 1, "SUM", "COUNT", "AVG", "MIN", "MAX",
		"STDDEV", "STDDEV_POP", "STDDEV_SAMP", "VARIANCE", "VAR_POP", "VAR_SAMP",
		"MEDIAN", "PERCENTILE_CONT", "PERCENTILE_DISC", "APPROX_COUNT_DISTINCT")
	add("aggregate", true, 2, 2, "APPROX_PERCENTILE")

	add("date", false, 0, 0, "CURRENT_DATE", "CURRENT_TIMESTAMP", "CURRENT_TIME")
	add("date", false, 1, 1, "YEAR", "QUARTER", "MONTH", "DAY", "DAYOFYEAR", "HOUR", "MINUTE", "SECOND")
	add("date", false, 2, 2, "EXTRACT", "DATE_PART", "DATE_TRUNC")
	add("date", false, 3, 3, "DATEADD", "DATEDIFF")
	add("date", false, 1, 2, "TO_DATE", "TO_TIMESTAMP")

	add("string", false, 1, -1, "CONCAT")
	add("string", false, 1, 1, "LENGTH", "LOWER", "UPPER")
	add("string", false, 1, 2, "TRIM", "LTRIM", "RTRIM")
	add("string", false, 2, 2, "LEFT", "RIGHT", "POSITION", "CONTAINS", "STARTSWITH", "ENDSWITH")
	add("string", false, 2, 3, "SUBSTRING", "REPLACE", "CHARINDEX", "REGEXP_LIKE", "REGEXP_EXTRACT")
	add("string", false, 3, 3, "SPLIT_PART")
	add("string", false, 3, 4, "REGEXP_REPLACE")

	add("math", false, 1, 1, "ABS", "FLOOR", "CEIL", "SIGN", "SQRT", "EXP", "LN", "LOG10")
	add("math", false, 1, 2, "ROUND", "TRUNC", "LOG")
	add("math", false, 2, 2, "MOD", "POWER")

	add("conditional", false, 1, -1, "COALESCE", "GREATEST", "LEAST")
	add("conditional", false, 2, 2, "NULLIF")
	add("conditional", false, 3, 3, "IF", "IFF")
}

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
