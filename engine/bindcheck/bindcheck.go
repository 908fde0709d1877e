// Package bindcheck checks compiled models against a live engine: every
// table, file or query a dataset reads exists, every physical column the
// model reads exists (field expressions, relationship and key columns that
// name no field, columns metrics read without a field), and every field
// declared DateTime or DateTimeTz matches whether the engine gives its
// expression a time zone. It also finds the type the engine gives each
// field that declares no datatype (Result.Types), which
// compiler.WithEngineTypes applies. Every path that answers from a model
// binds it here first: the operator's bind step, `ossiectl validate
// --engine`, `ossiectl query`, `ossiectl serve` and the server loading
// model files (load.BindModels), so they agree (DESIGN.md section 3,
// "checked at bind time").
package bindcheck

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/expr"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/engine"
)

// Binding is the outcome for one dataset.
type Binding struct {
	Model, Dataset string
	// Table is the dotted table path, the file path or "(query)".
	Table string
	// Columns is how many columns the source has (0 when not described).
	Columns int
	// Missing lists missing objects: the table itself, or table.column.
	Missing []string
}

// Result is the outcome of Check. Missing, Denied and Mismatched hold one
// sentence each; Unavailable, when set, means the engine could not answer
// (not drift: the check stopped there and should be retried).
type Result struct {
	Bindings    []Binding
	Missing     []string // drift: a table, file or column does not exist
	Denied      []string // the engine's user may not read a table
	Mismatched  []string // a declared datatype disagrees with the stored type (OSS5008)
	Unavailable error
	// Types holds, for the i-th artifact given to Check, the datatype the
	// engine gives each field that declares none (compiler.WithEngineTypes);
	// a dataset whose source or columns are missing has no entry.
	Types []compiler.FieldTypes
	// Problems restates Missing, Denied and Mismatched as problems
	// (OSS5001, OSS5008) with document paths (semantic_model[i] is the
	// i-th artifact given to Check), for ossiectl.
	Problems compiler.Problems
}

// Drift reports whether anything is missing, unreadable or mismatched.
func (r *Result) Drift() bool { return len(r.Missing)+len(r.Denied)+len(r.Mismatched) > 0 }

// Resolve returns arts (the artifacts given to Check, in order) with the
// engine's types applied to the fields that declare none
// (compiler.WithEngineTypes).
func (r *Result) Resolve(arts []*compiler.Artifact) []*compiler.Artifact {
	out := make([]*compiler.Artifact, len(arts))
	for i, a := range arts {
		out[i] = a
		if i < len(r.Types) {
			out[i] = compiler.WithEngineTypes(a, r.Types[i])
		}
	}
	return out
}

