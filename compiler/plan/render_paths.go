package plan

import (
	"github.com/ossie-dev/ossie/compiler/expr"
)

// aliasJoinCond writes the ON condition of a join one of whose sides is a
// join alias (rewrite_paths.go): the relationship's columns over the two
// nodes' aliases instead of the datasets' names.
func (r *renderer) aliasJoinCond(j *join) {
	rel := j.rel
	from, to := j.parent, j.alias
	if !j.toOne {
		from, to = j.alias, j.parent
	}
	for i := range rel.FromColumns {
		if i > 0 {
			r.sql.WriteString(" AND ")
		}
		r.sql.WriteString(r.fieldSQLAt(rel.From, rel.FromColumns[i], from))
		r.sql.WriteString(" = ")
		r.sql.WriteString(r.fieldSQLAt(rel.To, rel.ToColumns[i], to))
	}
}

// fieldSQLAt is the SQL of field (or, when ds has no such field, the
// physical column) of dataset ds read under alias. Under the dataset's
// own name it is the prepared text; an alias re-renders the field's
// expression, which only queries with a second path pay for.
func (r *renderer) fieldSQLAt(ds, field, alias string) string {
	if alias == ds {
		return r.pr.colSQL(ds, field)
	}
	q := r.d.QuoteIdent(alias)
	if d := r.p.art.Dataset(ds); d != nil {
		if f := d.Field(field); f != nil {
			s, err := expr.Render(f.Expr.Node, r.d, func(ref expr.Ref) (string, error) {
				return q + "." + r.d.QuoteIdent(ref.Name), nil
			})
			if err != nil {
				return "NULL" // as prepare renders a field it cannot
			}
			return s
		}
	}
	return q + "." + r.d.QuoteIdent(field)
}

// aliasOr is a FROM item's alias: alias when set, else the dataset's name.
func aliasOr(alias, ds string) string {
	if alias != "" {
		return alias
	}
	return ds
}
