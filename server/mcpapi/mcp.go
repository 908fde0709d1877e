// Package mcpapi is the semantic server's Model Context Protocol front end
// (the official Go SDK): the list_models, describe_model, query and
// explain tools, their input schemas, and the streamable HTTP transport
// that server/httpapi mounts at /mcp. `ossiectl mcp` serves the same
// tools over stdio. Every tool answers through the query core, package
// server, governed like the HTTP API.
//
// The package is not named mcp so that it and the SDK's package mcp can
// be read side by side without renaming either. Imports point one way:
// mcpapi imports server and server/queryjson; server/httpapi imports
// mcpapi, and nothing below does.
package mcpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/internal/buildinfo"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/auth"
	"github.com/ossie-dev/ossie/server/problem"
	"github.com/ossie-dev/ossie/server/queryjson"
)

// DefaultMaxRows caps the rows of one MCP query answer: an agent reads
// every row into its context, so a large answer is cut here (and says so)
// even when the HTTP API would return it whole.
const DefaultMaxRows = 200

// Options configures New.
type Options struct {
	// Identity, when set, is the caller of every tool call (`ossiectl mcp
	// --role`: a local agent has no credentials to present). Nil: over
	// HTTP the caller is authenticated from each request's headers by
	// the server's Config.Auth; without it the calls are ungoverned.
	Identity *auth.Identity
	// MaxRows caps the rows of a query answer; default DefaultMaxRows.
	MaxRows int
}

// MCP tool names.
const (
	toolListModels    = "list_models"
	toolDescribeModel = "describe_model"
	toolQuery         = "query"
	toolExplain       = "explain"
)

// New returns a Model Context Protocol server (the official Go SDK)
// whose tools answer through s: list_models, describe_model, query and
// explain. Each call is governed like the REST API: the caller's roles
// decide what is listed, described and answered, explain is refused to a
// governed caller (OSS5007, as POST /sql), and a failure is a tool error
// (isError) whose text and structured content carry the REST problem
// codes, paths and did-you-mean hints. query and explain read their
// arguments with the decoder of the HTTP body (queryjson.Decode): the
// same forms are accepted, the same problems reported. The tool list a
// caller receives describes the models that caller may read, from their
// ai_context. Run it over stdio with mcp.StdioTransport or serve it over
// HTTP with Handler.
func New(s *server.Server, opts Options) *mcp.Server {
	if opts.MaxRows <= 0 {
		opts.MaxRows = DefaultMaxRows
	}
	t := &mcpTools{s: s, cfg: s.Config(), opts: opts}
	srv := mcp.NewServer(&mcp.Implementation{Name: "ossie", Title: "Ossie semantic layer", Version: buildinfo.String()}, &mcp.ServerOptions{
		Instructions: "Ossie answers questions with governed business metrics. Call list_models, then describe_model " +
			"to learn the metrics, dimensions (dataset.field), time grains and the model's own ai_context instructions, " +
			"then query with metric and dimension names (never SQL). Errors carry a stable OSSnnnn code and often a " +
			"\"did you mean\" hint: correct the name and retry.",
	})
	addTool(srv, &mcp.Tool{Name: toolListModels, Title: "List models",
		Description: "List the semantic models you may query, with their versions, descriptions and member counts.",
		InputSchema: &jsonschema.Schema{Type: "object", AdditionalProperties: falseSchema()}},
		t.listModels)
	addTool(srv, &mcp.Tool{Name: toolDescribeModel, Title: "Describe a model",
		Description: "Describe one model: its metrics and dimensions with datatypes, descriptions, time grains and ai_context " +
			"(instructions, synonyms, examples). Only what your role may read is shown.",
		InputSchema: modelInputSchema()},
		t.describeModel)
	addTool(srv, &mcp.Tool{Name: toolQuery, Title: "Query metrics",
		Description: fmt.Sprintf("Answer a metric query: metrics grouped by dimensions, with filters, ordering, a limit and an offset; "+
			"the arguments are the body of the HTTP API's POST /v1/models/{model}/query plus the model. "+
			"Returns a table with typed columns, the row count and whether rows were cut (at most %d rows; "+
			"aggregate more or filter when truncated).", opts.MaxRows),
		InputSchema: queryInputSchema(true)},
		t.query)
	addTool(srv, &mcp.Tool{Name: toolExplain, Title: "Explain a query",
		Description: "Plan a metric query without running it and return the SQL it would run and the logical plan; " +
			"the arguments are those of query. Refused (OSS5007) to callers " +
			"under a governance role, as the SQL would show the role's rules.",
		InputSchema: queryInputSchema(false)},
		t.explain)
	srv.AddReceivingMiddleware(t.describeTools)
	return srv
}

