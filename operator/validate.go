package operator

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler"
)

// maxStatusProblems caps status.problems; the Validated message gives the
// total so a cut list is never mistaken for the whole.
const maxStatusProblems = 100

// DocumentJSON converts the Ossie part of a SemanticModel spec to the JSON
// document {version, semantic_model} that compiler.Parse reads: the same
// bytes `ossiectl validate` would read from the equivalent YAML file, since
// the CRD types mirror the document key for key (api/v1alpha1).
func DocumentJSON(spec *v1alpha1.SemanticModelSpec) ([]byte, error) {
	return json.Marshal(struct {
		Version       string           `json:"version"`
		SemanticModel []v1alpha1.Model `json:"semantic_model"`
	}{spec.Version, spec.SemanticModel})
}

// validate owns Validated: it parses the document strictly and checks
// every model rule (compiler.Parse then compiler.Validate, as ossiectl
// does). With errors, Validated=False lists every problem (message capped,
// full list up to maxStatusProblems in status.problems); the pass does not
// ask for a retry, since only a new spec can change the verdict.
func (r *Reconciler) validate(_ context.Context, p *pass) {
	data, err := DocumentJSON(&p.sm.Spec)
	var probs compiler.Problems
	if err != nil {
		probs = compiler.Problems{{Code: compiler.CodeSyntax, Severity: compiler.SeverityError, Message: "spec cannot be encoded as an Ossie document: " + err.Error()}}
	} else {
		parsed, parseProbs := compiler.Parse(data)
		probs = parseProbs
		if !parseProbs.HasErrors() {
			probs = append(probs, compiler.Validate(parsed)...)
			p.parsed = parsed
		}
	}
	probs = forStatus(probs)
	p.status.Problems = statusProblems(probs)
	errs := probs.Errors()
	if len(errs) > 0 {
		p.parsed = nil
		p.setCondition(v1alpha1.ConditionValidated, metav1.ConditionFalse, v1alpha1.ReasonValidationFailed, problemsMessage(probs))
		return
	}
	p.valid = true
	msg := "the document is valid"
	if len(probs) > 0 {
		msg = "the document is valid with " + problemsMessage(probs)
	}
	p.setCondition(v1alpha1.ConditionValidated, metav1.ConditionTrue, v1alpha1.ReasonValid, msg)
}

// forStatus orders problems errors first (so the caps never hide an error
// behind warnings) and drops line:column, which point into the generated
// JSON rather than anything the user wrote; paths stay exact.
func forStatus(probs compiler.Problems) compiler.Problems {
	out := make(compiler.Problems, 0, len(probs))
	for _, sev := range []compiler.Severity{compiler.SeverityError, compiler.SeverityWarning} {
		for _, pr := range probs {
			if pr.Severity == sev {
				pr.Line, pr.Column = 0, 0
				out = append(out, pr)
			}
		}
	}
	return out
}

func statusProblems(probs compiler.Problems) []v1alpha1.Problem {
	if len(probs) == 0 {
		return nil
	}
	n := min(len(probs), maxStatusProblems)
	out := make([]v1alpha1.Problem, n)
	for i, pr := range probs[:n] {
		out[i] = v1alpha1.Problem{Code: pr.Code, Severity: string(pr.Severity), Path: pr.Path, Message: pr.Message}
	}
	return out
}

// problemsMessage is "N errors, M warnings: <problem>; <problem>...".
func problemsMessage(probs compiler.Problems) string {
	nerr := len(probs.Errors())
	var b strings.Builder
	fmt.Fprintf(&b, "%d error(s), %d warning(s)", nerr, len(probs)-nerr)
	if len(probs) > maxStatusProblems {
		fmt.Fprintf(&b, " (first %d in status.problems)", maxStatusProblems)
	}
	b.WriteString(": ")
	for i, pr := range probs {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(pr.String())
		if b.Len() > maxConditionMessage {
			break
		}
	}
	return b.String()
}