// Check describes each distinct source once (each call bounded by
// timeout) and checks every artifact against it. It stops at the first
// failure that is neither ErrNotFound nor ErrPermissionDenied and returns
// it in Unavailable.
func Check(ctx context.Context, eng engine.Engine, arts []*compiler.Artifact, timeout time.Duration) *Result {
	foldCase := eng.Dialect().Name() == "duckdb" // DuckDB matches identifiers case-insensitively, even quoted ones
	described := map[string]described{}
	res := &Result{}
	for ai, art := range arts {
		base := fmt.Sprintf("semantic_model[%d]", ai)
		need := NeededColumns(art)
		types := compiler.FieldTypes{}
		res.Types = append(res.Types, types)
		for i, ds := range art.Datasets {
			label, key := SourceLabel(ds.Source)
			d, seen := described[key]
			if !seen {
				d = describe(ctx, eng, ds.Source, timeout)
				described[key] = d
			}
			b := Binding{Dataset: ds.Name, Model: art.Name, Table: label}
			switch {
			case d.err == nil:
				b.Columns = len(d.cols)
				complete := true
				for _, c := range need[ds.Name] {
					if _, ok := column(d.cols, c, foldCase); !ok {
						complete = false
						b.Missing = append(b.Missing, label+"."+c)
						msg := fmt.Sprintf("dataset %s: column %q does not exist in %s", ds.Name, c, label)
						res.Missing = append(res.Missing, msg)
						res.Problems = append(res.Problems, problem(compiler.CodeEngine, fmt.Sprintf("%s.datasets[%d]", base, i), "the model has drifted from the engine: "+msg))
					}
				}
				typs, err := exprTypes(ctx, eng, &ds, d.cols, foldCase, complete, timeout)
				if err != nil {
					res.Unavailable = fmt.Errorf("cannot check %s: %w", label, err)
					return res
				}
				for j, f := range ds.Fields {
					if f.Datatype == "" && typs[j] != "" {
						if types[ds.Name] == nil {
							types[ds.Name] = map[string]ossie.Datatype{}
						}
						types[ds.Name][f.Name] = engine.Datatype(typs[j])
					}
					if msg := zoneMismatch(ds.Name, label, f, typs[j]); msg != "" {
						res.Mismatched = append(res.Mismatched, msg)
						res.Problems = append(res.Problems, problem(compiler.CodeBindingType, fmt.Sprintf("%s.datasets[%d].fields[%d].datatype", base, i, j), msg))
					}
				}
			case errors.Is(d.err, engine.ErrNotFound):
				b.Missing = []string{label}
				msg := fmt.Sprintf("dataset %s: %s does not exist (%s)", ds.Name, label, d.err.Error())
				res.Missing = append(res.Missing, msg)
				res.Problems = append(res.Problems, problem(compiler.CodeEngine, fmt.Sprintf("%s.datasets[%d].source", base, i), "the model has drifted from the engine: "+msg))
			case errors.Is(d.err, engine.ErrPermissionDenied):
				code, msg := compiler.CodeEngine, fmt.Sprintf("dataset %s: the engine's user may not read %s (%s)", ds.Name, label, d.err.Error())
				if errors.Is(d.err, engine.ErrSandboxed) {
					// No grant fixes this: the source reads outside the
					// sandbox, the model's fault as in the server (OSS5014).
					code = compiler.CodeSandboxed
					msg = fmt.Sprintf("dataset %s: %s reads outside the engine's sandbox, which allows the database's tables and the files --allow-read names only (%s)", ds.Name, label, d.err.Error())
				}
				res.Denied = append(res.Denied, msg)
				res.Problems = append(res.Problems, problem(code, fmt.Sprintf("%s.datasets[%d].source", base, i), msg))
			default:
				res.Unavailable = fmt.Errorf("cannot check %s: %w", label, d.err)
				return res
			}
			res.Bindings = append(res.Bindings, b)
		}
	}
	return res
}

func problem(code, path, msg string) compiler.Problem {
	return compiler.Problem{Code: code, Severity: compiler.SeverityError, Path: path, Message: msg}
}

type described struct {
	cols []engine.Column
	err  error
}

func describe(ctx context.Context, eng engine.Engine, src compiler.ResolvedSource, timeout time.Duration) described {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var d described
	switch src.Kind {
	case compiler.SourceQuery:
		// The query is the model author's SQL, planned the same way as a
		// subquery; LIMIT 0 asks only for its columns.
		out, err := eng.Query(ctx, "SELECT * FROM ("+src.Query+") AS ossie_bind LIMIT 0", 0)
		if err == nil {
			d.cols = out.Columns
		}
		d.err = err
	case compiler.SourceFile:
		d.cols, d.err = eng.Describe(ctx, []string{src.Path})
	default:
		d.cols, d.err = eng.Describe(ctx, src.Table)
	}
	if d.err != nil && ctx.Err() != nil && !errors.Is(d.err, engine.ErrNotFound) {
		d.err = fmt.Errorf("no answer within %s: %w", timeout, d.err)
	}
	return d
}

// SourceLabel names a source in status and messages: the dotted table
// path, the file path or "(query)"; key identifies it within one check.
func SourceLabel(src compiler.ResolvedSource) (label, key string) {
	switch src.Kind {
	case compiler.SourceQuery:
		return "(query)", "q:" + src.Query
	case compiler.SourceFile:
		return src.Path, "f:" + src.Path
	}
	return strings.Join(src.Table, "."), "t:" + strings.Join(src.Table, "\x00")
}