// addTool registers a tool whose handler h returns its structured answer
// and, optionally, a text rendering of it (default: the answer's JSON).
// The arguments are h's to decode, strictly: the SDK's own decoding would
// accept neither a dimension written as a string nor an exact number. An
// error of h is a tool error (isError) carrying the problem (mcpProblem).
func addTool[Out any](srv *mcp.Server, tool *mcp.Tool, h func(context.Context, *mcp.CallToolRequest) (*Out, string, error)) {
	out, err := jsonschema.For[Out](nil)
	if err != nil {
		panic(fmt.Sprintf("output schema of %s: %v", tool.Name, err))
	}
	tool.OutputSchema = out
	srv.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		v, text, err := h(ctx, req)
		if err != nil {
			return mcpProblem(err), nil
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		if text == "" {
			text = string(b)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: json.RawMessage(b)}, nil
	})
}

// toolArgs are a tool call's arguments; none is an empty object.
func toolArgs(req *mcp.CallToolRequest) []byte {
	if req == nil || req.Params == nil || len(req.Params.Arguments) == 0 || string(req.Params.Arguments) == "null" {
		return []byte("{}")
	}
	return req.Params.Arguments
}

// Handler serves New(s, Options{}) over the streamable HTTP transport
// (server/httpapi mounts it at /mcp behind its authentication). It is
// stateless (no session held between requests, so any replica can
// answer); each tool call authenticates its caller again from the
// request's headers with s's Config.Auth. Build it once per server: it
// holds one MCP server for every request.
func Handler(s *server.Server) http.Handler {
	cfg := s.Config()
	srv := New(s, Options{})
	return boundedBody(cfg.MaxBodyBytes, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, MaxRequestBodyBytes: cfg.MaxBodyBytes, Logger: cfg.Logger}))
}

// boundedBody reads a request body (at most MaxBodyBytes, else 413
// OSS5004) and refuses one over compiler.BodyLimits with 400 OSS1021 and
// its line before next decodes it: the MCP SDK decodes tool arguments
// itself, so the check has to come first.
func boundedBody(maxBytes int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBytes))
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			problem.WriteProblem(w, r, problem.BodyTooLarge(tooBig.Limit))
			return
		case err != nil:
			problem.WriteProblem(w, r, &problem.Error{Status: http.StatusBadRequest, Code: compiler.CodeBadQuery, Title: "Invalid request", Detail: "cannot read the request body"})
			return
		}
		if p := compiler.CheckBody(body); p != nil {
			e := problem.QueryProblems(compiler.Problems{*p})
			e.Title = "Invalid request"
			problem.WriteProblem(w, r, e)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}

// mcpTools answers the tool calls of one MCP server through s.
type mcpTools struct {
	s    *server.Server
	cfg  server.Config
	opts Options
}

// caller returns ctx carrying the identity a request runs under: the
// fixed one, or the one the server's Config.Auth authenticates from the
// headers of the HTTP request that carried it. Every request is
// authenticated again (the HTTP middleware already refused anonymous
// ones), so a revoked token stops working mid-session.
func (t *mcpTools) caller(ctx context.Context, extra *mcp.RequestExtra) (context.Context, error) {
	if t.opts.Identity != nil {
		return auth.WithIdentity(ctx, t.opts.Identity), nil
	}
	a := t.cfg.Auth
	if a == nil {
		return ctx, nil
	}
	var hdr http.Header
	if extra != nil {
		hdr = extra.Header
	}
	id, fail := a.Authenticate(&http.Request{Header: hdr})
	if fail != nil {
		return nil, &problem.Error{Status: http.StatusUnauthorized, Code: compiler.CodeUnauthenticated, Title: "Unauthorized", Detail: fail.Detail}
	}
	return auth.WithIdentity(ctx, id), nil
}

