// Package bindcheck checks compiled models against a live engine: every
// table, file or query a dataset reads exists, every physical column the
// model reads exists (field expressions, relationship and key columns that
// name no field, columns metrics read without a field), and every field
// declared DateTime or DateTimeTz over a bare column matches whether the
// engine stores that column with a time zone. The operator's bind step and
// `ossiectl validate --engine` both use it, so they agree (DESIGN.md
// section 3, "checked at bind time").
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
	// Problems restates Missing, Denied and Mismatched as problems
	// (OSS5001, OSS5008) with document paths (semantic_model[i] is the
	// i-th artifact given to Check), for ossiectl.
	Problems compiler.Problems
}

// Drift reports whether anything is missing, unreadable or mismatched.
func (r *Result) Drift() bool { return len(r.Missing)+len(r.Denied)+len(r.Mismatched) > 0 }

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
				for _, c := range need[ds.Name] {
					if _, ok := column(d.cols, c, foldCase); !ok {
						b.Missing = append(b.Missing, label+"."+c)
						msg := fmt.Sprintf("dataset %s: column %q does not exist in %s", ds.Name, c, label)
						res.Missing = append(res.Missing, msg)
						res.Problems = append(res.Problems, problem(compiler.CodeEngine, fmt.Sprintf("%s.datasets[%d]", base, i), "the model has drifted from the engine: "+msg))
					}
				}
				for j, f := range ds.Fields {
					if msg := zoneMismatch(ds.Name, label, f, d.cols, foldCase); msg != "" {
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

// zoneMismatch checks a DateTime or DateTimeTz field whose expression is a
// bare column: DateTimeTz needs a column stored with a time zone
// (TIMESTAMPTZ, TIMESTAMP WITH TIME ZONE), DateTime a naive timestamp.
// Reading one as the other would shift every answer by the session's
// offset, so it is a binding problem, never a silent conversion.
func zoneMismatch(ds, label string, f compiler.ArtifactField, cols []engine.Column, foldCase bool) string {
	if f.Datatype != ossie.TypeDateTime && f.Datatype != ossie.TypeDateTimeTz {
		return ""
	}
	ref, ok := f.Expr.Node.(expr.Ref)
	if !ok {
		return ""
	}
	c, ok := column(cols, ref.Name, foldCase)
	if !ok {
		return ""
	}
	tz, ts := timestampKind(c.Type)
	switch {
	case !ts:
		return ""
	case f.Datatype == ossie.TypeDateTimeTz && !tz:
		return fmt.Sprintf("field %s.%s is declared DateTimeTz, but column %q of %s is %s, a timestamp without time zone; declare it DateTime (and its stored zone with the OSSIE timezone extension if it is not UTC)", ds, f.Name, c.Name, label, c.Type)
	case f.Datatype == ossie.TypeDateTime && tz:
		return fmt.Sprintf("field %s.%s is declared DateTime (naive), but column %q of %s is %s, which stores instants with a time zone; declare it DateTimeTz", ds, f.Name, c.Name, label, c.Type)
	}
	return ""
}

// timestampKind reads an engine type name: whether it is a timestamp and
// whether it carries a time zone. Spellings: DuckDB TIMESTAMP,
// TIMESTAMP_NS, TIMESTAMP WITH TIME ZONE; PostgreSQL TIMESTAMP,
// TIMESTAMPTZ; Trino timestamp(3), timestamp(3) with time zone.
func timestampKind(typ string) (tz, ts bool) {
	t := strings.ToUpper(strings.TrimSpace(typ))
	if !strings.HasPrefix(t, "TIMESTAMP") && !strings.HasPrefix(t, "DATETIME") {
		return false, false
	}
	tz = strings.HasPrefix(t, "TIMESTAMPTZ") || strings.HasPrefix(t, "TIMESTAMP_TZ") ||
		(strings.Contains(t, "WITH TIME ZONE") && !strings.Contains(t, "WITHOUT TIME ZONE"))
	return tz, true
}
