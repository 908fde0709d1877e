package gen

import (
	"fmt"
	"strings"

	"github.com/ossie-dev/ossie/test/differential/dcase"
	"github.com/ossie-dev/ossie/test/reference"
)

// governance draws a governance document and a caller: one or two roles,
// row filters on a caller attribute or on literals (on the fact's own
// field or on a dimension's field it reaches many-to-one), masks of every
// kind on text fields, and a caller holding some of the roles, its
// attribute sometimes missing (then the filter admits no rows).
func (b *builder) governance() {
	r := b.r
	g := &reference.Governance{Attributes: []string{"region"}}
	textFields := []string{"fact.cat"}
	// A row filter on the fact reading d1 would cross the choice of
	// parallel relationships, which row filters cannot make.
	if b.field("d1.name") != nil && !b.parallel {
		textFields = append(textFields, "d1.name")
	}
	for i, n := 0, 1+r.Intn(2); i < n; i++ {
		role := reference.Role{Name: fmt.Sprintf("role%d", i)}
		if chance(r, 0.7) {
			f := reference.RowFilter{Dataset: "fact", Op: "="}
			f.Field = pick(r, textFields)
			if f.Field == "fact.cat" {
				f.Field = "cat"
			}
			switch {
			case chance(r, 0.6):
				f.Attr = "region"
			case chance(r, 0.5):
				f.Op, f.Values = "IN", []any{pick(r, words[:3]), pick(r, words[:4])}
			default:
				f.Op, f.Values = "<>", []any{pick(r, words[:3])}
			}
			role.RowFilters = append(role.RowFilters, f)
		}
		if chance(r, 0.6) {
			mk := reference.Mask{Field: pick(r, textFields), Kind: pick(r, []string{"null", "literal", "hash", "partial"}), AllowAggregates: chance(r, 0.8)}
			switch mk.Kind {
			case "literal":
				mk.Value = "hidden"
			case "partial":
				mk.KeepFirst, mk.KeepLast = 1, r.Intn(2)
			}
			role.Masks = append(role.Masks, mk)
		}
		g.Roles = append(g.Roles, role)
	}
	c := &dcase.Caller{Attributes: map[string]string{}}
	for _, role := range g.Roles {
		if len(c.Roles) == 0 || chance(r, 0.5) {
			c.Roles = append(c.Roles, role.Name)
		}
	}
	if chance(r, 0.85) {
		key := "region"
		if chance(r, 0.2) {
			key = "Region" // matched ignoring case
		}
		c.Attributes[key] = pick(r, words[:4])
	}
	b.gov, b.caller = g, c
}

// masked: the field has a mask in some role (its order under an engine's
// collation is not byte order: `****`).
func (b *builder) masked(member string) bool {
	if b.gov == nil {
		return false
	}
	for _, role := range b.gov.Roles {
		for _, mk := range role.Masks {
			if mk.Field == member {
				return true
			}
		}
	}
	return false
}

// renderGovernance writes g as a governance file (docs/governance.md).
func renderGovernance(g *reference.Governance) []byte {
	var s strings.Builder
	s.WriteString("attributes:\n")
	for _, a := range g.Attributes {
		fmt.Fprintf(&s, "  - name: %s\n", a)
	}
	s.WriteString("roles:\n")
	for _, r := range g.Roles {
		fmt.Fprintf(&s, "  - name: %s\n", r.Name)
		if len(r.RowFilters) > 0 {
			s.WriteString("    row_filters:\n")
			for _, f := range r.RowFilters {
				rhs := "{{ caller." + f.Attr + " }}"
				if f.Attr == "" {
					var lits []string
					for _, v := range f.Values {
						lits = append(lits, literal(v))
					}
					rhs = strings.Join(lits, ", ")
					if f.Op == "IN" {
						rhs = "(" + rhs + ")"
					}
				}
				fmt.Fprintf(&s, "      - dataset: %s\n        expression: %s\n", f.Dataset, q(f.Field+" "+f.Op+" "+rhs))
			}
		}
		if len(r.Masks) > 0 {
			s.WriteString("    masks:\n")
			for _, mk := range r.Masks {
				fmt.Fprintf(&s, "      - field: %s\n        mask: %q\n", mk.Field, mk.Kind)
				switch mk.Kind {
				case "literal":
					fmt.Fprintf(&s, "        value: %s\n", q(mk.Value))
				case "partial":
					fmt.Fprintf(&s, "        keep_first: %d\n        keep_last: %d\n", mk.KeepFirst, mk.KeepLast)
				}
				if mk.AllowAggregates {
					s.WriteString("        allow_aggregates: true\n")
				}
			}
		}
	}
	return []byte(s.String())
}
