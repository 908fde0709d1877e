package ossiectl

import (
	"slices"

	"sigs.k8s.io/yaml"

	"github.com/ossie-dev/ossie/compiler"
)

// governanceKeys are the top-level keys of a governance file
// (compiler.ParseGovernance); an Ossie document has `version` and
// `semantic_model`, a manifest `apiVersion` and `kind`.
var governanceKeys = []string{"attributes", "roles", "views"}

// isGovernanceFile reports whether data is a governance file: a mapping
// whose keys are all governance keys, at least one of them present.
func isGovernanceFile(data []byte) bool {
	if compiler.CheckDocument(data) != nil {
		return false // read as a model document, which reports the limit
	}
	var top map[string]any
	if err := yaml.Unmarshal(data, &top); err != nil || len(top) == 0 {
		return false
	}
	for k := range top {
		if !slices.Contains(governanceKeys, k) {
			return false
		}
	}
	return true
}

// validateGovernanceFile checks a governance file met among validate's
// arguments: its structure (ParseGovernance) and its meaning against each
// plain model document of the same run (roles naming members, row
// filters, masks), as `--governance` would apply it. Problems of the
// models themselves are reported with their own files, not here.
func (e *env) validateGovernanceFile(name string, data []byte, models []string, opts compiler.CompileOptions) docReport {
	r := docReport{File: displayName(name), Version: "governance", Problems: compiler.Problems{}}
	_, probs := compiler.ParseGovernance(data)
	seen := map[string]bool{}
	add := func(ps compiler.Problems) {
		for _, p := range ps {
			if k := p.String(); !seen[k] {
				seen[k] = true
				r.Problems = append(r.Problems, p)
			}
		}
	}
	add(probs)
	if !probs.HasErrors() {
		for _, m := range models {
			doc, err := e.readInput(m)
			if err != nil {
				continue
			}
			if _, perr := compiler.Parse(doc); perr.HasErrors() {
				continue // the model's own report shows why
			}
			arts, ps := compiler.LoadGoverned(doc, data, opts)
			_, gov := splitGovernanceProblems(ps)
			add(gov)
			for _, a := range arts {
				r.Models = append(r.Models, a.Name)
			}
		}
	}
	r.Valid = !r.Problems.HasErrors()
	return r
}

// isManifest reports whether data is a Kubernetes manifest (has `kind`).
func isManifest(data []byte) bool {
	if compiler.CheckDocument(data) != nil {
		return false
	}
	var top map[string]any
	if yaml.Unmarshal(data, &top) != nil {
		return false
	}
	_, ok := top["kind"]
	return ok
}
