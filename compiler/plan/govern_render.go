package plan

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/expr"
)

// falseSQL admits no row on every engine.
const falseSQL = "(1 = 0)"

// errNoAttribute marks a row filter reading an attribute the caller lacks.
var errNoAttribute = errors.New("caller attribute not set")

// source writes the FROM item of dataset ds: its source, or for a
// rowFilter (rewrite_governance.go) the source narrowed to the rows the
// caller may read. Narrowing the source itself (rather than the query's
// WHERE) applies the filter wherever the dataset is read and keeps the
// query's meaning otherwise unchanged.
func (r *renderer) source(ds string, rf *rowFilter) {
	if rf == nil {
		r.sql.WriteString(r.pr.source[ds])
		return
	}
	r.sql.WriteString(r.narrowed(ds, rf.alts))
}

// narrowed is the source of ds narrowed by its role alternatives.
func (r *renderer) narrowed(ds string, alts [][]compiler.ArtifactRowFilter) string {
	src := r.pr.source[ds]
	alias := r.d.QuoteIdent(ds)
	pred, reads := r.rowPredicate(ds, alts)
	if len(reads) == 0 {
		return "(SELECT * FROM " + src + " AS " + alias + " WHERE " + pred + ")"
	}
	joins, ok := r.toOneJoins(ds, reads)
	if !ok {
		return "(SELECT * FROM " + src + " AS " + alias + " WHERE " + falseSQL + ")"
	}
	return "(SELECT " + alias + ".* FROM " + src + " AS " + alias + joins + " WHERE " + pred + ")"
}

// sourceOf is the FROM item of ds as read inside a row filter: narrowed
// too when the caller's roles restrict ds.
func (r *renderer) sourceOf(ds string) string {
	if alts, restricted := r.b.pol.rows[ds]; restricted {
		return r.narrowed(ds, alts)
	}
	return r.pr.source[ds]
}

// toOneJoins LEFT JOINs to ds the datasets a row filter of ds reads, along
// the join tree; every hop must go from a many side to a one side, so no
// row of ds repeats. Each joined dataset is itself narrowed to the rows
// the caller may see: a filter on orders reading customers.region sees a
// hidden customer's fields as NULL. ok is false when a dataset is not
// reached that way (the filter then admits nothing).
func (r *renderer) toOneJoins(ds string, reads map[string]bool) (string, bool) {
	hops, order := r.p.tree(ds)
	need := map[string]bool{}
	for rd := range reads {
		if _, ok := hops[rd]; !ok {
			return "", false
		}
		for cur := rd; cur != ds; cur = hops[cur].parent {
			if !hops[cur].via.toOne {
				return "", false
			}
			need[cur] = true
		}
	}
	var b strings.Builder
	for _, other := range order[1:] {
		if !need[other] {
			continue
		}
		rel := hops[other].via.rel
		conds := make([]string, len(rel.FromColumns))
		for i := range rel.FromColumns {
			conds[i] = r.pr.colSQL(rel.From, rel.FromColumns[i]) + " = " + r.pr.colSQL(rel.To, rel.ToColumns[i])
		}
		b.WriteString(" LEFT JOIN " + r.sourceOf(other) + " AS " + r.d.QuoteIdent(other) + " ON " + strings.Join(conds, " AND "))
	}
	return b.String(), true
}

// rowPredicate ORs the alternatives (one per role), each the AND of its
// filters, and lists the other datasets the filters read. A filter that
// cannot be rendered — an attribute the caller does not have — admits
// nothing.
func (r *renderer) rowPredicate(ds string, alts [][]compiler.ArtifactRowFilter) (string, map[string]bool) {
	return r.rowPredicateOver(ds, alts, func(key string) (string, bool) {
		x, ok := r.pr.fieldSQL[key]
		return x, ok
	})
}

// rowPredicateOver is rowPredicate with each field "dataset.field" read as
// field(key) (the field's SQL, or a rollup column holding it).
func (r *renderer) rowPredicateOver(ds string, alts [][]compiler.ArtifactRowFilter, field func(key string) (string, bool)) (string, map[string]bool) {
	pol := r.b.pol
	reads := map[string]bool{}
	var ors []string
	for _, alt := range alts {
		var ands []string
		for _, rf := range alt {
			sql, err := expr.Render(rf.Expr.Node, r.d, func(ref expr.Ref) (string, error) {
				if ref.Qualifier == compiler.CallerQualifier {
					v, ok := pol.attribute(ref.Name)
					if !ok {
						return "", errNoAttribute
					}
					return r.d.QuoteString(v), nil
				}
				x, ok := field(fieldKey(ref.Qualifier, ref.Name))
				if !ok {
					return "", errors.New("row filter reads " + ref.Qualifier + "." + ref.Name)
				}
				if ref.Qualifier != ds {
					reads[ref.Qualifier] = true
				}
				return "(" + x + ")", nil
			})
			if err != nil {
				sql = falseSQL
			}
			ands = append(ands, "("+sql+")")
		}
		ors = append(ors, strings.Join(ands, " AND "))
	}
	if len(ors) == 0 {
		return falseSQL, reads
	}
	if len(ors) == 1 {
		return ors[0], reads
	}
	return "(" + strings.Join(ors, " OR ") + ")", reads
}

// attribute returns the caller's value of attribute name: the key spelled
// exactly, else the one key equal to it ignoring case (authentication may
// lower-case keys). A value that is not valid UTF-8 or holds a NUL byte
// counts as missing: SQL text cannot carry it unchanged, and a changed
// value must not match rows meant for another.
func (pol *policy) attribute(name string) (string, bool) {
	v, ok := pol.attrs[name]
	if !ok {
		n := 0
		for k, kv := range pol.attrs {
			if strings.EqualFold(k, name) {
				v, ok = kv, true
				n++
			}
		}
		if n > 1 {
			return "", false
		}
	}
	if !ok || !utf8.ValidString(v) || strings.ContainsRune(v, 0) {
		return "", false
	}
	return v, true
}

// maskSQL renders the masked form of x (a field's SQL) as text.
func maskSQL(d dialect.Dialect, m compiler.Mask, x string) string {
	text := "CAST(" + x + " AS " + d.TypeName("VARCHAR") + ")"
	switch m.Mask {
	case compiler.MaskLiteral:
		return d.QuoteString(m.Value)
	case compiler.MaskHash:
		return dialect.MD5Hex(d, text)
	case compiler.MaskPartial:
		// A fixed run of stars hides the length; values too short to keep
		// both ends are hidden whole.
		keep := m.KeepFirst + m.KeepLast
		return "CASE WHEN " + text + " IS NULL THEN NULL WHEN length(" + text + ") <= " + strconv.Itoa(keep) +
			" THEN '****' ELSE substr(" + text + ", 1, " + strconv.Itoa(m.KeepFirst) + ") || '****' || substr(" +
			text + ", length(" + text + ") - " + strconv.Itoa(m.KeepLast) + " + 1) END"
	}
	return "CAST(NULL AS " + d.TypeName("VARCHAR") + ")"
}

// maskedField is how a masked field looks to the planner: text, not time.
func maskedField(f *compiler.ArtifactField) *compiler.ArtifactField {
	c := *f
	c.Datatype = ossie.TypeString
	c.IsTime = false
	return &c
}
