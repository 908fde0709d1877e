package v1alpha1

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// The ConfigMap contract between the operator (writer) and the semantic
// server (reader). One ConfigMap per SemanticModel:
//
//	name:            ConfigMapName(<SemanticModel name>)  ("ossie-" + name)
//	labels:          LabelManagedBy=ManagedByOperator, LabelArtifact="true",
//	                 LabelModel=LabelValue(<SemanticModel name>),
//	                 LabelVersion=VersionLabel(<bundle version>)
//	annotations:     AnnotationVersion=<bundle version, "sha256:...">
//	binaryData:      ArtifactKey = compiler.EncodeBundle bytes (gzip JSON)
//	ownerReferences: controller reference to the SemanticModel
//
// The server watches ConfigMaps labelled LabelArtifact=true and serves every
// artifact of the bundle under its artifact name.
const (
	// LabelManagedBy is the standard Kubernetes managed-by label.
	LabelManagedBy = "app.kubernetes.io/managed-by"
	// ManagedByOperator is the value of LabelManagedBy on published ConfigMaps.
	ManagedByOperator = "ossie-operator"
	// LabelArtifact marks a ConfigMap holding an artifact bundle ("true").
	LabelArtifact = "ossie.dev/artifact"
	// LabelModel holds the SemanticModel name (see LabelValue).
	LabelModel = "ossie.dev/model"
	// LabelVersion holds VersionLabel(bundle version).
	LabelVersion = "ossie.dev/version"
	// AnnotationVersion holds the full bundle version, "sha256:<64 hex>".
	AnnotationVersion = "ossie.dev/version"
	// ArtifactKey is the binaryData key of the gzip JSON bundle.
	ArtifactKey = "artifact.json.gz"
	// ConfigMapPrefix starts every published ConfigMap name.
	ConfigMapPrefix = "ossie-"
	// FinalizerArtifact holds a SemanticModel until the operator has
	// deleted its ConfigMap. The ownerReference alone needs Kubernetes'
	// garbage collector, which a bare kube-apiserver does not run; without
	// it the server would keep serving a deleted model and a model
	// re-created under the same name would find its name taken. Set
	// before the ConfigMap is first written.
	FinalizerArtifact = "ossie.dev/artifact"

	// AnnotationReconcileRequest on a SemanticModel: changing its value
	// asks the operator for a reconcile pass without changing the spec
	// (e.g. after fixing a table in the engine).
	AnnotationReconcileRequest = "ossie.dev/reconcile-request"
)

// Kubernetes name limits: object names are DNS subdomains (253), label
// values at most 63 characters.
const (
	maxNameLen       = 253
	maxLabelValueLen = 63
	hashLen          = 16
)

// ConfigMapName is the name of the ConfigMap published for the
// SemanticModel named model: "ossie-" + model, or, when that exceeds 253
// characters, a prefix of it followed by "-" and 16 hex characters of the
// sha256 of model, so distinct models never share a ConfigMap.
func ConfigMapName(model string) string {
	return shorten(ConfigMapPrefix+model, model, maxNameLen)
}

// LabelValue fits a name into a label value: the name itself when at most
// 63 characters, else a prefix and "-" + 16 hex characters of its sha256.
func LabelValue(name string) string {
	return shorten(name, name, maxLabelValueLen)
}

// VersionLabel is the LabelVersion value for a bundle version
// "sha256:<hex>": "sha256-" + the first 32 hex characters (label values may
// not contain ':'). Other spellings are passed through LabelValue.
func VersionLabel(version string) string {
	if hexPart, ok := strings.CutPrefix(version, "sha256:"); ok {
		if len(hexPart) > 32 {
			hexPart = hexPart[:32]
		}
		return "sha256-" + hexPart
	}
	return LabelValue(strings.ReplaceAll(version, ":", "-"))
}

// shorten returns s when it fits in limit, else a prefix of s ending in an
// alphanumeric character, "-", and a hash of key.
func shorten(s, key string, limit int) string {
	if len(s) <= limit {
		return s
	}
	sum := sha256.Sum256([]byte(key))
	suffix := "-" + hex.EncodeToString(sum[:])[:hashLen]
	prefix := strings.TrimRight(s[:limit-len(suffix)], "-._")
	return prefix + suffix
}
