package ossiectl

import (
	"encoding/json"
	"strconv"

	"sigs.k8s.io/yaml"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/views"
)

// viewDialect is the dialect validate and manifest plan views in: the
// operator plans in its engine's dialect and in PostgreSQL's when it has
// no engine. Unknown or forbidden members, grains, filters, roles and
// relative dates are refused the same way in every dialect.
var viewDialect = dialect.Postgres

// checkViews plans views (the JSON of each entry) under their roles with
// the operator's code (compiler/views), against arts, the artifacts of
// the governed document. gov is the governance as YAML or JSON (nil when
// none). Problems have paths views[i]...; every problem is returned.
func checkViews(raw []json.RawMessage, gov []byte, arts []*compiler.Artifact) compiler.Problems {
	if len(raw) == 0 {
		return nil
	}
	spec := &v1alpha1.SemanticModelSpec{}
	var probs compiler.Problems
	for i, r := range raw {
		var v v1alpha1.View
		if err := json.Unmarshal(r, &v); err != nil {
			probs = append(probs, compiler.Problem{Code: compiler.CodeWrongType, Severity: compiler.SeverityError,
				Path: "views[" + strconv.Itoa(i) + "]", Message: "not a view: " + err.Error()})
			v = v1alpha1.View{Name: "?"}
		}
		spec.Views = append(spec.Views, v)
	}
	if len(gov) > 0 {
		js, err := yaml.YAMLToJSON(gov)
		if err == nil {
			g := &ossie.Governance{}
			if json.Unmarshal(js, g) == nil {
				spec.Governance = g
			}
		}
	}
	if probs.HasErrors() {
		return probs
	}
	_, vp := views.PlanSpec(spec, arts, viewDialect)
	return append(probs, vp...)
}

// viewList splits the JSON of a views list into its entries.
func viewList(list []byte) []json.RawMessage {
	var out []json.RawMessage
	if len(list) > 0 {
		_ = json.Unmarshal(list, &out)
	}
	return out
}

// viewRoleProblems checks only that each view's role is a role of gov,
// for when the document does not compile and views cannot be planned.
func viewRoleProblems(raw []json.RawMessage, gov []byte) compiler.Problems {
	roles := map[string]bool{}
	if js, err := yaml.YAMLToJSON(gov); err == nil {
		var g ossie.Governance
		if json.Unmarshal(js, &g) == nil {
			for _, r := range g.Roles {
				roles[r.Name] = true
			}
		}
	}
	var probs compiler.Problems
	for i, r := range raw {
		var v v1alpha1.View
		if json.Unmarshal(r, &v) == nil && !roles[v.Role] {
			probs = append(probs, compiler.Problem{Code: compiler.CodeUnknownReference, Severity: compiler.SeverityError,
				Path: "views[" + strconv.Itoa(i) + "].role", Message: "role " + strconv.Quote(v.Role) + " is not declared in governance.roles"})
		}
	}
	return probs
}
