package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/internal/buildinfo"
)

// DefaultMCPMaxRows caps the rows of one MCP query answer: an agent reads
// every row into its context, so a large answer is cut here (and says so)
// even when the HTTP API would return it whole.
const DefaultMCPMaxRows = 200

// MCPOptions configures MCPServer.
type MCPOptions struct {
	// Identity, when set, is the caller of every tool call (`ossiectl mcp
	// --role`: a local agent has no credentials to present). Nil: over
	// HTTP the caller is authenticated from each request's headers by
	// Config.Auth; without Config.Auth the calls are ungoverned.
	Identity *Identity
	// MaxRows caps the rows of a query answer; default DefaultMCPMaxRows.
	MaxRows int
}

// MCP tool names.
const (
	toolListModels    = "list_models"
	toolDescribeModel = "describe_model"
	toolQuery         = "query"
	toolExplain       = "explain"
)

// MCPServer returns a Model Context Protocol server (the official Go SDK)
// whose tools answer through s: list_models, describe_model, query and
// explain. Each call is governed like the REST API: the caller's roles
// decide what is listed, described and answered, explain is refused to a
// governed caller (OSS5007, as POST /sql), and errors carry the REST
// problem codes and did-you-mean hints. Run it over stdio with
// mcp.StdioTransport or serve it over HTTP with MCPHandler.
func (s *Server) MCPServer(opts MCPOptions) *mcp.Server {
	if opts.MaxRows <= 0 {
		opts.MaxRows = DefaultMCPMaxRows
	}
	t := &mcpTools{s: s, opts: opts}
	srv := mcp.NewServer(&mcp.Implementation{Name: "ossie", Title: "Ossie semantic layer", Version: buildinfo.String()}, &mcp.ServerOptions{
		Instructions: "Ossie answers questions with governed business metrics. Call list_models, then describe_model " +
			"to learn the metrics, dimensions (dataset.field), time grains and the model's own ai_context instructions, " +
			"then query with metric and dimension names (never SQL). Errors carry a stable OSSnnnn code and often a " +
			"\"did you mean\" hint: correct the name and retry.",
	})
	mcp.AddTool(srv, &mcp.Tool{Name: toolListModels, Title: "List models",
		Description: "List the semantic models you may query, with their versions, descriptions and member counts."},
		t.listModels)
	mcp.AddTool(srv, &mcp.Tool{Name: toolDescribeModel, Title: "Describe a model",
		Description: "Describe one model: its metrics and dimensions with datatypes, descriptions, time grains and ai_context " +
			"(instructions, synonyms, examples). Only what your role may read is shown."},
		t.describeModel)
	mcp.AddTool(srv, &mcp.Tool{Name: toolQuery, Title: "Query metrics",
		Description: fmt.Sprintf("Answer a metric query: metrics grouped by dimensions, with filters, ordering and a limit. "+
			"Returns a table with typed columns, the row count and whether rows were cut (at most %d rows; "+
			"aggregate more or filter when truncated).", opts.MaxRows)},
		t.query)
	mcp.AddTool(srv, &mcp.Tool{Name: toolExplain, Title: "Explain a query",
		Description: "Plan a metric query without running it and return the SQL it would run and the logical plan. Refused (OSS5007) to callers " +
			"under a governance role, as the SQL would show the role's rules."},
		t.explain)
	return srv
}

// MCPHandler serves MCPServer over the streamable HTTP transport at /mcp.
// It is stateless (no session held between requests, so any replica can
// answer) and every request is authenticated like /v1/ (401 problem).
func (s *Server) mcpHandler() http.Handler {
	s.mcpOnce.Do(func() {
		srv := s.MCPServer(MCPOptions{})
		s.mcp = s.boundedBody(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
			&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, MaxRequestBodyBytes: s.cfg.MaxBodyBytes, Logger: s.cfg.Logger}))
	})
	return s.mcp
}

// boundedBody reads a request body (at most MaxBodyBytes, else 413
// OSS5004) and refuses one over compiler.BodyLimits with 400 OSS1021 and
// its line before next decodes it: the MCP SDK decodes tool arguments
// itself, so the check has to come first.
func (s *Server) boundedBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes))
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			s.fail(w, r, bodyTooLarge(tooBig.Limit))
			return
		case err != nil:
			s.fail(w, r, &Error{Status: http.StatusBadRequest, Code: compiler.CodeBadQuery, Title: "Invalid request", Detail: "cannot read the request body"})
			return
		}
		if p := compiler.CheckBody(body); p != nil {
			e := queryProblems(compiler.Problems{*p})
			e.Title = "Invalid request"
			s.fail(w, r, e)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}

// mcpState is the lazily built HTTP transport of the MCP server.
type mcpState struct {
	mcpOnce sync.Once
	mcp     http.Handler
}

