package operator

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler"
)

// compile owns Compiled and status.attemptedVersion: it compiles the
// validated document with the install defaults (compiler.Compile, as
// ossiectl does), wraps the artifacts in a bundle and encodes it
// (compiler.EncodeBundle, gzip JSON). attemptedVersion is the bundle
// version, or empty when the spec does not compile.
func (r *Reconciler) compile(_ context.Context, p *pass) {
	p.status.AttemptedVersion = ""
	if !p.valid {
		p.setCondition(v1alpha1.ConditionCompiled, metav1.ConditionUnknown, v1alpha1.ReasonBlocked, "not compiled: the spec is not valid (see Validated)")
		return
	}
	arts, probs := p.arts, compiler.Problems(nil)
	if arts == nil {
		arts, probs = compiler.Compile(p.parsed, r.Options.Compile)
	}
	if probs.HasErrors() || len(arts) == 0 {
		msg := "the document does not compile"
		if errs := forStatus(probs.Errors()); len(errs) > 0 {
			msg = problemsMessage(errs)
		}
		p.setCondition(v1alpha1.ConditionCompiled, metav1.ConditionFalse, v1alpha1.ReasonCompileFailed, msg)
		return
	}
	b := compiler.NewBundle(arts)
	data, err := compiler.EncodeBundle(b)
	if err != nil {
		p.setCondition(v1alpha1.ConditionCompiled, metav1.ConditionFalse, v1alpha1.ReasonCompileFailed, "cannot encode the artifact bundle: "+err.Error())
		return
	}
	p.compiled, p.bundle, p.data = true, b, data
	p.status.AttemptedVersion = b.Version
	p.setCondition(v1alpha1.ConditionCompiled, metav1.ConditionTrue, v1alpha1.ReasonCompiled,
		fmt.Sprintf("%d model(s) compiled to version %s (%d bytes compressed)", len(arts), b.Version, len(data)))
}