// NeededColumns lists, per dataset, the physical columns the artifact
// reads, in first-use order: bare references of field expressions
// (implicit fields included: columns metrics read), relationship columns
// and key columns that name no field.
func NeededColumns(art *compiler.Artifact) map[string][]string {
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
		for _, c := range ds.KeyPhysical {
			add(ds.Name, c)
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

func column(cols []engine.Column, name string, foldCase bool) (engine.Column, bool) {
	for _, c := range cols {
		if c.Name == name || (foldCase && strings.EqualFold(c.Name, name)) {
			return c, true
		}
	}
	return engine.Column{}, false
}

// exprTypes returns the engine's type name of each field expression of ds
// that needs one (a field without datatype, or a DateTime or DateTimeTz
// one), "" for the others: a bare column's type from the source's
// description, any other expression's from one LIMIT 0 query of all of
// them, run only when complete (no column ds reads is missing). The
// error is set only when the engine did not answer (a query it
// refuses, such as a type error in an expression, leaves those types
// unknown; planning reports it when a query reads the field).
func exprTypes(ctx context.Context, eng engine.Engine, ds *compiler.ArtifactDataset, cols []engine.Column, foldCase, complete bool, timeout time.Duration) ([]string, error) {
	out := make([]string, len(ds.Fields))
	d := eng.Dialect()
	quote := func(r expr.Ref) (string, error) { return d.QuoteIdent(r.Name), nil }
	var sel []string
	var at []int
	for j, f := range ds.Fields {
		if f.Expr.Node == nil || (f.Datatype != "" && f.Datatype != ossie.TypeDateTime && f.Datatype != ossie.TypeDateTimeTz) {
			continue
		}
		if ref, ok := f.Expr.Node.(expr.Ref); ok {
			if c, ok := column(cols, ref.Name, foldCase); ok {
				out[j] = c.Type
			}
			continue
		}
		sql, err := expr.Render(f.Expr.Node, d, quote)
		if err != nil {
			continue // an engine that cannot compute it: CheckEngine says so
		}
		sel = append(sel, sql+" AS "+d.QuoteIdent(fmt.Sprintf("f%d", len(sel))))
		at = append(at, j)
	}
	if len(sel) == 0 || !complete {
		return out, nil
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r, err := eng.Query(ctx, "SELECT "+strings.Join(sel, ", ")+" FROM "+plan.SourceSQL(d, ds.Source)+" AS ossie_bind LIMIT 0", 0)
	switch {
	case err == nil && len(r.Columns) == len(at):
		for k, j := range at {
			out[j] = r.Columns[k].Type
		}
	case err != nil && (errors.Is(err, engine.ErrUnavailable) || ctx.Err() != nil):
		if ctx.Err() != nil {
			err = fmt.Errorf("no answer within %s: %w", timeout, err)
		}
		return nil, err
	}
	return out, nil
}

// zoneMismatch checks a DateTime or DateTimeTz field against typ, the
// engine's type of its expression: DateTimeTz needs a timestamp with a
// time zone (TIMESTAMPTZ, TIMESTAMP WITH TIME ZONE), DateTime a naive one.
// Reading one as the other would shift every answer by the session's
// offset, and the engines shift differently, so it is a binding problem
// (OSS5008), never a silent conversion.
func zoneMismatch(ds, label string, f compiler.ArtifactField, typ string) string {
	if f.Datatype != ossie.TypeDateTime && f.Datatype != ossie.TypeDateTimeTz {
		return ""
	}
	tz, ts := engine.TimestampKind(typ)
	what := "its expression " + f.SQL + " is " + typ
	if ref, ok := f.Expr.Node.(expr.Ref); ok {
		what = fmt.Sprintf("column %q of %s is %s", ref.Name, label, typ)
	}
	switch {
	case !ts:
		return ""
	case f.Datatype == ossie.TypeDateTimeTz && !tz:
		return fmt.Sprintf("field %s.%s is declared DateTimeTz, but %s, a timestamp without time zone; declare it DateTime (and its stored zone with the OSSIE timezone extension if it is not UTC)", ds, f.Name, what)
	case f.Datatype == ossie.TypeDateTime && tz:
		return fmt.Sprintf("field %s.%s is declared DateTime (naive), but %s, which stores instants with a time zone; declare it DateTimeTz", ds, f.Name, what)
	}
	return ""
}
