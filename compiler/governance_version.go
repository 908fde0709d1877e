package compiler

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// governedVersion folds a model's governance into its version, so that a
// change of access rules publishes a new artifact: "sha256:" +
// hex(sha256(modelVersion + "\n" + JSON of the ArtifactGovernance)). An
// ungoverned model keeps ModelVersion unchanged. The JSON is canonical:
// structs encode in declaration order and expression trees deterministically.
func governedVersion(modelVersion string, g *ArtifactGovernance) (string, error) {
	js, err := json.Marshal(g)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(append([]byte(modelVersion+"\n"), js...))
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// LoadGoverned is Load with a governance document (ParseGovernance input;
// nil gov is Load; an empty one governs with no roles): the artifacts of data governed by gov, or
// every parse and validation problem of both. Governance problems carry
// paths starting with "governance" and positions in gov.
func LoadGoverned(data, gov []byte, opts CompileOptions) ([]*Artifact, Problems) {
	if gov == nil {
		return Load(data, opts)
	}
	p, probs := Parse(data)
	g, gprobs := ParseGovernance(gov)
	probs = append(probs, gprobs...)
	if probs.HasErrors() {
		probs.Sort()
		return nil, probs
	}
	p.Governance = g
	arts, more := Compile(p, opts)
	all := append(probs, more...)
	all.Sort()
	return arts, all
}
