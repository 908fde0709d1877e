package gen

import (
	"bytes"
	"strings"
	"testing"
)

// TestVariants: over the first seeds, version 4's variants occur — a
// bare aggregate in a model of several datasets, per as one field and as
// a list — and some queries ask a per-entity metric and get an answer.
func TestVariants(t *testing.T) {
	var bare, perOne, perList, asked int
	for seed := int64(1); seed <= 300; seed++ {
		g := GenerateWith(seed, Options{})
		m := g.Case.Model
		if bytes.Contains(m, []byte(`expression: "SUM(amount)"`)) || bytes.Contains(m, []byte(`expression: "SUM(qty)"`)) {
			bare++
		}
		if bytes.Contains(m, []byte(`\"per\":\"`)) {
			perOne++
		}
		if bytes.Contains(m, []byte(`\"per\":[`)) {
			perList++
		}
		for _, mt := range g.Model.Metrics {
			if mt.Type != nil && len(mt.Type.Per) > 0 && strings.Contains(string(g.Case.Query), `"`+mt.Name+`"`) && g.Err == nil {
				asked++
			}
		}
	}
	if bare == 0 || perOne == 0 || perList == 0 || asked < 5 {
		t.Fatalf("variants too rare: %d models with bare aggregates, %d with per as a field, %d as a list, %d answered queries of a per metric", bare, perOne, perList, asked)
	}
	t.Logf("%d models with bare aggregates, %d with per as a field, %d as a list, %d answered queries of a per metric", bare, perOne, perList, asked)
}
