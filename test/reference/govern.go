package reference

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/ossie-dev/ossie/test/differential/dcase"
)

// governed is a caller's effective rules: its roles defined by the
// document, sorted by name (docs/governance.md, "Callers").
type governed struct {
	roles  []*Role
	caller *dcase.Caller
}

func newGoverned(g *Governance, c *dcase.Caller) *governed {
	out := &governed{caller: c}
	for i := range g.Roles {
		for _, r := range c.Roles {
			if r == g.Roles[i].Name {
				out.roles = append(out.roles, &g.Roles[i])
				break
			}
		}
	}
	sort.Slice(out.roles, func(i, j int) bool { return out.roles[i].Name < out.roles[j].Name })
	return out
}

// allowed applies allow/deny glob lists: deny wins, a nil allow list
// allows everything not denied.
func allowed(name string, allow, deny []string) bool {
	for _, p := range deny {
		if ok, _ := path.Match(p, name); ok {
			return false
		}
	}
	if allow == nil {
		return true
	}
	for _, p := range allow {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

func (g *governed) fieldReadable(f string) bool {
	for _, r := range g.roles {
		if allowed(f, r.FieldAllow, r.FieldDeny) {
			return true
		}
	}
	return false
}

// maskOf is the mask a field shows with: none when a role reading it
// leaves it unmasked, else the first role's (by name) masking it.
func (g *governed) maskOf(f string) *Mask {
	var first *Mask
	for _, r := range g.roles {
		if !allowed(f, r.FieldAllow, r.FieldDeny) {
			continue
		}
		var mk *Mask
		for i := range r.Masks {
			if r.Masks[i].Field == f {
				mk = &r.Masks[i]
			}
		}
		if mk == nil {
			return nil
		}
		if first == nil {
			first = mk
		}
	}
	return first
}

// mask is the mask the caller sees a field with (nil: none).
func (e *evaluator) mask(f string) *Mask {
	if e.gov == nil {
		return nil
	}
	return e.gov.maskOf(f)
}

// metricReadable: some role's metric rules allow it and that role reads
// every field it reads, unmasked or masked with allow_aggregates
// (docs/governance.md, "Member access" and "Several roles").
func (e *evaluator) metricReadable(m *Metric) bool {
	if e.gov == nil {
		return true
	}
	fields := e.metricFields(m)
	for _, r := range e.gov.roles {
		if allowed(m.Name, r.MetricAllow, r.MetricDeny) && roleAggregates(r, fields) {
			return true
		}
	}
	return false
}

// roleAggregates: role r reads every field and masks none of them without
// allow_aggregates (privileges are a union: one such role suffices).
func roleAggregates(r *Role, fields []string) bool {
	for _, f := range fields {
		if !allowed(f, r.FieldAllow, r.FieldDeny) {
			return false
		}
		for _, mk := range r.Masks {
			if mk.Field == f && !mk.AllowAggregates {
				return false
			}
		}
	}
	return true
}

// metricFields lists the fields a metric reads, through the metrics it
// names and its type's parameters.
func (e *evaluator) metricFields(m *Metric) []string {
	var out []string
	var walk func(x Expr)
	walk = func(x Expr) {
		switch v := x.(type) {
		case *Agg:
			if v.Field != "" {
				out = append(out, v.Dataset+"."+v.Field)
			}
			if v.When != nil {
				out = append(out, v.Dataset+"."+v.When.Field)
			}
		case Ref:
			if r := e.metric[v.Metric]; r != nil {
				out = append(out, e.metricFields(r)...)
			}
		case *Bin:
			walk(v.L)
			walk(v.R)
		}
	}
	walk(m.Expr)
	if t := m.Type; t != nil {
		for _, f := range append([]string{t.Along, t.Entity, t.At, t.ToEntity, t.ToAt}, t.Per...) {
			if f != "" {
				out = append(out, f)
			}
		}
		if t.ToFilter != nil {
			ds, _ := splitMember(t.ToEntity)
			out = append(out, ds+"."+t.ToFilter.Field)
		}
	}
	return out
}

// applyMask is what a mask shows for a value (docs/governance.md,
// "Masks"); hash and partial are generated over text columns only, whose
// text is the value itself.
func applyMask(mk *Mask, v any) any {
	switch mk.Kind {
	case "null":
		return nil
	case "literal":
		return mk.Value
	}
	if v == nil {
		return nil
	}
	s := fmt.Sprint(v)
	switch mk.Kind {
	case "hash":
		h := md5.Sum([]byte(s))
		return hex.EncodeToString(h[:])
	case "partial":
		r := []rune(s)
		if len(r) <= mk.KeepFirst+mk.KeepLast {
			return "****"
		}
		return string(r[:mk.KeepFirst]) + "****" + string(r[len(r)-mk.KeepLast:])
	}
	return v
}

// visible is the rows of ds the caller may see: a row is visible when at
// least one role admits it, and a role admits it when all of that role's
// row filters on ds hold (a role without one admits every row).
func (e *evaluator) visible(ds string) [][]any {
	if rows, ok := e.visMemo[ds]; ok {
		return rows
	}
	all := e.ds[ds].table.Rows
	if e.gov == nil {
		return all
	}
	var out [][]any
	for _, r := range all {
		for _, role := range e.gov.roles {
			if e.roleAdmits(role, ds, r) {
				out = append(out, r)
				break
			}
		}
	}
	e.visMemo[ds] = out
	return out
}

func (e *evaluator) roleAdmits(role *Role, ds string, row []any) bool {
	for _, f := range role.RowFilters {
		if f.Dataset != ds {
			continue
		}
		if !e.rowFilterHolds(f, ds, row) {
			return false
		}
	}
	return true
}

// rowFilterHolds evaluates one row filter on a row of ds, reading a field
// of another dataset through the many-to-one path, among its visible
// rows. A missing caller attribute admits nothing.
func (e *evaluator) rowFilterHolds(f RowFilter, ds string, row []any) bool {
	fds, field := ds, f.Field
	if i := strings.Index(f.Field, "."); i >= 0 {
		fds, field = f.Field[:i], f.Field[i+1:]
	}
	cur := row
	if fds != ds {
		hops, err := e.path(ds, rdim{ds: fds})
		if err != nil {
			return false
		}
		from := ds
		for _, h := range hops {
			if cur == nil {
				break
			}
			cur = e.lookupOne(from, cur, h.rel.FromColumns, h.rel.To, h.rel.ToColumns)
			from = h.rel.To
		}
	}
	v := e.raw(fds, cur, field)
	vals := f.Values
	if f.Attr != "" {
		a, ok := attribute(e.gov.caller.Attributes, f.Attr)
		if !ok {
			return false
		}
		vals = []any{a}
	}
	if v == nil {
		return false
	}
	eq := func(x any) bool {
		c, ok := compare(v, x)
		return ok && c == 0
	}
	switch f.Op {
	case "=":
		return eq(vals[0])
	case "<>":
		return !eq(vals[0])
	case "IN":
		for _, x := range vals {
			if eq(x) {
				return true
			}
		}
	}
	return false
}

// attribute is the caller's attribute: the exact key, else the one key
// equal ignoring case (two such keys: missing).
func attribute(attrs map[string]string, name string) (string, bool) {
	if v, ok := attrs[name]; ok {
		return v, true
	}
	var found []string
	for k, v := range attrs {
		if strings.EqualFold(k, name) {
			found = append(found, v)
		}
	}
	if len(found) == 1 {
		return found[0], true
	}
	return "", false
}