type mcpTools struct {
	s    *Server
	opts MCPOptions
}

// caller returns ctx carrying the identity a tool call runs under: the
// fixed one, or the one Config.Auth authenticates from the headers of the
// HTTP request that carried the call. Every request is authenticated
// again (the HTTP middleware already refused anonymous ones), so a
// revoked token stops working mid-session.
func (t *mcpTools) caller(ctx context.Context, req *mcp.CallToolRequest) (context.Context, error) {
	if t.opts.Identity != nil {
		return WithIdentity(ctx, t.opts.Identity), nil
	}
	a := t.s.cfg.Auth
	if a == nil {
		return ctx, nil
	}
	var hdr http.Header
	if req != nil && req.Extra != nil {
		hdr = req.Extra.Header
	}
	id, fail := a.authenticate(&http.Request{Header: hdr})
	if fail != nil {
		return nil, mcpError(&Error{Status: http.StatusUnauthorized, Code: compiler.CodeUnauthenticated, Title: "Unauthorized", Detail: fail.detail})
	}
	return WithIdentity(ctx, id), nil
}

// mcpError renders err for an agent: the problem code and detail on the
// first line, then every problem with its path (the did-you-mean hints
// are in the messages), as the REST problem document carries them.
func mcpError(err error) error {
	var e *Error
	if !errors.As(err, &e) {
		return errors.New("internal error")
	}
	var b strings.Builder
	b.WriteString(e.Code)
	if e.Title != "" {
		b.WriteString(" " + e.Title)
	}
	if e.Detail != "" {
		b.WriteString(": " + e.Detail)
	}
	for _, p := range e.Problems {
		b.WriteString("\n- ")
		if p.Path != "" {
			b.WriteString(p.Path + ": ")
		}
		b.WriteString(p.Code + " " + p.Message)
	}
	return errors.New(b.String())
}

// MCPListOutput is the list_models answer.
type MCPListOutput struct {
	Models []ModelSummary `json:"models"`
}

func (t *mcpTools) listModels(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, MCPListOutput, error) {
	ctx, err := t.caller(ctx, req)
	if err != nil {
		return nil, MCPListOutput{}, err
	}
	return nil, MCPListOutput{Models: t.s.visibleSummaries(ctx)}, nil
}

// MCPModelInput names a model.
type MCPModelInput struct {
	Model     string `json:"model" jsonschema:"the model name, as list_models shows it"`
	Namespace string `json:"namespace,omitempty" jsonschema:"the model's namespace, as list_models shows it; needed when several namespaces publish the name"`
}

// MCPModel is the describe_model answer: ModelDetail flattened for an
// agent (ai_context written as text becomes Instructions).
type MCPModel struct {
	Name        string            `json:"name"`
	Namespace   string            `json:"namespace,omitempty"`
	Version     string            `json:"version"`
	Description string            `json:"description,omitempty"`
	Context     MCPContext        `json:"ai_context"`
	TimeGrains  []string          `json:"time_grains"`
	Metrics     []MCPMember       `json:"metrics"`
	Dimensions  []MCPMember       `json:"dimensions"`
	Datasets    []MCPDataset      `json:"datasets"`
	Joins       []RelationshipRef `json:"relationships,omitempty"`
}

// MCPContext is an ai_context: how to use a member, other names users
// call it by, and example questions.
type MCPContext struct {
	Instructions string   `json:"instructions,omitempty"`
	Synonyms     []string `json:"synonyms,omitempty"`
	Examples     []string `json:"examples,omitempty"`
}

// MCPMember is one metric or dimension. Name is what query takes.
type MCPMember struct {
	Name        string      `json:"name"`
	Datatype    string      `json:"datatype,omitempty"`
	Description string      `json:"description,omitempty"`
	IsTime      bool        `json:"is_time,omitempty"`
	Masked      string      `json:"masked,omitempty"`
	Context     *MCPContext `json:"ai_context,omitempty"`
	// MetricType: a typed metric's type and window (running total,
	// to-date, rolling, period over period, semi-additive, conversion);
	// WindowedBy: the typed metrics a metric is computed from. Either
	// needs a time dimension with a grain in the query.
	MetricType *compiler.MetricType `json:"metric_type,omitempty"`
	WindowedBy []string             `json:"windowed_by,omitempty"`
}

// MCPDataset is one dataset's name and description.
type MCPDataset struct {
	Name        string      `json:"name"`
	Description string      `json:"description,omitempty"`
	Context     *MCPContext `json:"ai_context,omitempty"`
}

