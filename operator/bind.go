package operator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/engine/bindcheck"
)

// bind owns DriftDetected and status.bindings. For every dataset of every
// artifact it asks the live engine which columns the source has and checks
// every physical column the model reads and the time zone kind of
// DateTime/DateTimeTz columns (engine/bindcheck; DESIGN.md section 3,
// "checked at bind time"). Each field that declares no datatype takes
// the type the engine gives its expression, in the published bundle.
//
//   - A missing table or column (engine.ErrNotFound, or absent from the
//     description), or a DateTimeTz field over a naive timestamp column
//     (or the reverse, OSS5008), is drift: DriftDetected=True, reason Drift, naming each
//     missing object; publication of the new version is blocked.
//   - A table the engine's user may not read (engine.ErrPermissionDenied)
//     blocks publication the same way, since the server could not answer
//     from it either: DriftDetected=True, reason PermissionDenied when
//     every problem is a missing grant (Drift when objects are missing
//     too), naming each table.
//   - Any other failure (engine.ErrUnavailable, a timeout after
//     Options.EngineTimeout, authentication, a closed pool) is NOT drift:
//     DriftDetected=Unknown, reason EngineUnavailable, the previous
//     bindings are kept and the pass is retried with exponential backoff.
func (r *Reconciler) bind(ctx context.Context, p *pass) {
	if !p.compiled {
		p.status.Bindings = nil
		p.setCondition(v1alpha1.ConditionDriftDetected, metav1.ConditionUnknown, v1alpha1.ReasonBlocked, "not checked: the spec does not compile")
		return
	}
	if r.Engine == nil {
		p.engineErr = errors.New("no engine is configured")
		p.setCondition(v1alpha1.ConditionDriftDetected, metav1.ConditionUnknown, v1alpha1.ReasonEngineUnavailable, "cannot check the tables: no engine is configured")
		return
	}
	res := bindcheck.Check(ctx, r.Engine, p.bundle.Artifacts, r.Options.EngineTimeout)
	if res.Unavailable != nil {
		p.engineErr = res.Unavailable
		p.setCondition(v1alpha1.ConditionDriftDetected, metav1.ConditionUnknown, v1alpha1.ReasonEngineUnavailable,
			fmt.Sprintf("%s, the engine is unavailable (not drift; retrying with backoff)", engineMessage(res.Unavailable)))
		return
	}
	var bindings []v1alpha1.Binding
	for _, b := range res.Bindings {
		bindings = append(bindings, v1alpha1.Binding{Dataset: b.Dataset, Model: b.Model, Table: b.Table, Columns: int32(b.Columns), Missing: b.Missing})
	}
	// A declared datatype that disagrees with the stored timestamp kind
	// blocks publication like a missing column: answers would be shifted.
	missing := append(res.Missing, res.Mismatched...)
	denied := res.Denied
	p.status.Bindings = bindings
	switch {
	case len(missing) > 0:
		p.drift = true
		msg := fmt.Sprintf("%d missing object(s) (no new version is published while they are missing): %s", len(missing), strings.Join(missing, "; "))
		if len(denied) > 0 {
			msg += fmt.Sprintf("; %d unreadable table(s): %s", len(denied), strings.Join(denied, "; "))
		}
		p.setCondition(v1alpha1.ConditionDriftDetected, metav1.ConditionTrue, v1alpha1.ReasonDrift, msg)
		return
	case len(denied) > 0:
		p.drift = true
		p.setCondition(v1alpha1.ConditionDriftDetected, metav1.ConditionTrue, v1alpha1.ReasonPermissionDenied,
			fmt.Sprintf("%d source(s) the engine may not read (a missing grant: grant SELECT; or a file outside the DuckDB sandbox; no new version is published meanwhile): %s", len(denied), strings.Join(denied, "; ")))
		return
	}
	// Fields without datatype are published with the engine's type, so the
	// server plans them as the engine stores them (bindcheck.Result.Resolve).
	if arts := res.Resolve(p.bundle.Artifacts); !slices.Equal(arts, p.bundle.Artifacts) {
		b := compiler.NewBundle(arts)
		data, err := compiler.EncodeBundle(b)
		if err != nil {
			p.drift = true
			p.setCondition(v1alpha1.ConditionDriftDetected, metav1.ConditionTrue, v1alpha1.ReasonDrift, "cannot encode the bound artifact bundle: "+err.Error())
			return
		}
		p.bundle, p.data = b, data
	}
	p.bound = true
	p.setCondition(v1alpha1.ConditionDriftDetected, metav1.ConditionFalse, v1alpha1.ReasonNoDrift,
		fmt.Sprintf("%d dataset(s) bound; every table and column the model reads exists", len(bindings)))
}

// engineMessage is the text of an engine error shown in status, events and
// logs. engine.Error.Error() is its Message, which engines build without
// connection strings or credentials (engine package contract); errors of
// database/sql or the context carry none either.
func engineMessage(err error) string {
	return err.Error()
}
