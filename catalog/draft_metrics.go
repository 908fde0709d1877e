package catalog

import (
	"regexp"
	"strings"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/compiler/expr"
)

// maxSumsPerDataset bounds the SUM metrics drafted for one dataset, so a
// table of thousands of numeric columns drafts a handful, not thousands.
const maxSumsPerDataset = 4

// draftNote ends every drafted metric's description: the author decides
// whether the number means something.
const draftNote = "Drafted by ossiectl init from the catalog: check that it means what its name says."

// notAdditive matches numeric column names whose sum means nothing:
// identifiers and codes (id, customer_id, customerId, order_key, zip),
// coordinates (latitude, lon, lng, geo_lat), and calendar parts (year,
// month, day, hour, week, quarter), rates and ratios, ages and ranks,
// version and sequence numbers. Matched on the field name, lower-cased,
// with camelCase split by an underscore.
var notAdditive = regexp.MustCompile(`(^|_)(id|ids|uuid|guid|key|sk|fk|pk|code|zip|zipcode|postcode|postal|lat|latitude|lon|lng|long|longitude|geo|x|y|year|yr|month|day|dow|hour|minute|second|week|quarter|rate|ratio|pct|percent|percentage|age|rank|version|seq|sequence|no|number|phone|index|idx)(_|$)`)

// additive: a numeric field whose name does not say it is an identifier,
// a coordinate or another quantity that is never summed.
func additive(fieldName string) bool {
	return !notAdditive.MatchString(snakeCamel(fieldName))
}

// snakeCamel lower-cases name, putting an underscore before each
// upper-case letter that follows a lower-case letter or a digit
// (customerId -> customer_id).
func snakeCamel(name string) string {
	var b strings.Builder
	for i, r := range name {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				p := name[i-1]
				if (p >= 'a' && p <= 'z') || (p >= '0' && p <= '9') {
					b.WriteByte('_')
				}
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// draftMetrics proposes the metrics of ds that certainly validate: the
// row count COUNT(ds.pk) when the primary key is one field (a key column
// is never null, so it counts rows; COUNT(*) names no dataset and would
// fail OSS2009), and SUM(ds.field) over up to maxSumsPerDataset numeric
// fields outside the keys (candidates, measureCandidates) whose names are
// additive. Names come from names, unique in the model: total_<field>,
// or total_<dataset>_<field> when shared(field) says another dataset has
// a candidate of that name.
func draftMetrics(ds ossie.Dataset, candidates []string, names nameSet, shared func(field string) bool) []ossie.Metric {
	var out []ossie.Metric
	metric := func(want string, fn, field string, dt ossie.Datatype, desc string) {
		call := expr.Func{Name: fn, Args: []expr.Node{expr.Ref{Qualifier: ds.Name, Name: field}}}
		out = append(out, ossie.Metric{
			Name:        names.take(want),
			Expression:  ossie.Expression{Dialects: []ossie.DialectExpression{{Dialect: ossie.OssieSQL2026, Expression: expr.Format(call)}}},
			Datatype:    dt,
			Description: desc + " " + draftNote,
		})
	}
	if len(ds.PrimaryKey) == 1 {
		metric(truncate(ds.Name, maxNameLen-len("_count"))+"_count", "COUNT", ds.PrimaryKey[0], ossie.TypeInteger, "Number of "+ds.Name+" rows.")
	}
	sums := 0
	for _, c := range candidates {
		field := strings.TrimPrefix(c, ds.Name+".")
		if sums == maxSumsPerDataset || !additive(field) {
			continue
		}
		var dt ossie.Datatype
		for _, f := range ds.Fields {
			if f.Name == field {
				dt = f.Datatype
			}
		}
		want := "total_" + field
		switch {
		case shared(field):
			want = "total_" + ds.Name + "_" + field
		case strings.HasPrefix(snakeCamel(field), "total"):
			want = field // total_amount, not total_total_amount
		}
		metric(truncate(want, maxNameLen), "SUM", field, dt, "Sum of "+ds.Name+"."+field+".")
		sums++
	}
	return out
}
