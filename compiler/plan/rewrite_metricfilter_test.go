package plan

import "testing"

func TestFilterMetrics(t *testing.T) {
	p := shopPlanner(t, false)
	root := planOf(t, p, `{"metrics":["order_count"],"dimensions":["customers.region"],"filters":[{"metric":"revenue","op":"gt","values":[10]}]}`, nil)
	s, ok := root.(*sortNode)
	if !ok {
		t.Fatalf("root %T, want the sort", root)
	}
	f, ok := s.input.(*filter)
	if !ok || len(f.metrics) != 1 || f.metrics[0].metric != "revenue" || len(f.dims) != 0 || f.madeBy() != rwMetricWhere {
		t.Fatalf("want a metric filter under the sort, got %T %+v", s.input, s.input)
	}
	proj, ok := f.input.(*project)
	if !ok {
		t.Fatalf("the metric filter reads the projection, got %T", f.input)
	}
	var hidden []string
	for _, m := range proj.metrics {
		if !m.visible {
			hidden = append(hidden, m.name)
		}
	}
	if len(hidden) != 1 || hidden[0] != "revenue" {
		t.Fatalf("revenue is computed but hidden: %v", hidden)
	}

	root = planOf(t, p, `{"metrics":["order_count"],"filters":[{"field":"orders.status","op":"=","values":["x"]}]}`, nil)
	if _, ok := root.(*project); !ok {
		t.Fatalf("no metric filter, order or limit: root %T, want the projection", root)
	}
}