// mcpProblem is err as a tool error: the text an agent reads (mcpError)
// and, as structured content, the problem document of the REST API
// (type, title, status, detail, code, problems with their paths).
func mcpProblem(err error) *mcp.CallToolResult {
	res := &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: mcpErrorText(err)}}}
	var e *problem.Error
	if errors.As(err, &e) {
		doc := problem.Doc{Type: "about:blank", Title: e.Title, Status: e.Status, Detail: e.Detail, Code: e.Code, Problems: e.Problems}
		if e.Code != "" {
			doc.Type = problem.TypeBase + strings.ToLower(e.Code)
		}
		if b, err := json.Marshal(doc); err == nil {
			res.StructuredContent = json.RawMessage(b)
		}
	}
	return res
}

// mcpErrorText renders err for an agent: the problem code and detail on
// the first line, then every problem with its path (the did-you-mean
// hints are in the messages), as the REST problem document carries them.
func mcpErrorText(err error) string {
	var e *problem.Error
	if !errors.As(err, &e) {
		return "internal error"
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
	return b.String()
}

// ListOutput is the list_models answer.
type ListOutput struct {
	Models []server.ModelSummary `json:"models"`
}

func (t *mcpTools) listModels(ctx context.Context, req *mcp.CallToolRequest) (*ListOutput, string, error) {
	var in struct{}
	if err := queryjson.Strict(toolArgs(req), &in); err != nil {
		return nil, "", err
	}
	ctx, err := t.caller(ctx, req.Extra)
	if err != nil {
		return nil, "", err
	}
	return &ListOutput{Models: t.s.VisibleModels(ctx)}, "", nil
}

// ModelInput names a model.
type ModelInput struct {
	Model     string `json:"model" jsonschema:"the model name, as list_models shows it"`
	Namespace string `json:"namespace,omitempty" jsonschema:"the model's namespace, as list_models shows it; needed when several namespaces publish the name"`
}

// Model is the describe_model answer: server.ModelDetail flattened for an
// agent (ai_context written as text becomes Instructions).
type Model struct {
	Name        string                   `json:"name"`
	Namespace   string                   `json:"namespace,omitempty"`
	Version     string                   `json:"version"`
	Description string                   `json:"description,omitempty"`
	Context     AIContext                `json:"ai_context"`
	TimeGrains  []string                 `json:"time_grains"`
	Metrics     []Member                 `json:"metrics"`
	Dimensions  []Member                 `json:"dimensions"`
	Datasets    []Dataset                `json:"datasets"`
	Joins       []server.RelationshipRef `json:"relationships,omitempty"`
}

// AIContext is an ai_context: how to use a member, other names users
// call it by, and example questions.
type AIContext struct {
	Instructions string   `json:"instructions,omitempty"`
	Synonyms     []string `json:"synonyms,omitempty"`
	Examples     []string `json:"examples,omitempty"`
}

// Member is one metric or dimension. Name is what query takes.
type Member struct {
	Name        string     `json:"name"`
	Datatype    string     `json:"datatype,omitempty"`
	Description string     `json:"description,omitempty"`
	IsTime      bool       `json:"is_time,omitempty"`
	Masked      string     `json:"masked,omitempty"`
	Context     *AIContext `json:"ai_context,omitempty"`
	// MetricType: a typed metric's type and window (running total,
	// to-date, rolling, period over period, semi-additive, conversion);
	// WindowedBy: the typed metrics a metric is computed from. Either
	// needs a time dimension with a grain in the query.
	MetricType *compiler.MetricType `json:"metric_type,omitempty"`
	WindowedBy []string             `json:"windowed_by,omitempty"`
}

// Dataset is one dataset's name and description.
type Dataset struct {
	Name        string     `json:"name"`
	Description string     `json:"description,omitempty"`
	Context     *AIContext `json:"ai_context,omitempty"`
}

func flatContext(a *ossie.AIContext) *AIContext {
	if a == nil {
		return nil
	}
	c := &AIContext{Instructions: a.Instructions, Synonyms: a.Synonyms, Examples: a.Examples}
	if a.IsText {
		c.Instructions = a.Text
	}
	if c.Instructions == "" && len(c.Synonyms) == 0 && len(c.Examples) == 0 {
		return nil
	}
	return c
}

func (t *mcpTools) describeModel(ctx context.Context, req *mcp.CallToolRequest) (*Model, string, error) {
	var in ModelInput
	if err := queryjson.Strict(toolArgs(req), &in); err != nil {
		return nil, "", err
	}
	ctx, err := t.caller(ctx, req.Extra)
	if err != nil {
		return nil, "", err
	}
	d, err := t.s.DescribeModel(ctx, server.Qualify(in.Namespace, in.Model))
	if err != nil {
		return nil, "", err
	}
	out := &Model{Name: d.Name, Namespace: d.Namespace, Version: d.Version, Description: d.Description, Metrics: []Member{}, Dimensions: []Member{},
		Datasets: []Dataset{}, Joins: d.Relationships}
	if c := flatContext(d.AIContext); c != nil {
		out.Context = *c
	}
	for _, g := range dialect.Grains {
		out.TimeGrains = append(out.TimeGrains, string(g))
	}
	for _, m := range d.Metrics {
		out.Metrics = append(out.Metrics, Member{Name: m.Name, Datatype: string(m.Datatype), Description: m.Description, Context: flatContext(m.AIContext),
			MetricType: m.MetricType, WindowedBy: m.WindowedBy})
	}
	for _, ds := range d.Datasets {
		out.Datasets = append(out.Datasets, Dataset{Name: ds.Name, Description: ds.Description, Context: flatContext(ds.AIContext)})
		for _, dim := range ds.Dimensions {
			desc := dim.Description
			if desc == "" {
				desc = dim.Label
			}
			out.Dimensions = append(out.Dimensions, Member{Name: dim.Name, Datatype: string(dim.Datatype), Description: desc,
				IsTime: dim.IsTime, Masked: dim.Masked, Context: flatContext(dim.AIContext)})
		}
	}
	return out, "", nil
}

// QueryArgs are the arguments of the query and explain tools: the
// model (qualified by its namespace) and a query body as POST
// /v1/models/{model}/query takes it.
type QueryArgs struct {
	Model     string `json:"model"`
	Namespace string `json:"namespace,omitempty"`
	queryjson.Request
}

// decodeToolQuery decodes the arguments of query and explain: "model" and
// "namespace" (strings), and the rest exactly as the body of POST
// /v1/models/{model}/query (queryjson.Decode), so every form the HTTP
// API accepts is accepted here and every problem has the same code and
// path.
func decodeToolQuery(args []byte) (*QueryArgs, error) {
	if probs := queryjson.DuplicateKeys(args); len(probs) > 0 {
		return nil, problem.QueryProblems(probs)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(args, &obj); err != nil {
		return nil, problem.QueryProblems(queryjson.BadBody("", "the arguments must be a JSON object"))
	}
	var a QueryArgs
	for _, k := range []struct {
		key string
		dst *string
	}{{"model", &a.Model}, {"namespace", &a.Namespace}} {
		if raw, ok := obj[k.key]; ok {
			if err := json.Unmarshal(raw, k.dst); err != nil {
				return nil, problem.QueryProblems(queryjson.BadBody(k.key, k.key+" must be a string"))
			}
			delete(obj, k.key)
		}
	}
	if a.Model == "" {
		return nil, problem.QueryProblems(queryjson.BadBody("model", "model is required: a model name from list_models"))
	}
	// Members are kept as raw JSON, so numbers stay exact.
	body, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	req, perr := queryjson.Decode(body)
	if perr != nil {
		return nil, perr
	}
	a.Request = *req
	return &a, nil
}

// Table is a query answer: typed columns, rows in column order, the
// row count and whether rows were cut (TruncatedReason says where).
type Table struct {
	Model           string   `json:"model"`
	ModelVersion    string   `json:"model_version"`
	Columns         []Column `json:"columns"`
	Rows            [][]any  `json:"rows"`
	RowCount        int      `json:"row_count"`
	Truncated       bool     `json:"truncated"`
	TruncatedReason string   `json:"truncated_reason,omitempty"`
	// Total is the row count without limit and offset, when the query
	// asked for it ("total": true).
	Total *int64 `json:"total,omitempty"`
}

// Column is one answer column: its query name, Ossie datatype and kind
// (dimension or metric).
type Column struct {
	Name string `json:"name"`
	Type string `json:"type"`
	Kind string `json:"kind"`
}

func (t *mcpTools) query(ctx context.Context, req *mcp.CallToolRequest) (*Table, string, error) {
	qr, err := decodeToolQuery(toolArgs(req))
	if err != nil {
		return nil, "", err
	}
	model := server.Qualify(qr.Namespace, qr.Model)
	if perr := qr.ForAnswer(); perr != nil {
		return nil, "", perr
	}
	ctx, err = t.caller(ctx, req.Extra)
	if err != nil {
		return nil, "", err
	}
	q := &qr.Query
	// Ask the engine for one row more than the agent cap: that row only
	// tells that there were more.
	capped := q.Limit == nil || *q.Limit > t.opts.MaxRows
	if capped {
		lim := t.opts.MaxRows + 1
		q.Limit = &lim
	}
	resp, err := t.s.AnswerWith(server.WithVia(ctx, "mcp"), model, q, server.AnswerOptions{Total: qr.Total})
	if err != nil {
		return nil, "", err
	}
	out := &Table{Model: resp.Model, ModelVersion: resp.ModelVersion, Rows: resp.Rows, Truncated: resp.Truncated, Total: resp.Total}
	if resp.Truncated {
		out.TruncatedReason = fmt.Sprintf("the server's row cap of %d rows", t.cfg.MaxRows)
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
		out.Columns = append(out.Columns, Column{Name: c.Name, Type: c.Type, Kind: c.Kind})
	}
	return out, out.text(), nil
}

// text renders the table compactly for the model's context: a header of
// name:type, tab-separated rows, and the count and truncation.
func (tb *Table) text() string {
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
	if tb.Total != nil {
		fmt.Fprintf(&b, "; %d rows in all without limit and offset", *tb.Total)
	}
	if tb.Truncated {
		b.WriteString("; truncated at " + tb.TruncatedReason)
	}
	return b.String()
}

// Plan is the explain answer: the SQL the query would run, the
// logical plan and the columns.
type Plan struct {
	Model        string `json:"model"`
	ModelVersion string `json:"model_version"`
	SQL          string `json:"sql"`
	// Plan is the logical plan as an indented tree (plan.Plan.Explain).
	Plan    string   `json:"plan"`
	Columns []Column `json:"columns"`
}

func (t *mcpTools) explain(ctx context.Context, req *mcp.CallToolRequest) (*Plan, string, error) {
	qr, err := decodeToolQuery(toolArgs(req))
	if err != nil {
		return nil, "", err
	}
	model := server.Qualify(qr.Namespace, qr.Model)
	if qr.Explain {
		return nil, "", problem.QueryProblems(queryjson.BadBody("explain", "the explain tool always returns the plan; leave explain out"))
	}
	if perr := qr.ForPlan(); perr != nil {
		return nil, "", perr
	}
	ctx, err = t.caller(ctx, req.Extra)
	if err != nil {
		return nil, "", err
	}
	q := &qr.Query
	q.Explain = true
	p, err := t.s.PlanSQL(ctx, model, q)
	if err != nil {
		return nil, "", err
	}
	out := &Plan{Model: p.Model, ModelVersion: p.ModelVersion, SQL: p.SQL, Plan: p.Explain}
	for _, c := range p.Columns {
		out.Columns = append(out.Columns, Column{Name: c.Name, Type: c.Type, Kind: c.Kind})
	}
	return out, "", nil
}
