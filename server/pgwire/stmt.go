package pgwire

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"
	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// prepared is a parsed statement (the unnamed one or a named one).
type prepared struct {
	sql  string
	stmt *pg_query.RawStmt // nil: the empty statement
	// params are the parameter types: declared by Parse, else inferred
	// from what each parameter is compared with.
	params []uint32
	// cols describe the rows (nil: the statement returns none).
	cols []outCol
}

// result is what a bound statement does when executed: stream a semantic
// answer, send rows computed here (catalog, SHOW), or apply a session
// change; tag is the CommandComplete tag of the last two.
type result struct {
	sem   *semantic
	rows  [][]any
	cols  []outCol
	tag   string
	apply func() error
}

func (r *result) columns() []outCol {
	if r.sem != nil {
		return r.sem.cols
	}
	return r.cols
}

// portal is a bound statement.
type portal struct {
	res     *result
	formats []int16
	// buffered holds the rows of an answer executed with a row limit
	// (Execute.MaxRows): fetched once, then sent page by page.
	buffered [][]any
	fetched  bool
	sent     int
}

func parseSQL(sql string) ([]*pg_query.RawStmt, error) {
	tree, err := pg_query.Parse(sql)
	if err != nil {
		return nil, &sqlError{Code: codeSyntax, Message: err.Error()}
	}
	return tree.GetStmts(), nil
}

// plan decides what stmt does for this connection, with params bound or
// not (Parse and Describe translate with unbound parameters to learn the
// columns and the parameter types).
func (c *conn) plan(stmt *pg_query.RawStmt, params *paramSet) (*result, error) {
	n := stmt.GetStmt()
	switch {
	case n.GetSelectStmt() != nil:
		s := n.GetSelectStmt()
		if isCatalogQuery(s) {
			return c.catalogQuery(s, params)
		}
		tr := &translator{cat: loadCatalog(c.ctx, c.e.b), params: params, zone: c.sess.zone()}
		sem, err := tr.selectStmt(s)
		if err != nil {
			return nil, err
		}
		return &result{sem: sem}, nil
	case n.GetVariableSetStmt() != nil:
		return c.setStmt(n.GetVariableSetStmt())
	case n.GetVariableShowStmt() != nil:
		return c.showStmt(n.GetVariableShowStmt())
	case n.GetDiscardStmt() != nil:
		if n.GetDiscardStmt().GetTarget() != pg_query.DiscardMode_DISCARD_ALL {
			return &result{tag: "DISCARD"}, nil // no plans, sequences or temporary tables are kept
		}
		return &result{tag: "DISCARD ALL", apply: func() error {
			c.sess = newSession()
			c.sess.settings["session_authorization"] = c.user
			clear(c.stmts)
			clear(c.portals)
			return nil
		}}, nil
	case n.GetTransactionStmt() != nil:
		return c.transaction(n.GetTransactionStmt())
	case n.GetDeallocateStmt() != nil:
		name := n.GetDeallocateStmt().GetName()
		return &result{tag: "DEALLOCATE", apply: func() error {
			if name == "" {
				clear(c.stmts)
			} else {
				delete(c.stmts, name)
			}
			return nil
		}}, nil
	}
	return nil, refusef(codeFeature, "%s: the SQL endpoint answers SELECT over model tables, SET, SHOW, DISCARD and transaction statements (a read-only session)", statementName(n))
}

// statementName names a statement for a refusal, e.g. "InsertStmt" → "INSERT".
func statementName(n *pg_query.Node) string {
	s := fmt.Sprintf("%T", n.GetNode())
	s = strings.TrimPrefix(s, "*pg_query.Node_")
	s = strings.TrimSuffix(s, "Stmt")
	return strings.ToUpper(s)
}

