package differential

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// The rollup cell's rollup covers every member the query reads: metrics,
// metric filters and metric sort keys as measures; dimensions and
// dimension filters as dimensions; the one grained dimension as the time
// dimension (by day for weeks from Sunday, which a rollup's Monday weeks
// cannot hold). Two grains cannot be one rollup's.
func TestRollupFor(t *testing.T) {
	r, err := RollupFor([]byte(`{"metrics":["a"],"dimensions":["fact.cat",{"field":"fact.at","grain":"month"}],
		"filters":[{"field":"d1.name","op":"=","values":["x"]},{"metric":"b","op":"gt","values":[1]}],
		"order_by":[{"key":"fact.at.month"},{"key":"c","dir":"desc"},{"key":"a"}],"total":true}`))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(r)
	want := `{"dimensions":["fact.cat","d1.name"],"measures":["a","b","c"],"name":"differential_rollup","time_dimension":{"field":"fact.at","grain":"month"},"version":1}`
	if string(got) != want {
		t.Errorf("rollup\n %s\nwant\n %s", got, want)
	}
	if _, err := RollupFor([]byte(`{"metrics":["a"],"dimensions":[{"field":"fact.at","grain":"month"},{"field":"fact.at","grain":"day"}]}`)); !errors.Is(err, ErrNotApplicable) {
		t.Errorf("two grains: %v", err)
	}
	r, err = RollupFor([]byte(`{"metrics":["a"],"dimensions":[{"field":"fact.at","grain":"week","week_start":"sunday"}]}`))
	if got, _ := json.Marshal(r["time_dimension"]); err != nil || string(got) != `{"field":"fact.at","grain":"day"}` {
		t.Errorf("weeks from Sunday: %s %v", got, err)
	}
	refused := "model.rollup.yaml:6:11: semantic_model[0].custom_extensions[0].data.rollups[0].measures[0]: error OSS2054: metric cat_distinct: " +
		"COUNT(DISTINCT fact.cat) is re-aggregatable only when it counts a field (without FILTER) that the rollup keeps as one of its dimensions"
	if f := countedField(refused); f != "fact.cat" || !addDimension(r, f) || addDimension(r, f) {
		t.Errorf("COUNT(DISTINCT fact.cat) refused: field %q, dimensions %v", f, r["dimensions"])
	}
	explain := "rollup differential_rollup: the caller's row filter on fact cannot be applied on the rollup's columns (it reads fact.flag, which the rollup does not keep as it is)"
	if f := rowFilterField(explain); f != "fact.flag" {
		t.Errorf("row filter reading fact.flag: %q", f)
	}
	if f := rowFilterField(strings.ReplaceAll(explain, "fact.flag", "d1.name")); f != "" {
		t.Errorf("row filter on fact reading d1.name: %q", f)
	}
	q, err := withoutKey([]byte(`{"metrics":["a"],"total":true}`), "total")
	if err != nil || string(q) != `{"metrics":["a"]}` {
		t.Errorf("without total: %s %v", q, err)
	}
}
