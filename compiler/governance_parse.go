package compiler

import (
	"encoding/json"
	"math"

	"github.com/ossie-dev/ossie/api/ossie"
)

// governanceRoot is the path prefix of every governance problem: the
// SemanticModel's spec.governance, and the top of an ossiectl governance
// file (whose `views` appear as governance.views too).
const governanceRoot = "governance"

// ParseGovernance reads a governance document (YAML or JSON) strictly, as
// Parse reads an Ossie document: unknown keys (with a did you mean), wrong
// types, missing required keys and invalid mask kinds are problems with a
// path such as `governance.roles[1].masks[0].mask` and the line:column in
// data; every problem is returned at once. The shape (docs/governance.md):
//
//	attributes: [{name, description}]
//	roles: [{name, description, metrics: {allow, deny}, fields: {allow, deny},
//	         row_filters: [{dataset, expression}],
//	         masks: [{field, mask, value, keep_first, keep_last, allow_aggregates}]}]
//	views: [...]   # carried as written (Governance.Views)
//
// The operator passes the JSON of spec.governance; ossiectl a file. The
// result is never nil; meaning (references, expressions) is checked by
// Validate/Compile once it is attached as Parsed.Governance.
func ParseGovernance(data []byte) (*Governance, Problems) {
	g := &Governance{}
	root, probs := readYAML(data)
	for i := range probs {
		probs[i].Path = joinKey(governanceRoot, probs[i].Path)
	}
	if root == nil && len(probs) > 0 {
		probs.Sort()
		return g, probs
	}
	if root == nil {
		root = &ynode{kind: kindMap, pos: Position{Line: 1, Column: 1}}
	}
	g.positions = map[string]Position{}
	for p, pos := range collectPositions(root) {
		g.positions[joinKey(governanceRoot, p)] = pos
	}
	w := &walker{probs: probs}
	w.object(root, governanceRoot, "governance", []key{
		{name: "attributes", read: func(n *ynode, path string) {
			w.list(n, path, "a list of attributes", func(n *ynode, path string) {
				var a ossie.GovernanceAttribute
				if w.object(n, path, "attribute", []key{
					{name: "name", required: true, read: w.str(&a.Name)},
					{name: "description", read: w.str(&a.Description)},
				}) {
					g.Attributes = append(g.Attributes, a)
				}
			})
		}},
		{name: "roles", read: func(n *ynode, path string) {
			w.list(n, path, "a list of roles", func(n *ynode, path string) {
				var r ossie.Role
				if w.object(n, path, "role", roleKeys(w, &r)) {
					g.Roles = append(g.Roles, r)
				}
			})
		}},
		{name: "views", read: func(n *ynode, path string) {
			w.list(n, path, "a list of views", func(n *ynode, path string) {
				raw, err := json.Marshal(n.jsonValue())
				if err != nil {
					w.add(CodeWrongType, path, n.pos, "view cannot be read as JSON: "+err.Error())
					return
				}
				g.Views = append(g.Views, raw)
			})
		}},
	})
	w.probs.Sort()
	return g, w.probs
}

func roleKeys(w *walker, r *ossie.Role) []key {
	access := func(dst **Access) func(*ynode, string) {
		return func(n *ynode, path string) {
			a := &Access{}
			if w.object(n, path, "access", []key{
				{name: "allow", read: w.strList(&a.Allow, false, true)},
				{name: "deny", read: w.strList(&a.Deny, false, false)},
			}) {
				*dst = a
			}
		}
	}
	return []key{
		{name: "name", required: true, read: w.str(&r.Name)},
		{name: "description", read: w.str(&r.Description)},
		{name: "metrics", read: access(&r.Metrics)},
		{name: "fields", read: access(&r.Fields)},
		{name: "row_filters", read: func(n *ynode, path string) {
			w.list(n, path, "a list of row filters", func(n *ynode, path string) {
				var f ossie.RowFilter
				if w.object(n, path, "row filter", []key{
					{name: "dataset", required: true, read: w.str(&f.Dataset)},
					{name: "expression", required: true, read: w.str(&f.Expression)},
				}) {
					r.RowFilters = append(r.RowFilters, f)
				}
			})
		}},
		{name: "masks", read: func(n *ynode, path string) {
			w.list(n, path, "a list of masks", func(n *ynode, path string) {
				var m Mask
				if w.object(n, path, "mask", []key{
					{name: "field", required: true, read: w.str(&m.Field)},
					{name: "mask", required: true, read: enum(w, &m.Mask, ossie.MaskKinds, "mask kind")},
					{name: "value", read: w.str(&m.Value)},
					{name: "keep_first", read: w.count(&m.KeepFirst)},
					{name: "keep_last", read: w.count(&m.KeepLast)},
					{name: "allow_aggregates", read: w.boolean(&m.AllowAggregates)},
				}) {
					r.Masks = append(r.Masks, m)
				}
			})
		}},
	}
}

// count reads a whole number from 0 to 1000 (mask widths).
func (w *walker) count(dst *int) func(*ynode, string) {
	return func(n *ynode, path string) {
		var v float64
		switch x := n.num.(type) {
		case int64:
			v = float64(x)
		case uint64:
			v = float64(x)
		case float64:
			v = x
		}
		if (n.kind != kindInt && n.kind != kindFloat) || v != math.Trunc(v) || v < 0 || v > 1000 {
			w.wrongType(n, path, "a whole number from 0 to 1000")
			return
		}
		*dst = int(v)
	}
}

// boolean reads true or false (never a quoted string).
func (w *walker) boolean(dst *bool) func(*ynode, string) {
	return func(n *ynode, path string) {
		if n.kind != kindBool {
			w.wrongType(n, path, "true or false")
			return
		}
		*dst = n.b
	}
}

// locate is the position of path (or its longest known prefix) in the
// governance source.
func (g *Governance) locate(path string) Position {
	return (&Parsed{Positions: g.positions}).Locate(path)
}