func (c *conn) transaction(t *pg_query.TransactionStmt) (*result, error) {
	switch t.GetKind() {
	case pg_query.TransactionStmtKind_TRANS_STMT_BEGIN, pg_query.TransactionStmtKind_TRANS_STMT_START:
		return &result{tag: "BEGIN", apply: func() error { c.tx = 'T'; return nil }}, nil
	case pg_query.TransactionStmtKind_TRANS_STMT_COMMIT:
		return &result{tag: "COMMIT", apply: func() error { c.tx = 'I'; return nil }}, nil
	case pg_query.TransactionStmtKind_TRANS_STMT_ROLLBACK:
		return &result{tag: "ROLLBACK", apply: func() error { c.tx = 'I'; return nil }}, nil
	case pg_query.TransactionStmtKind_TRANS_STMT_SAVEPOINT, pg_query.TransactionStmtKind_TRANS_STMT_RELEASE, pg_query.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO:
		// Nothing a read-only session does needs undoing, so a savepoint
		// is only checked for its place, as PostgreSQL does; psycopg's
		// nested transactions (SQLAlchemy's first connect) send them.
		tag := map[pg_query.TransactionStmtKind]string{
			pg_query.TransactionStmtKind_TRANS_STMT_SAVEPOINT:   "SAVEPOINT",
			pg_query.TransactionStmtKind_TRANS_STMT_RELEASE:     "RELEASE",
			pg_query.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO: "ROLLBACK",
		}[t.GetKind()]
		if c.tx != 'T' {
			return nil, refusef(codeNoTransaction, "%s can only be used in transaction blocks", tag)
		}
		return &result{tag: tag}, nil
	}
	return nil, refusef(codeFeature, "this transaction statement (prepared transactions)")
}

func (c *conn) setStmt(s *pg_query.VariableSetStmt) (*result, error) {
	name := s.GetName()
	switch s.GetKind() {
	case pg_query.VariableSetKind_VAR_RESET:
		return &result{tag: "RESET", apply: func() error {
			if v, ok := defaultSettings[strings.ToLower(name)]; ok {
				c.sess.settings[strings.ToLower(name)] = v
			}
			return nil
		}}, nil
	case pg_query.VariableSetKind_VAR_RESET_ALL:
		return &result{tag: "RESET", apply: func() error {
			c.sess = newSession()
			c.sess.settings["session_authorization"] = c.user
			return nil
		}}, nil
	case pg_query.VariableSetKind_VAR_SET_DEFAULT:
		return &result{tag: "SET", apply: func() error { return c.sess.set(name, defaultSettings[strings.ToLower(name)]) }}, nil
	case pg_query.VariableSetKind_VAR_SET_MULTI:
		return &result{tag: "SET"}, nil // SET TRANSACTION / SESSION CHARACTERISTICS: read-only anyway
	case pg_query.VariableSetKind_VAR_SET_VALUE:
	default:
		return nil, refusef(codeFeature, "SET %s", name)
	}
	var vals []string
	for _, a := range s.GetArgs() {
		ac := a.GetAConst()
		switch {
		case ac == nil:
			if tc := a.GetTypeCast(); tc != nil && tc.GetArg().GetAConst() != nil {
				ac = tc.GetArg().GetAConst()
			} else {
				return nil, refusef(codeFeature, "SET %s to an expression", name)
			}
		}
		switch {
		case ac.GetSval() != nil:
			vals = append(vals, ac.GetSval().GetSval())
		case ac.GetIval() != nil:
			vals = append(vals, strconv.Itoa(int(ac.GetIval().GetIval())))
		case ac.GetFval() != nil:
			vals = append(vals, ac.GetFval().GetFval())
		case ac.GetBoolval() != nil:
			vals = append(vals, strconv.FormatBool(ac.GetBoolval().GetBoolval()))
		}
	}
	v := strings.Join(vals, ", ")
	if strings.EqualFold(name, "timezone") {
		// Validate now so an extended-protocol Parse already refuses it.
		probe := newSession()
		if err := probe.set(name, v); err != nil {
			return nil, err
		}
	}
	tag := "SET"
	return &result{tag: tag, apply: func() error {
		if err := c.sess.set(name, v); err != nil {
			return err
		}
		if strings.EqualFold(name, "timezone") || strings.EqualFold(name, "application_name") || strings.EqualFold(name, "datestyle") {
			for _, k := range reportedSettings {
				if strings.EqualFold(k, name) {
					c.be.Send(&pgproto3.ParameterStatus{Name: k, Value: c.sess.get(k)})
				}
			}
		}
		return nil
	}}, nil
}