func flatContext(a *ossie.AIContext) *MCPContext {
	if a == nil {
		return nil
	}
	c := &MCPContext{Instructions: a.Instructions, Synonyms: a.Synonyms, Examples: a.Examples}
	if a.IsText {
		c.Instructions = a.Text
	}
	if c.Instructions == "" && len(c.Synonyms) == 0 && len(c.Examples) == 0 {
		return nil
	}
	return c
}

func (t *mcpTools) describeModel(ctx context.Context, req *mcp.CallToolRequest, in MCPModelInput) (*mcp.CallToolResult, *MCPModel, error) {
	ctx, err := t.caller(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	d, perr := t.s.describe(ctx, qualify(in.Namespace, in.Model))
	if perr != nil {
		return nil, nil, mcpError(perr)
	}
	out := &MCPModel{Name: d.Name, Namespace: d.Namespace, Version: d.Version, Description: d.Description, Metrics: []MCPMember{}, Dimensions: []MCPMember{},
		Datasets: []MCPDataset{}, Joins: d.Relationships}
	if c := flatContext(d.AIContext); c != nil {
		out.Context = *c
	}
	for _, g := range dialect.Grains {
		out.TimeGrains = append(out.TimeGrains, string(g))
	}
	for _, m := range d.Metrics {
		out.Metrics = append(out.Metrics, MCPMember{Name: m.Name, Datatype: string(m.Datatype), Description: m.Description, Context: flatContext(m.AIContext),
			MetricType: m.MetricType, WindowedBy: m.WindowedBy})
	}
	for _, ds := range d.Datasets {
		out.Datasets = append(out.Datasets, MCPDataset{Name: ds.Name, Description: ds.Description, Context: flatContext(ds.AIContext)})
		for _, dim := range ds.Dimensions {
			desc := dim.Description
			if desc == "" {
				desc = dim.Label
			}
			out.Dimensions = append(out.Dimensions, MCPMember{Name: dim.Name, Datatype: string(dim.Datatype), Description: desc,
				IsTime: dim.IsTime, Masked: dim.Masked, Context: flatContext(dim.AIContext)})
		}
	}
	return nil, out, nil
}

// MCPQueryInput is a metric query in structured form (plan.Query with
// descriptions for the agent).
type MCPQueryInput struct {
	Model      string         `json:"model" jsonschema:"the model name"`
	Namespace  string         `json:"namespace,omitempty" jsonschema:"the model's namespace, as list_models shows it; needed when several namespaces publish the name"`
	Metrics    []string       `json:"metrics" jsonschema:"metric names from describe_model"`
	Dimensions []MCPDimension `json:"dimensions,omitempty" jsonschema:"dimensions to group by"`
	Filters    []MCPFilter    `json:"filters,omitempty" jsonschema:"conditions; all must hold"`
	OrderBy    []MCPOrder     `json:"order_by,omitempty" jsonschema:"sort keys: metric or selected dimension names"`
	Limit      *int           `json:"limit,omitempty" jsonschema:"at most this many rows"`
	Timezone   string         `json:"timezone,omitempty" jsonschema:"IANA time zone for time grains and relative date ranges; default UTC"`
}

// MCPDimension is a group-by member, optionally truncated to a time grain.
type MCPDimension struct {
	Field            string `json:"field" jsonschema:"dimension name: dataset.field"`
	Grain            string `json:"grain,omitempty" jsonschema:"time grain of a time dimension: hour, day, week, month, quarter or year"`
	CompareDateRange []any  `json:"compare_date_range,omitempty" jsonschema:"on one time dimension: answer the query once per date range (2 to 12), each [start, end] dates or one relative range such as 'last month'; the rows of each range come labelled in a first column compare_date_range"`
}

// MCPFilter is one condition on a dimension (before aggregation) or a
// metric (after).
type MCPFilter struct {
	Field  string `json:"field,omitempty" jsonschema:"dimension name (dataset.field); set this or metric"`
	Metric string `json:"metric,omitempty" jsonschema:"metric name; set this or field"`
	Op     string `json:"op" jsonschema:"one of =, !=, in, not_in, gt, gte, lt, lte, between, contains, starts_with, is_null, is_not_null, in_date_range"`
	Values []any  `json:"values,omitempty" jsonschema:"operands; in_date_range takes [start, end] dates or one relative range such as 'last 7 days'"`
}

// MCPOrder sorts the answer.
type MCPOrder struct {
	Key string `json:"key" jsonschema:"metric or selected dimension name"`
	Dir string `json:"dir,omitempty" jsonschema:"asc (default) or desc"`
}

func (in MCPQueryInput) query() *plan.Query {
	q := &plan.Query{Metrics: in.Metrics, Limit: in.Limit, Timezone: in.Timezone}
	for _, d := range in.Dimensions {
		q.Dimensions = append(q.Dimensions, plan.Dimension{Field: d.Field, Grain: d.Grain, CompareDateRange: d.CompareDateRange})
	}
	for _, f := range in.Filters {
		q.Filters = append(q.Filters, plan.Filter{Field: f.Field, Metric: f.Metric, Op: f.Op, Values: f.Values})
	}
	for _, o := range in.OrderBy {
		q.OrderBy = append(q.OrderBy, plan.Order{Key: o.Key, Dir: o.Dir})
	}
	return q
}

// MCPTable is a query answer: typed columns, rows in column order, the
// row count and whether rows were cut (TruncatedReason says where).
type MCPTable struct {
	Model           string      `json:"model"`
	ModelVersion    string      `json:"model_version"`
	Columns         []MCPColumn `json:"columns"`
	Rows            [][]any     `json:"rows"`
	RowCount        int         `json:"row_count"`
	Truncated       bool        `json:"truncated"`
	TruncatedReason string      `json:"truncated_reason,omitempty"`
}

// MCPColumn is one answer column: its query name, Ossie datatype and kind
// (dimension or metric).
type MCPColumn struct {
	Name string `json:"name"`
	Type string `json:"type"`
	Kind string `json:"kind"`
}

func (t *mcpTools) query(ctx context.Context, req *mcp.CallToolRequest, in MCPQueryInput) (*mcp.CallToolResult, *MCPTable, error) {
	ctx, err := t.caller(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	q := in.query()
	// Ask the engine for one row more than the agent cap: that row only
	// tells that there were more.
	capped := in.Limit == nil || *in.Limit > t.opts.MaxRows
	if capped {
		lim := t.opts.MaxRows + 1
		q.Limit = &lim
	}
	resp, err := t.s.Answer(withVia(ctx, "mcp"), qualify(in.Namespace, in.Model), q)
	if err != nil {
		return nil, nil, mcpError(err)
	}
	out := &MCPTable{Model: resp.Model, ModelVersion: resp.ModelVersion, Rows: resp.Rows, Truncated: resp.Truncated}
	if resp.Truncated {
		out.TruncatedReason = fmt.Sprintf("the server's row cap of %d rows", t.s.cfg.MaxRows)
	}
	if capped && len(out.Rows) > t.opts.MaxRows {
		out.Rows = out.Rows[:t.opts.MaxRows]
		out.Truncated = true
		out.TruncatedReason = fmt.Sprintf("the agent row cap of %d rows: aggregate to fewer rows, filter, or set a limit", t.opts.MaxRows)
	}
	if out.Rows == nil {
		out.Rows = [][]any{}
	}
	out.RowCount = len(out.Rows)
	for _, c := range resp.Columns {
		out.Columns = append(out.Columns, MCPColumn{Name: c.Name, Type: c.Type, Kind: c.Kind})
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: out.text()}}}, out, nil
}

