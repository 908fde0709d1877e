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

// source is the FROM item of dataset ds: its source, or under a policy
// restricting ds, the source narrowed to the rows the caller may read.
// Narrowing the source itself (rather than the query's WHERE) applies the
// filter wherever the dataset is read — home, joined dimension, filter or
// a measure's extra dataset — and keeps the query's meaning otherwise
// unchanged: a governed answer is the ungoverned answer over the data the
// caller may see.
func (s *query) source(ds string) string {
	src := s.pr.source[ds]
	if s.pol == nil {
		return src
	}
	alts, restricted := s.pol.rows[ds]
	if !restricted {
		return src
	}
	alias := s.d.QuoteIdent(ds)
	pred, reads := s.rowPredicate(ds, alts)
	if len(reads) == 0 {
		return "(SELECT * FROM " + src + " AS " + alias + " WHERE " + pred + ")"
	}
	joins, ok := s.toOneJoins(ds, reads)
	if !ok {
		return "(SELECT * FROM " + src + " AS " + alias + " WHERE " + falseSQL + ")"
	}
	return "(SELECT " + alias + ".* FROM " + src + " AS " + alias + joins + " WHERE " + pred + ")"
}

// toOneJoins LEFT JOINs to ds the datasets a row filter of ds reads, along
// the join tree; every hop must go from a many side to a one side, so no
// row of ds repeats. Each joined dataset is itself narrowed to the rows
// the caller may see: a filter on orders reading customers.region sees a
// hidden customer's fields as NULL. ok is false when a dataset is not
// reached that way (the filter then admits nothing).
func (s *query) toOneJoins(ds string, reads map[string]bool) (string, bool) {
	hops, order := s.p.tree(ds)
	need := map[string]bool{}
	for r := range reads {
		if _, ok := hops[r]; !ok {
			return "", false
		}
		for cur := r; cur != ds; cur = hops[cur].parent {
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
		r := hops[other].via.rel
		conds := make([]string, len(r.FromColumns))
		for i := range r.FromColumns {
			conds[i] = s.pr.colSQL(r.From, r.FromColumns[i]) + " = " + s.pr.colSQL(r.To, r.ToColumns[i])
		}
		b.WriteString(" LEFT JOIN " + s.source(other) + " AS " + s.d.QuoteIdent(other) + " ON " + strings.Join(conds, " AND "))
	}
	return b.String(), true
}

// rowPredicate ORs the alternatives (one per role), each the AND of its
// filters, and lists the other datasets the filters read. A filter that
// cannot be rendered — an attribute the caller does not have — admits
// nothing.
func (s *query) rowPredicate(ds string, alts [][]compiler.ArtifactRowFilter) (string, map[string]bool) {
	reads := map[string]bool{}
	var ors []string
	for _, alt := range alts {
		var ands []string
		for _, rf := range alt {
			sql, err := expr.Render(rf.Expr.Node, s.d, func(r expr.Ref) (string, error) {
				if r.Qualifier == compiler.CallerQualifier {
					v, ok := s.pol.attribute(r.Name)
					if !ok {
						return "", errNoAttribute
					}
					return s.d.QuoteString(v), nil
				}
				x, ok := s.pr.fieldSQL[fieldKey(r.Qualifier, r.Name)]
				if !ok {
					return "", errors.New("row filter reads " + r.Qualifier + "." + r.Name)
				}
				if r.Qualifier != ds {
					reads[r.Qualifier] = true
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

// metricNames and fieldNames are the did-you-mean candidates: readable
// members only, so a suggestion never names a hidden one.
func (s *query) metricNames() []string {
	if s.pol == nil {
		return s.p.metricNames
	}
	return s.pol.metricNames
}

func (s *query) fieldNames() []string {
	if s.pol == nil {
		return s.p.fieldNames
	}
	return s.pol.fieldNames
}