func (c *conn) showStmt(s *pg_query.VariableShowStmt) (*result, error) {
	name := strings.ToLower(s.GetName())
	if name == "all" {
		res := &result{tag: "SHOW", cols: []outCol{{Name: "name", OID: oidText}, {Name: "setting", OID: oidText}, {Name: "description", OID: oidText, src: 2}}}
		res.cols[1].src = 1
		for k, v := range c.sess.settings {
			res.rows = append(res.rows, []any{k, v, ""})
		}
		return res, nil
	}
	if name == "time zone" {
		name = "timezone"
	}
	if !c.sess.known(name) {
		return nil, &sqlError{Code: codeUndefinedObject, Message: "unrecognized configuration parameter \"" + s.GetName() + "\""}
	}
	return &result{tag: "SHOW", cols: []outCol{{Name: name, OID: oidText}}, rows: [][]any{{c.sess.get(name)}}}, nil
}

// rowDescription describes cols in the given result formats.
func rowDescription(cols []outCol, formats []int16) *pgproto3.RowDescription {
	rd := &pgproto3.RowDescription{Fields: make([]pgproto3.FieldDescription, len(cols))}
	for i, col := range cols {
		rd.Fields[i] = pgproto3.FieldDescription{Name: []byte(col.Name), DataTypeOID: col.OID, DataTypeSize: typeSize(col.OID),
			TypeModifier: -1, Format: formatOf(formats, i)}
	}
	return rd
}

func formatOf(formats []int16, i int) int16 {
	switch len(formats) {
	case 0:
		return 0
	case 1:
		return formats[0]
	}
	if i < len(formats) {
		return formats[i]
	}
	return 0
}

// simpleQuery runs every statement of a Query message in turn, stopping
// at the first error, then reports ReadyForQuery.
func (c *conn) simpleQuery(sql string) error {
	stmts, err := parseSQL(sql)
	if err == nil && len(stmts) == 0 {
		c.be.Send(&pgproto3.EmptyQueryResponse{})
	}
	if err == nil {
		for _, st := range stmts {
			var res *result
			res, err = c.plan(st, &paramSet{bound: true, max: 0})
			if err == nil {
				err = c.execResult(res, nil, true, 0, nil)
			}
			if err != nil {
				break
			}
		}
	}
	if err != nil {
		if isConnError(err) {
			return err
		}
		c.sendError(err)
	}
	return c.ready()
}

func (c *conn) parse(m *pgproto3.Parse) error {
	if m.Name != "" && len(c.stmts) >= c.e.opts.MaxStatements {
		return &sqlError{Code: codeLimit, Message: fmt.Sprintf("too many prepared statements: at most %d per connection", c.e.opts.MaxStatements)}
	}
	if len(m.ParameterOIDs) > c.e.opts.MaxParams {
		return &sqlError{Code: codeLimit, Message: fmt.Sprintf("%d parameters: at most %d", len(m.ParameterOIDs), c.e.opts.MaxParams)}
	}
	stmts, err := parseSQL(m.Query)
	if err != nil {
		return err
	}
	if len(stmts) > 1 {
		return &sqlError{Code: codeSyntax, Message: "cannot insert multiple commands into a prepared statement"}
	}
	p := &prepared{sql: m.Query, params: append([]uint32(nil), m.ParameterOIDs...)}
	if len(stmts) == 1 {
		p.stmt = stmts[0]
		ps := &paramSet{types: append([]uint32(nil), p.params...), max: c.e.opts.MaxParams}
		res, err := c.plan(p.stmt, ps)
		if err != nil {
			return err
		}
		// A parameter the evaluation did not reach (in a UNION branch or
		// an AND that no row got to) still counts, as text.
		switch n := highestParam(m.Query); {
		case n > ps.max:
			return &sqlError{Code: codeLimit, Message: fmt.Sprintf("parameter $%d: at most %d parameters", n, ps.max)}
		case n > len(ps.types):
			ps.types = append(ps.types, make([]uint32, n-len(ps.types))...)
		}
		for i, t := range ps.types {
			if t == 0 {
				ps.types[i] = oidText
			}
		}
		p.params = ps.types
		p.cols = res.columns()
	}
	c.stmts[m.Name] = p
	c.be.Send(&pgproto3.ParseComplete{})
	return nil
}

