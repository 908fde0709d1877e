package plan

import (
	"github.com/ossie-dev/ossie/compiler/expr"
)

// aliasJoin writes the right side and ON condition of a join one of
// whose sides is a join alias (rewrite_paths.go): the dataset (narrowed
// when a row filter replaced its scan) under the alias, and the
// relationship's columns over the two nodes' aliases.
func (r *renderer) aliasJoin(j *join) {
	ds := j.dataset
	var rf *rowFilter
	if f, ok := j.right.(*rowFilter); ok {
		rf = f
	}
	r.source(ds, rf)
	r.sql.WriteString(" AS ")
	r.ident(j.path.alias)
	r.sql.WriteString(" ON ")
	rel := j.rel
	from, to := j.path.parent, j.path.alias
	if !j.toOne {
		from, to = j.path.alias, j.path.parent
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
