package v1alpha1

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

func TestNamesFitKubernetesLimits(t *testing.T) {
	long := strings.Repeat("a", 250)
	dotted := strings.Repeat("a", 229) + "." + strings.Repeat("b", 30) // the cut lands on the dot
	for _, model := range []string{"flights", "a.b-c", long, dotted, long[:247]} {
		name := ConfigMapName(model)
		if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
			t.Errorf("ConfigMapName(%d chars) = %q: %v", len(model), name, errs)
		}
		if v := LabelValue(model); len(validation.IsValidLabelValue(v)) > 0 {
			t.Errorf("LabelValue(%d chars) = %q: %v", len(model), v, validation.IsValidLabelValue(v))
		}
	}
	if got := ConfigMapName("flights"); got != "ossie-flights" {
		t.Errorf("ConfigMapName(flights) = %q", got)
	}
	if got := LabelValue("flights"); got != "flights" {
		t.Errorf("LabelValue(flights) = %q", got)
	}
	// Two long names sharing a prefix never share a ConfigMap.
	if ConfigMapName(long+"x") == ConfigMapName(long+"y") || LabelValue(long+"x") == LabelValue(long+"y") {
		t.Error("long names collide")
	}
	v := "sha256:" + strings.Repeat("0123456789abcdef", 4)
	if got := VersionLabel(v); got != "sha256-0123456789abcdef0123456789abcdef" || len(validation.IsValidLabelValue(got)) > 0 {
		t.Errorf("VersionLabel = %q", got)
	}
}