// highestParam is the highest $n in sql, from its tokens (a $1 inside a
// string or comment is not one); 0 when none or sql does not scan.
func highestParam(sql string) int {
	if !strings.Contains(sql, "$") {
		return 0
	}
	sr, err := pg_query.Scan(sql)
	if err != nil {
		return 0
	}
	high := 0
	for _, tok := range sr.GetTokens() {
		if tok.GetToken() != pg_query.Token_PARAM {
			continue
		}
		if n, err := strconv.Atoi(sql[tok.GetStart()+1 : tok.GetEnd()]); err == nil && n > high {
			high = n
		}
	}
	return high
}

func (c *conn) bind(m *pgproto3.Bind) error {
	p, ok := c.stmts[m.PreparedStatement]
	if !ok {
		return &sqlError{Code: codeNoPrepared, Message: fmt.Sprintf("prepared statement %q does not exist", m.PreparedStatement)}
	}
	if m.DestinationPortal != "" && len(c.portals) >= c.e.opts.MaxStatements {
		return &sqlError{Code: codeLimit, Message: fmt.Sprintf("too many portals: at most %d per connection", c.e.opts.MaxStatements)}
	}
	if len(m.Parameters) != len(p.params) {
		return &sqlError{Code: codeProtocol, Message: fmt.Sprintf("bind message supplies %d parameters, but prepared statement %q requires %d", len(m.Parameters), m.PreparedStatement, len(p.params))}
	}
	ps := &paramSet{types: p.params, bound: true, max: c.e.opts.MaxParams}
	for i, src := range m.Parameters {
		v, err := decodeParam(c.types, p.params[i], formatOf(m.ParameterFormatCodes, i), src)
		if err != nil {
			return err
		}
		ps.values = append(ps.values, v)
	}
	pt := &portal{formats: append([]int16(nil), m.ResultFormatCodes...)}
	if p.stmt == nil {
		pt.res = &result{tag: ""}
	} else {
		res, err := c.plan(p.stmt, ps)
		if err != nil {
			return err
		}
		pt.res = res
	}
	c.portals[m.DestinationPortal] = pt
	c.be.Send(&pgproto3.BindComplete{})
	return nil
}

func (c *conn) describe(m *pgproto3.Describe) error {
	if m.ObjectType == 'S' {
		p, ok := c.stmts[m.Name]
		if !ok {
			return &sqlError{Code: codeNoPrepared, Message: fmt.Sprintf("prepared statement %q does not exist", m.Name)}
		}
		c.be.Send(&pgproto3.ParameterDescription{ParameterOIDs: p.params})
		if p.cols == nil {
			c.be.Send(&pgproto3.NoData{})
		} else {
			c.be.Send(rowDescription(p.cols, nil))
		}
		return nil
	}
	pt, ok := c.portals[m.Name]
	if !ok {
		return &sqlError{Code: codeNoPortal, Message: fmt.Sprintf("portal %q does not exist", m.Name)}
	}
	if cols := pt.res.columns(); cols == nil {
		c.be.Send(&pgproto3.NoData{})
	} else {
		c.be.Send(rowDescription(cols, pt.formats))
	}
	return nil
}

func (c *conn) execute(m *pgproto3.Execute) error {
	pt, ok := c.portals[m.Portal]
	if !ok {
		return &sqlError{Code: codeNoPortal, Message: fmt.Sprintf("portal %q does not exist", m.Portal)}
	}
	if pt.res.sem == nil && pt.res.cols == nil && pt.res.tag == "" {
		c.be.Send(&pgproto3.EmptyQueryResponse{})
		return nil
	}
	return c.execResult(pt.res, pt.formats, false, int(m.MaxRows), pt)
}

func (c *conn) close(m *pgproto3.Close) error {
	if m.ObjectType == 'S' {
		delete(c.stmts, m.Name)
	} else {
		delete(c.portals, m.Name)
	}
	c.be.Send(&pgproto3.CloseComplete{})
	return nil
}
