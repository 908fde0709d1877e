// Package v1alpha1 holds the SemanticModel custom resource (group ossie.dev,
// version v1alpha1) and the ConfigMap contract between the operator, which
// publishes compiled artifacts, and the semantic server, which loads them
// (DESIGN.md section 4). Types carry no logic beyond deepcopy; the CRD YAML
// in config/crd/bases is generated from them by scripts/generate.sh.
//
// +kubebuilder:object:generate=true
// +groupName=ossie.dev
package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the API group and version of SemanticModel.
	GroupVersion = schema.GroupVersion{Group: "ossie.dev", Version: "v1alpha1"}

	// SchemeBuilder registers the types of this package with a scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds SemanticModel and SemanticModelList to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
