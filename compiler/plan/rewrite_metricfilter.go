package plan

// filterMetrics implements metric filters: "a filter naming a metric
// applies after aggregation, to the metric's value at the query grain"
// (query-semantics.md, Decisions: unselected metrics are computed as
// hidden columns and may be used in metric filters). It fires when the
// query has at least one filter naming a metric, and puts a filter over
// the projection; its predicates read the projected metric columns.
func (bl *builder) filterMetrics(in node) node {
	if len(bl.b.having) == 0 {
		return in
	}
	return &filter{origin: origin{rwMetricWhere}, input: in, metrics: bl.b.having}
}
