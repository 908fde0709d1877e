package chart_test

import (
	"strings"
	"testing"
)

// TestValuesSchemaRejectsBadValues renders the chart with one bad value at a
// time: values.schema.json (or, for combinations a schema cannot express,
// a template check) must refuse it with a message naming the value.
func TestValuesSchemaRejectsBadValues(t *testing.T) {
	cases := []struct {
		name string
		vals map[string]any
		want string // in the error
	}{
		{"unknown engine", map[string]any{"engine": map[string]any{"kind": "mysql"}}, "/engine/kind"},
		{"misspelt top-level key", map[string]any{"servr": map[string]any{"replicas": 2}}, "servr"},
		{"misspelt nested key", map[string]any{"operator": map[string]any{"replica": 2}}, "replica"},
		{"negative replicas", map[string]any{"operator": map[string]any{"replicas": -1}}, "/operator/replicas"},
		{"replicas as text", map[string]any{"server": map[string]any{"replicas": "two"}}, "/server/replicas"},
		{"resync not a duration", map[string]any{"operator": map[string]any{"resync": "5 minutes"}}, "/operator/resync"},
		{"artifact over 1 MiB", map[string]any{"operator": map[string]any{"maxArtifactBytes": 2 << 20}}, "/operator/maxArtifactBytes"},
		{"bad namespace name", map[string]any{"watchNamespaces": []any{"Team_A"}}, "/watchNamespaces/0"},
		{"duplicate namespace", map[string]any{"watchNamespaces": []any{"a", "a"}}, "/watchNamespaces"},
		{"unknown log level", map[string]any{"operator": map[string]any{"logLevel": "trace"}}, "/operator/logLevel"},
		{"port out of range", map[string]any{"server": map[string]any{"port": 70000}}, "/server/port"},
		{"SQL port out of range", map[string]any{"server": map[string]any{"sql": map[string]any{"port": 0}}}, "/server/sql/port"},
		{"empty secret key", map[string]any{"engine": map[string]any{"dsnSecret": map[string]any{"name": "db", "key": ""}}}, "/engine/dsnSecret/key"},
		{"bad pull policy", map[string]any{"image": map[string]any{"pullPolicy": "Sometimes"}}, "/image/pullPolicy"},
		{"bad digest", map[string]any{"image": map[string]any{"digest": "latest"}}, "/image/digest"},
		{"PDB percentage without %", map[string]any{"server": map[string]any{"podDisruptionBudget": map[string]any{"maxUnavailable": "half"}}}, "maxUnavailable"},
		{"unknown anonymous role shape", map[string]any{"server": map[string]any{"auth": map[string]any{"anonymousRoles": []any{"Bad Role"}}}}, "/server/auth/anonymousRoles/0"},
		// Template checks (ossie.validate in _helpers.tpl).
		{"server without authentication", map[string]any{"server": map[string]any{"auth": map[string]any{"tokensSecret": map[string]any{"name": ""}}}}, "server.auth"},
		{"noAuth with tokens", map[string]any{"server": map[string]any{"auth": map[string]any{"noAuth": true}}}, "noAuth excludes"},
		{"trino without DSN Secret", map[string]any{"engine": map[string]any{"kind": "trino"}}, "engine.dsnSecret.name"},
		{"password Secret for trino", map[string]any{"engine": map[string]any{"kind": "trino", "dsnSecret": map[string]any{"name": "t"}, "passwordSecret": map[string]any{"name": "p"}}}, "postgres only"},
		{"postgres without DSN Secret", map[string]any{"engine": map[string]any{"kind": "postgres"}}, "engine.dsnSecret.name"},
		{"standbys without leader election", map[string]any{"operator": map[string]any{"replicas": 2, "leaderElection": map[string]any{"enabled": false}}}, "leaderElection"},
		{"PDB with both bounds", map[string]any{"server": map[string]any{"podDisruptionBudget": map[string]any{"minAvailable": 1, "maxUnavailable": 1}}}, "podDisruptionBudget"},
	}
	c := loadChart(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := render(c, releaseNamespace, merge(minimalValues, tc.vals))
			if err == nil {
				t.Fatalf("accepted %v", tc.vals)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error does not name %q:\n%v", tc.want, err)
			}
		})
	}
}

// TestValuesSchemaAcceptsGoodValues: the value sets of the other tests and
// the chart's own defaults pass the schema.
func TestValuesSchemaAcceptsGoodValues(t *testing.T) {
	c := loadChart(t)
	for _, vs := range valueSets {
		if _, err := render(c, vs.namespace, vs.vals); err != nil {
			t.Errorf("%s: %v", vs.name, err)
		}
	}
}

// merge returns base with over laid on top, recursively (over wins).
func merge(base, over map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		if bm, ok := out[k].(map[string]any); ok {
			if om, ok := v.(map[string]any); ok {
				out[k] = merge(bm, om)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// TestNotesTellHowToStart: NOTES.txt names the namespace watched, how to
// apply the example model and how to reach the server with a token.
func TestNotesTellHowToStart(t *testing.T) {
	r := mustRender(t, releaseNamespace, minimalValues)
	for _, want := range []string{
		"reconciles SemanticModels in: ossie-system",
		"kubectl apply -n ossie-system -f https://raw.githubusercontent.com/ossie-dev/ossie/v0.1.0/examples/flights/semanticmodel.yaml",
		"svc/ossie-server 8080:80",
		`Authorization: Bearer $TOKEN`,
		"/v1/models/flights/query",
	} {
		if !strings.Contains(r.notes, want) {
			t.Errorf("NOTES.txt lacks %q:\n%s", want, r.notes)
		}
	}
}
