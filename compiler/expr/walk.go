package expr

// deref turns a pointer node (*Ref, *Func, ...) into its value form so the
// helpers of this package accept both; Parse itself only builds values. A nil
// pointer becomes a nil Node.
func deref(n Node) Node {
	switch x := n.(type) {
	case *Ref:
		if x != nil {
			return *x
		}
	case *Literal:
		if x != nil {
			return *x
		}
	case *Unary:
		if x != nil {
			return *x
		}
	case *Binary:
		if x != nil {
			return *x
		}
	case *Between:
		if x != nil {
			return *x
		}
	case *In:
		if x != nil {
			return *x
		}
	case *Like:
		if x != nil {
			return *x
		}
	case *IsNull:
		if x != nil {
			return *x
		}
	case *Case:
		if x != nil {
			return *x
		}
	case *Cast:
		if x != nil {
			return *x
		}
	case *Func:
		if x != nil {
			return *x
		}
	case *Keyword:
		if x != nil {
			return *x
		}
	default:
		return n
	}
	return nil
}

// Walk visits n and its descendants in pre-order (operands left to right;
// a CASE visits Operand, then each When's Cond and Then, then Else; a Func
// visits Args, then Filter, then WithinGroup). When fn returns false the
// children of that node are skipped. Nil children are not visited.
func Walk(n Node, fn func(Node) bool) {
	n = deref(n)
	if n == nil || !fn(n) {
		return
	}
	for _, c := range children(n) {
		Walk(c, fn)
	}
}

// children lists the direct non-nil children of n in visiting order.
func children(n Node) []Node {
	var out []Node
	add := func(xs ...Node) {
		for _, x := range xs {
			if deref(x) != nil {
				out = append(out, x)
			}
		}
	}
	switch x := deref(n).(type) {
	case Unary:
		add(x.X)
	case Binary:
		add(x.L, x.R)
	case Between:
		add(x.X, x.Lo, x.Hi)
	case In:
		add(x.X)
		add(x.List...)
	case Like:
		add(x.X, x.Pattern)
	case IsNull:
		add(x.X)
	case Case:
		add(x.Operand)
		for _, w := range x.Whens {
			add(w.Cond, w.Then)
		}
		add(x.Else)
	case Cast:
		add(x.X)
	case Func:
		add(x.Args...)
		add(x.Filter, x.WithinGroup)
	}
	return out
}

// Rewrite rebuilds n bottom-up: each node's children are rewritten first,
// then fn receives the node with its new children and returns its
// replacement (return the argument to keep it). The input tree is never
// modified; slices are copied. A nil n yields nil without calling fn.
func Rewrite(n Node, fn func(Node) Node) Node {
	n = deref(n)
	if n == nil {
		return nil
	}
	rw := func(c Node) Node { return Rewrite(c, fn) }
	rwAll := func(cs []Node) []Node {
		if cs == nil {
			return nil
		}
		out := make([]Node, len(cs))
		for i, c := range cs {
			out[i] = rw(c)
		}
		return out
	}
	switch x := n.(type) {
	case Unary:
		x.X = rw(x.X)
		n = x
	case Binary:
		x.L, x.R = rw(x.L), rw(x.R)
		n = x
	case Between:
		x.X, x.Lo, x.Hi = rw(x.X), rw(x.Lo), rw(x.Hi)
		n = x
	case In:
		x.X, x.List = rw(x.X), rwAll(x.List)
		n = x
	case Like:
		x.X, x.Pattern = rw(x.X), rw(x.Pattern)
		n = x
	case IsNull:
		x.X = rw(x.X)
		n = x
	case Case:
		x.Operand = rw(x.Operand)
		if x.Whens != nil {
			ws := make([]When, len(x.Whens))
			for i, w := range x.Whens {
				ws[i] = When{Cond: rw(w.Cond), Then: rw(w.Then)}
			}
			x.Whens = ws
		}
		x.Else = rw(x.Else)
		n = x
	case Cast:
		x.X = rw(x.X)
		n = x
	case Func:
		x.Args = rwAll(x.Args)
		x.Filter, x.WithinGroup = rw(x.Filter), rw(x.WithinGroup)
		n = x
	}
	return fn(n)
}

// Refs returns every Ref in n in pre-order, each distinct Ref (same
// Qualifier, Name and Quoted) once, at its first occurrence.
func Refs(n Node) []Ref {
	var out []Ref
	seen := map[Ref]bool{}
	Walk(n, func(x Node) bool {
		if r, ok := x.(Ref); ok && !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
		return true
	})
	return out
}
