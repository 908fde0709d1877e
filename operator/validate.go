package operator

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/views"
)

// maxStatusProblems caps status.problems; the Validated message gives the
// total so a cut list is never mistaken for the whole.
const maxStatusProblems = 100

// DocumentJSON converts the Ossie part of a SemanticModel spec to the JSON
// document {version, semantic_model} that compiler.Parse reads: the spec
// embeds ossie.Document, so these are the bytes `ossiectl validate` reads
// from the equivalent YAML file (sources and ai_context the API server
// cannot type are written back as the user wrote them; ossie.Source.Unread).
func DocumentJSON(spec *v1alpha1.SemanticModelSpec) ([]byte, error) {
	return json.Marshal(&spec.Document)
}

// validate owns Validated: it parses the document and spec.governance
// strictly and checks every model and governance rule (compiler.Parse,
// ParseGovernance, then compiler.Validate, as ossiectl does), then plans
// spec.views (validateViews). With errors, Validated=False lists every
// problem (message capped, full list up to maxStatusProblems in
// status.problems); the pass does not ask for a retry, since only a new
// spec can change the verdict.
func (r *Reconciler) validate(_ context.Context, p *pass) {
	data, err := DocumentJSON(&p.sm.Spec)
	var probs compiler.Problems
	if err != nil {
		probs = compiler.Problems{{Code: compiler.CodeSyntax, Severity: compiler.SeverityError, Message: "spec cannot be encoded as an Ossie document: " + err.Error()}}
	} else {
		parsed, parseProbs := compiler.Parse(data)
		probs = parseProbs
		if gov := p.sm.Spec.Governance; gov != nil && !parseProbs.HasErrors() {
			g, gprobs := governance(gov)
			probs = append(probs, gprobs...)
			parsed.Governance = g
		}
		if !probs.HasErrors() {
			probs = append(probs, compiler.Validate(parsed)...)
			p.parsed = parsed
			if !probs.HasErrors() && len(p.sm.Spec.Views) > 0 {
				probs = append(probs, r.validateViews(p)...)
			}
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

// validateViews compiles the valid document (the compile step reuses the
// artifacts) and plans every view under its role for the engine's
// dialect (views.PlanSpec, the same planning ossiectl validate runs),
// keeping the plans for the views step. A document that does not compile
// is left to the compile step to report.
func (r *Reconciler) validateViews(p *pass) compiler.Problems {
	arts, probs := compiler.Compile(p.parsed, r.Options.Compile)
	if probs.HasErrors() || len(arts) == 0 {
		return nil
	}
	p.arts = arts
	plans, vprobs := views.PlanSpec(&p.sm.Spec, arts, r.dialect())
	p.viewPlans = plans
	return vprobs
}

// dialect is the SQL dialect views are planned in: the engine's, or
// PostgreSQL's when no engine is configured (the views are then not
// created, but the spec is still checked).
func (r *Reconciler) dialect() dialect.Dialect {
	if r.Engine == nil {
		return dialect.Postgres
	}
	return r.Engine.Dialect()
}

// governance reads spec.governance with the compiler's governance reader
// (compiler.ParseGovernance, as ossiectl reads a governance file), which
// checks what the API server cannot (mask kinds, widths, required keys).
func governance(g *ossie.Governance) (*compiler.Governance, compiler.Problems) {
	data, err := json.Marshal(g)
	if err != nil {
		return nil, compiler.Problems{{Code: compiler.CodeSyntax, Severity: compiler.SeverityError, Path: "governance", Message: "spec.governance cannot be encoded: " + err.Error()}}
	}
	return compiler.ParseGovernance(data)
}
