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
	"github.com/ossie-dev/ossie/compiler/expr"
	"github.com/ossie-dev/ossie/engine"
)

// bind owns DriftDetected and status.bindings. For every dataset of every
// artifact it asks the live engine which columns the source has
// (engine.Describe for tables and files, a zero-row query for query
// sources) and checks every physical column the model reads: the columns
// referenced by field expressions and the relationship columns that name
// no field (DESIGN.md section 3, "checked at bind time").
//
//   - A missing table or column (engine.ErrNotFound, or absent from the
//     description) is drift: DriftDetected=True, reason Drift, naming each
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
	foldCase := r.Engine.Dialect().Name() == "duckdb" // DuckDB matches identifiers case-insensitively, even quoted ones
	described := map[string]describeResult{}
	var bindings []v1alpha1.Binding
	var missing, denied []string
	for _, art := range p.bundle.Artifacts {
		need := neededColumns(art)
		for _, ds := range art.Datasets {
			label, key := sourceLabel(ds.Source)
			res, seen := described[key]
			if !seen {
				res = r.describe(ctx, ds.Source)
				described[key] = res
			}
			b := v1alpha1.Binding{Dataset: ds.Name, Model: art.Name, Table: label}
			switch {
			case res.err == nil:
				b.Columns = int32(len(res.cols))
				for _, c := range need[ds.Name] {
					if !hasColumn(res.cols, c, foldCase) {
						b.Missing = append(b.Missing, label+"."+c)
						missing = append(missing, fmt.Sprintf("dataset %s: column %q does not exist in %s", ds.Name, c, label))
					}
				}
			case errors.Is(res.err, engine.ErrNotFound):
				b.Missing = []string{label}
				missing = append(missing, fmt.Sprintf("dataset %s: %s does not exist (%s)", ds.Name, label, engineMessage(res.err)))
			case errors.Is(res.err, engine.ErrPermissionDenied):
				denied = append(denied, fmt.Sprintf("dataset %s: the engine's user may not read %s (%s)", ds.Name, label, engineMessage(res.err)))
			default:
				p.engineErr = res.err
				p.setCondition(v1alpha1.ConditionDriftDetected, metav1.ConditionUnknown, v1alpha1.ReasonEngineUnavailable,
					fmt.Sprintf("cannot check %s, the engine is unavailable (not drift; retrying with backoff): %s", label, engineMessage(res.err)))
				return
			}
			bindings = append(bindings, b)
		}
	}
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
			fmt.Sprintf("%d table(s) the engine's user may not read (grant SELECT; no new version is published meanwhile): %s", len(denied), strings.Join(denied, "; ")))
		return
	}
	p.bound = true
	p.setCondition(v1alpha1.ConditionDriftDetected, metav1.ConditionFalse, v1alpha1.ReasonNoDrift,
		fmt.Sprintf("%d dataset(s) bound; every table and column the model reads exists", len(bindings)))
}

type describeResult struct {
	cols []engine.Column
	err  error
}

// describe asks the engine for the columns of one source, bounded by
// Options.EngineTimeout.
func (r *Reconciler) describe(ctx context.Context, src compiler.ResolvedSource) describeResult {
	ctx, cancel := context.WithTimeout(ctx, r.Options.EngineTimeout)
	defer cancel()
	var res describeResult
	switch src.Kind {
	case compiler.SourceQuery:
		// The query is the model author's SQL, planned the same way as a
		// subquery; LIMIT 0 asks only for its columns.
		out, err := r.Engine.Query(ctx, "SELECT * FROM ("+src.Query+") AS ossie_bind LIMIT 0", 0)
		if err == nil {
			res.cols = out.Columns
		}
		res.err = err
	case compiler.SourceFile:
		res.cols, res.err = r.Engine.Describe(ctx, []string{src.Path})
	default:
		res.cols, res.err = r.Engine.Describe(ctx, src.Table)
	}
	if res.err != nil && ctx.Err() != nil && !errors.Is(res.err, engine.ErrNotFound) {
		res.err = fmt.Errorf("no answer within %s: %w", r.Options.EngineTimeout, res.err)
	}
	return res
}

// sourceLabel names a source in status and messages: the dotted table
// path, the file path or "(query)"; key identifies it within one pass.
func sourceLabel(src compiler.ResolvedSource) (label, key string) {
	switch src.Kind {
	case compiler.SourceQuery:
		return "(query)", "q:" + src.Query
	case compiler.SourceFile:
		return src.Path, "f:" + src.Path
	}
	return strings.Join(src.Table, "."), "t:" + strings.Join(src.Table, "\x00")
}

// neededColumns lists, per dataset, the physical columns the artifact
// reads, in first-use order: bare references of field expressions and
// relationship columns that name no field.
func neededColumns(art *compiler.Artifact) map[string][]string {
	out := map[string][]string{}
	add := func(ds, col string) {
		if !slices.Contains(out[ds], col) {
			out[ds] = append(out[ds], col)
		}
	}
	for _, ds := range art.Datasets {
		for _, f := range ds.Fields {
			if f.Expr.Node == nil {
				continue
			}
			for _, ref := range expr.Refs(f.Expr.Node) {
				if ref.Qualifier == "" || ref.Qualifier == ds.Name {
					add(ds.Name, ref.Name)
				}
			}
		}
	}
	for _, rel := range art.Relationships {
		for _, c := range rel.FromPhysical {
			add(rel.From, c)
		}
		for _, c := range rel.ToPhysical {
			add(rel.To, c)
		}
	}
	return out
}

func hasColumn(cols []engine.Column, name string, foldCase bool) bool {
	for _, c := range cols {
		if c.Name == name || (foldCase && strings.EqualFold(c.Name, name)) {
			return true
		}
	}
	return false
}

// engineMessage is the text of an engine error shown in status, events and
// logs. engine.Error.Error() is its Message, which engines build without
// connection strings or credentials (engine package contract); errors of
// database/sql or the context carry none either.
func engineMessage(err error) string {
	return err.Error()
}
