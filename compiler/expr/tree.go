// Package expr is the compiler's typed expression tree for the Ossie SQL
// expression language (OSSIE_SQL_2026 / ANSI_SQL, apache/ossie
// core-spec/expression_language.md). Parse builds it from text through
// pg_query_go under a bounded grammar; Render prints it for one SQL dialect.
// Nodes are plain values, JSON-serialisable through Marshal/Unmarshal, so an
// artifact can carry them.
package expr

// Node is one expression node.
type Node interface{ node() }

// Ref is a column or member reference. In a field expression a bare Ref
// (Qualifier == "") names a physical column of the dataset's source; in a
// metric expression `dataset.field` names a field and a bare name a metric
// (derived metrics) or, when no metric has that name, a field of the only
// dataset the metric reads. Quoted records whether the name was written in
// double quotes (exact case); unquoted names are folded to lower case by
// Parse, as SQL does.
type Ref struct {
	Qualifier string `json:"q,omitempty"`
	Name      string `json:"n"`
	Quoted    bool   `json:"quoted,omitempty"`
}

// LitKind is the kind of a Literal.
type LitKind string

const (
	LitNumber LitKind = "number" // Value holds the decimal text as written
	LitString LitKind = "string" // Value holds the unescaped string
	LitBool   LitKind = "bool"   // Value is "true" or "false"
	LitNull   LitKind = "null"
)

// Literal is a constant. Typed literals (DATE '2024-01-01') are Cast nodes.
type Literal struct {
	Kind  LitKind `json:"kind"`
	Value string  `json:"v,omitempty"`
}

// Unary is `-x`, `+x` or `NOT x` (Op is "-", "+" or "NOT").
type Unary struct {
	Op string `json:"op"`
	X  Node   `json:"x"`
}

// Binary is an infix operator: arithmetic (+ - * / %), comparison
// (= <> < <= > >=), logic (AND OR), concatenation (||), and
// IS [NOT] DISTINCT FROM (Op "IS DISTINCT FROM" / "IS NOT DISTINCT FROM").
type Binary struct {
	Op string `json:"op"`
	L  Node   `json:"l"`
	R  Node   `json:"r"`
}

// Between is `X [NOT] BETWEEN Lo AND Hi`.
type Between struct {
	X   Node `json:"x"`
	Lo  Node `json:"lo"`
	Hi  Node `json:"hi"`
	Not bool `json:"not,omitempty"`
}

// In is `X [NOT] IN (List...)`; only value lists, never subqueries.
type In struct {
	X    Node   `json:"x"`
	List []Node `json:"list"`
	Not  bool   `json:"not,omitempty"`
}

// Like is `X [NOT] LIKE|ILIKE Pattern`.
type Like struct {
	X       Node `json:"x"`
	Pattern Node `json:"pattern"`
	Not     bool `json:"not,omitempty"`
	ILike   bool `json:"ilike,omitempty"`
}

// IsNull is `X IS [NOT] NULL`.
type IsNull struct {
	X   Node `json:"x"`
	Not bool `json:"not,omitempty"`
}

// When is one `WHEN Cond THEN Then` arm.
type When struct {
	Cond Node `json:"cond"`
	Then Node `json:"then"`
}

// Case is searched (Operand nil) or simple CASE; Else may be nil.
type Case struct {
	Operand Node   `json:"operand,omitempty"`
	Whens   []When `json:"whens"`
	Else    Node   `json:"else,omitempty"`
}

// Cast is `CAST(X AS Type)` or, with Try, `TRY_CAST`. Type is one of the
// canonical names VARCHAR, BIGINT, INTEGER, DECIMAL, DOUBLE, BOOLEAN, DATE,
// TIMESTAMP, TIME (with Precision/Scale for DECIMAL when given).
type Cast struct {
	X         Node   `json:"x"`
	Type      string `json:"type"`
	Precision int    `json:"p,omitempty"`
	Scale     int    `json:"s,omitempty"`
	Try       bool   `json:"try,omitempty"`
}

// Func is a function call. Name is upper case and canonical (CEILING → CEIL).
// Star marks COUNT(*); Distinct marks COUNT(DISTINCT x) and friends; Filter
// is the aggregate FILTER (WHERE ...) clause; WithinGroup holds the ORDER BY
// expression of PERCENTILE_CONT/DISC ... WITHIN GROUP.
type Func struct {
	Name        string `json:"name"`
	Args        []Node `json:"args,omitempty"`
	Star        bool   `json:"star,omitempty"`
	Distinct    bool   `json:"distinct,omitempty"`
	Filter      Node   `json:"filter,omitempty"`
	WithinGroup Node   `json:"within_group,omitempty"`
}

// Keyword is a bare date-part or keyword argument such as the part in
// EXTRACT(YEAR FROM x) or DATEADD(day, 1, x); Name is upper case.
type Keyword struct {
	Name string `json:"kw"`
}

func (Ref) node()     {}
func (Literal) node() {}
func (Unary) node()   {}
func (Binary) node()  {}
func (Between) node() {}
func (In) node()      {}
func (Like) node()    {}
func (IsNull) node()  {}
func (Case) node()    {}
func (Cast) node()    {}
func (Func) node()    {}
func (Keyword) node() {}

// Expr wraps a Node so it can be stored in JSON (artifacts): it marshals as
// a tagged object (`{"t":"ref",...}`) and unmarshals back to the same tree.
// A zero Expr (Node nil) marshals as null.
type Expr struct {
	Node Node
}