// text renders the table compactly for the model's context: a header of
// name:type, tab-separated rows, and the count and truncation.
func (tb *MCPTable) text() string {
	var b strings.Builder
	for i, c := range tb.Columns {
		if i > 0 {
			b.WriteByte('\t')
		}
		b.WriteString(c.Name + ":" + c.Type)
	}
	b.WriteByte('\n')
	for _, r := range tb.Rows {
		for i, v := range r {
			if i > 0 {
				b.WriteByte('\t')
			}
			if v == nil {
				b.WriteString("NULL")
			} else {
				fmt.Fprint(&b, v)
			}
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "%d rows (model %s version %s)", tb.RowCount, tb.Model, tb.ModelVersion)
	if tb.Truncated {
		b.WriteString("; truncated at " + tb.TruncatedReason)
	}
	return b.String()
}

// MCPPlan is the explain answer: the SQL the query would run, the
// logical plan and the columns.
type MCPPlan struct {
	Model        string `json:"model"`
	ModelVersion string `json:"model_version"`
	SQL          string `json:"sql"`
	// Plan is the logical plan as an indented tree (plan.Plan.Explain).
	Plan    string      `json:"plan"`
	Columns []MCPColumn `json:"columns"`
}

func (t *mcpTools) explain(ctx context.Context, req *mcp.CallToolRequest, in MCPQueryInput) (*mcp.CallToolResult, *MCPPlan, error) {
	ctx, err := t.caller(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	q := in.query()
	q.Explain = true
	p, err := t.s.PlanSQL(ctx, qualify(in.Namespace, in.Model), q)
	if err != nil {
		return nil, nil, mcpError(err)
	}
	out := &MCPPlan{Model: p.Model, ModelVersion: p.ModelVersion, SQL: p.SQL, Plan: p.Explain}
	for _, c := range p.Columns {
		out.Columns = append(out.Columns, MCPColumn{Name: c.Name, Type: c.Type, Kind: c.Kind})
	}
	return nil, out, nil
}
