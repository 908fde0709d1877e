package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/auth"
	"github.com/ossie-dev/ossie/server/format"
	"github.com/ossie-dev/ossie/server/load"
	"github.com/ossie-dev/ossie/server/problem"
	"github.com/ossie-dev/ossie/server/servertest"
)

type fixture struct {
	eng *duckdb.Engine
	srv *server.Server
	ts  *httptest.Server
}

func newFixture(t testing.TB, mod func(*server.Config)) *fixture { return serveShop(t, false, mod) }

// serveShop serves the shop and slow models (with wide, also wide over
// wide_t) over HTTP on loopback.
func serveShop(t testing.TB, wide bool, mod func(*server.Config)) *fixture {
	t.Helper()
	eng, arts := servertest.Shop(t, wide)
	cfg := server.Config{Engine: eng, Models: arts}
	if mod != nil {
		mod(&cfg)
	}
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(handlerOf(srv))
	t.Cleanup(ts.Close)
	return &fixture{eng: eng, srv: srv, ts: ts}
}

// handlerOf is the API of s (New with no options); a test server's
// registry cannot refuse the request counter, so an error is a bug.
func handlerOf(s *server.Server) http.Handler {
	h, err := New(s, Options{})
	if err != nil {
		panic(err)
	}
	return h
}

func (f *fixture) do(t *testing.T, method, path, body string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, f.ts.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

type problemBody struct {
	Type     string            `json:"type"`
	Title    string            `json:"title"`
	Status   int               `json:"status"`
	Detail   string            `json:"detail"`
	Code     string            `json:"code"`
	Problems compiler.Problems `json:"problems"`
}

// wantProblem checks an RFC 9457 problem response and returns it.
func wantProblem(t *testing.T, resp *http.Response, body []byte, status int, code string) problemBody {
	t.Helper()
	if resp.StatusCode != status {
		t.Fatalf("status %d, want %d: %s", resp.StatusCode, status, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("content type %q", ct)
	}
	var p problemBody
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatalf("problem body %s: %v", body, err)
	}
	if p.Status != status || p.Code != code || p.Title == "" || p.Type == "" {
		t.Fatalf("problem %+v, want status %d code %q", p, status, code)
	}
	return p
}

func TestListAndDetail(t *testing.T) {
	f := newFixture(t, nil)
	resp, body := f.do(t, "GET", "/v1/models", "")
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	var list struct {
		Models []server.ModelSummary `json:"models"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range list.Models {
		names = append(names, m.Name)
	}
	if strings.Join(names, ",") != "missing,shop,slow" {
		t.Fatalf("models %v", names)
	}
	shop := list.Models[1]
	if !strings.HasPrefix(shop.Version, "sha256:") || shop.DocumentVersion != "0.2.0.dev0" ||
		shop.Counts != (server.ModelCounts{Datasets: 2, Dimensions: 7, Metrics: 3, Relationships: 1}) {
		t.Errorf("summary %+v", shop)
	}

	resp, body = f.do(t, "GET", "/v1/models/shop", "")
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	var raw map[string]any
	if err := json.Unmarshal(body, &raw); err != nil {
		t.Fatal(err)
	}
	if _, leaked := raw["datasets"].([]any)[0].(map[string]any)["source"]; leaked {
		t.Error("physical source exposed")
	}
	// Decoded into local shapes: ai_context is a string or an object.
	type dimension struct {
		Name, Field, Label, Description, Datatype string
		IsTime                                    bool `json:"is_time"`
		Grains                                    []string
		AIContext                                 json.RawMessage `json:"ai_context"`
	}
	var d struct {
		Version   string
		AIContext struct{ Instructions string } `json:"ai_context"`
		Datasets  []struct{ Dimensions []dimension }
		Metrics   []struct {
			Name, Description, Datatype string
			AIContext                   struct{ Synonyms []string } `json:"ai_context"`
		}
	}
	if err := json.Unmarshal(body, &d); err != nil {
		t.Fatal(err)
	}
	if d.Version != shop.Version || d.AIContext.Instructions == "" || len(d.Datasets) != 2 || len(d.Metrics) != 3 {
		t.Fatalf("detail %s", body)
	}
	dims := map[string]dimension{}
	for _, ds := range d.Datasets {
		for _, di := range ds.Dimensions {
			dims[di.Name] = di
		}
	}
	if od := dims["orders.order_date"]; !od.IsTime || od.Datatype != "Date" || len(od.Grains) != 6 {
		t.Errorf("order_date %+v", od)
	}
	if st := dims["orders.status"]; st.IsTime || st.Label != "Order status" || st.Description == "" || string(st.AIContext) != `"Returned orders still count as orders."` || st.Grains != nil {
		t.Errorf("status %+v", st)
	}
	var rev = d.Metrics[0]
	for _, m := range d.Metrics {
		if m.Name == "revenue" {
			rev = m
		}
	}
	if rev.Description != "Total order amount." || rev.Datatype != "Decimal" || len(rev.AIContext.Synonyms) != 2 {
		t.Errorf("revenue %+v", rev)
	}

	resp, body = f.do(t, "GET", "/v1/models/nope", "")
	p := wantProblem(t, resp, body, 404, compiler.CodeUnknownModel)
	if !strings.Contains(p.Detail, "shop") {
		t.Errorf("detail does not list loaded models: %q", p.Detail)
	}
}

// queryAnswer is the wire form of Response.
type queryAnswer struct {
	Model        string                `json:"model"`
	ModelVersion string                `json:"model_version"`
	Columns      []format.ResultColumn `json:"columns"`
	Rows         [][]any               `json:"rows"`
	RowCount     int                   `json:"row_count"`
	Truncated    bool                  `json:"truncated"`
}

func (f *fixture) query(t *testing.T, model, q string) queryAnswer {
	t.Helper()
	resp, body := f.do(t, "POST", "/v1/models/"+model+"/query", q)
	if resp.StatusCode != 200 {
		t.Fatalf("query %s: %d %s", q, resp.StatusCode, body)
	}
	var raw map[string]json.RawMessage
	_ = json.Unmarshal(body, &raw)
	if _, ok := raw["sql"]; ok {
		t.Error("query answer carries sql")
	}
	var a queryAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		t.Fatal(err)
	}
	if a.RowCount != len(a.Rows) {
		t.Errorf("row_count %d, rows %d", a.RowCount, len(a.Rows))
	}
	return a
}

// handRows runs hand-written SQL and passes the rows through JSON, as the
// API answer is, so both sides compare in the same value space.
func (f *fixture) handRows(t *testing.T, sql string) [][]any {
	t.Helper()
	res, err := f.eng.Query(context.Background(), sql, 0)
	if err != nil {
		t.Fatalf("hand SQL: %v", err)
	}
	b, _ := json.Marshal(res.Rows)
	var rows [][]any
	_ = json.Unmarshal(b, &rows)
	return rows
}

func TestQueryMatchesHandWrittenSQL(t *testing.T) {
	f := newFixture(t, nil)
	for _, tc := range []struct {
		name, query, hand string
		cols              []string
	}{
		{
			name:  "by state",
			query: `{"metrics":["revenue","order_count","avg_amount"],"dimensions":["customers.state"]}`,
			hand: `SELECT c.state, SUM(o.amount), COUNT(o.order_id), AVG(o.amount)
			       FROM orders o LEFT JOIN customers c ON o.customer_id = c.customer_id GROUP BY 1`,
			cols: []string{"customers.state", "revenue", "order_count", "avg_amount"},
		},
		{
			name:  "by month with filter",
			query: `{"metrics":["order_count"],"dimensions":[{"field":"orders.order_date","grain":"month"}],"filters":[{"field":"orders.status","op":"in","values":["placed","shipped"]}]}`,
			hand: `SELECT CAST(date_trunc('month', order_date) AS DATE), COUNT(order_id) FROM orders
			       WHERE status IN ('placed','shipped') GROUP BY 1`,
			cols: []string{"orders.order_date.month", "order_count"},
		},
		{
			name:  "no dimensions",
			query: `{"metrics":["revenue","order_count"]}`,
			hand:  `SELECT SUM(amount), COUNT(order_id) FROM orders`,
			cols:  []string{"revenue", "order_count"},
		},
		{
			name:  "injection attempt is data",
			query: `{"metrics":["order_count"],"filters":[{"field":"customers.state","op":"=","values":["CA' OR '1'='1"]}]}`,
			hand:  `SELECT 0::BIGINT`,
			cols:  []string{"order_count"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := f.query(t, "shop", tc.query)
			if a.Model != "shop" || !strings.HasPrefix(a.ModelVersion, "sha256:") || a.Truncated {
				t.Errorf("header %+v", a)
			}
			var names []string
			for _, c := range a.Columns {
				names = append(names, c.Name)
				if c.Kind != "dimension" && c.Kind != "metric" || c.Type == "" {
					t.Errorf("column %+v", c)
				}
			}
			if strings.Join(names, ",") != strings.Join(tc.cols, ",") {
				t.Fatalf("columns %v, want %v", names, tc.cols)
			}
			if err := servertest.SameRows(a.Rows, f.handRows(t, tc.hand)); err != nil {
				t.Error(err)
			}
		})
	}
	// Types describe the returned values.
	a := f.query(t, "shop", `{"metrics":["order_count","revenue"],"dimensions":[{"field":"orders.order_date","grain":"month"}]}`)
	if got := fmt.Sprint(a.Columns[0].Type, a.Columns[0].Grain, a.Columns[1].Type); !strings.HasPrefix(got, "Date") && !strings.HasPrefix(got, "DateTime") {
		t.Errorf("types %v", a.Columns)
	}
	if a.Columns[1].Type != "Integer" {
		t.Errorf("order_count type %+v", a.Columns[1])
	}
}

func TestAnswerIsTheHTTPPath(t *testing.T) {
	f := newFixture(t, nil)
	q, probs := plan.ParseQuery([]byte(`{"metrics":["revenue"],"dimensions":["customers.state"]}`))
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	resp, err := f.srv.Answer(context.Background(), "shop", q)
	if err != nil {
		t.Fatal(err)
	}
	if resp.SQL == "" || !strings.Contains(resp.SQL, `"orders"`) {
		t.Errorf("SQL %q", resp.SQL)
	}
	viaHTTP := f.query(t, "shop", `{"metrics":["revenue"],"dimensions":["customers.state"]}`)
	b, _ := json.Marshal(resp.Rows)
	var direct [][]any
	_ = json.Unmarshal(b, &direct)
	if err := servertest.SameRows(viaHTTP.Rows, direct); err != nil {
		t.Error(err)
	}
	_, err = f.srv.Answer(context.Background(), "nope", q)
	var e *problem.Error
	if !errors.As(err, &e) || e.Status != 404 || e.Code != compiler.CodeUnknownModel {
		t.Errorf("unknown model: %v", err)
	}
}

func TestSQLEndpoint(t *testing.T) {
	f := newFixture(t, nil)
	resp, body := f.do(t, "POST", "/v1/models/shop/sql", `{"metrics":["revenue"],"dimensions":["customers.state"]}`)
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	var p server.PlanResponse
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.SQL, "SELECT") || len(p.Columns) != 2 || p.Columns[0].Name != "customers.state" || p.ModelVersion == "" {
		t.Errorf("plan %+v", p)
	}
	// The planned SQL runs and gives what the query endpoint gives.
	direct := f.handRows(t, p.SQL)
	a := f.query(t, "shop", `{"metrics":["revenue"],"dimensions":["customers.state"]}`)
	if err := servertest.SameRows(a.Rows, direct); err != nil {
		t.Error(err)
	}
	// It is laid out for reading, and only that: the one-line statement
	// the engine is sent gives the same rows.
	if !strings.Contains(p.SQL, "\nFROM (\n  SELECT ") || !strings.Contains(p.SQL, "\n  GROUP BY 1\n") {
		t.Errorf("not formatted:\n%s", p.SQL)
	}
	sent, err := f.srv.Plan(context.Background(), "shop", &plan.Query{Metrics: []string{"revenue"}, Dimensions: []plan.Dimension{{Field: "customers.state"}}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sent.SQL, "\n") || sent.SQL == p.SQL {
		t.Errorf("the statement sent is not one line: %s", sent.SQL)
	}
	if err := servertest.SameRows(a.Rows, f.handRows(t, sent.SQL)); err != nil {
		t.Error(err)
	}
}

// TestSQLEndpointExplain: "explain": true adds the logical plan, each node
// naming its rewrite; the SQL is the same as without it, and /query refuses
// explain rather than ignoring it.
func TestSQLEndpointExplain(t *testing.T) {
	f := newFixture(t, nil)
	resp, body := f.do(t, "POST", "/v1/models/shop/sql", `{"metrics":["revenue"],"dimensions":["customers.state"],"explain":true}`)
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	var p server.PlanResponse
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"aggregate g0 at orders by customers.state  [per-home aggregation:", "left join customers along", "scan orders  ["} {
		if !strings.Contains(p.Explain, want) {
			t.Errorf("explain lacks %q:\n%s", want, p.Explain)
		}
	}
	_, plain := f.do(t, "POST", "/v1/models/shop/sql", `{"metrics":["revenue"],"dimensions":["customers.state"]}`)
	var q server.PlanResponse
	if err := json.Unmarshal(plain, &q); err != nil {
		t.Fatal(err)
	}
	if q.SQL != p.SQL || q.Explain != "" || strings.Contains(string(plain), `"explain"`) {
		t.Errorf("explain changed the SQL or appeared unasked: %s", plain)
	}
	resp, body = f.do(t, "POST", "/v1/models/shop/query", `{"metrics":["revenue"],"explain":true}`)
	if pr := wantProblem(t, resp, body, 400, compiler.CodeBadQuery); !strings.Contains(pr.Detail, "/sql") {
		t.Errorf("/query with explain: %s", body)
	}
}

func TestBadRequests(t *testing.T) {
	f := newFixture(t, func(c *server.Config) { c.MaxBodyBytes = 256 })
	t.Run("unknown metric", func(t *testing.T) {
		resp, body := f.do(t, "POST", "/v1/models/shop/query", `{"metrics":["revenu","nothing"]}`)
		p := wantProblem(t, resp, body, 400, compiler.CodeUnknownMetric)
		if len(p.Problems) < 2 {
			t.Errorf("want every problem listed: %s", body)
		}
	})
	t.Run("unknown dimension", func(t *testing.T) {
		resp, body := f.do(t, "POST", "/v1/models/shop/sql", `{"metrics":["revenue"],"dimensions":["customers.stat"]}`)
		wantProblem(t, resp, body, 400, compiler.CodeUnknownMember)
	})
	t.Run("malformed json", func(t *testing.T) {
		resp, body := f.do(t, "POST", "/v1/models/shop/query", `{"metrics":`)
		wantProblem(t, resp, body, 400, compiler.CodeBadQuery)
	})
	t.Run("unknown key", func(t *testing.T) {
		resp, body := f.do(t, "POST", "/v1/models/shop/query", `{"metrics":["revenue"],"sql":"DROP TABLE orders"}`)
		wantProblem(t, resp, body, 400, compiler.CodeBadQuery)
	})
	t.Run("too large", func(t *testing.T) {
		big := `{"metrics":["revenue"],"dimensions":[` + strings.Repeat(`"customers.state",`, 40) + `"customers.state"]}`
		resp, body := f.do(t, "POST", "/v1/models/shop/query", big)
		wantProblem(t, resp, body, 413, compiler.CodeTooLarge)
	})
	t.Run("filter value of the wrong type for an undeclared datatype", func(t *testing.T) {
		resp, body := f.do(t, "POST", "/v1/models/shop/query", `{"metrics":["revenue"],"filters":[{"field":"orders.amount","op":"gt","values":["abc"]}]}`)
		wantProblem(t, resp, body, 400, compiler.CodeBadFilter)
	})
	t.Run("unknown model wins over body", func(t *testing.T) {
		resp, body := f.do(t, "POST", "/v1/models/nope/query", `garbage`)
		wantProblem(t, resp, body, 404, compiler.CodeUnknownModel)
	})
	t.Run("wrong method", func(t *testing.T) {
		resp, body := f.do(t, "GET", "/v1/models/shop/query", "")
		p := wantProblem(t, resp, body, 405, compiler.CodeMethodNotAllowed)
		if resp.Header.Get("Allow") != "POST" || !strings.HasSuffix(p.Type, "#oss5006") || !strings.Contains(p.Detail, "use POST") {
			t.Errorf("%d %v %s", resp.StatusCode, resp.Header, body)
		}
	})
	t.Run("unknown path", func(t *testing.T) {
		resp, _ := f.do(t, "GET", "/v2/things", "")
		if resp.StatusCode != 404 || resp.Header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("%d %v", resp.StatusCode, resp.Header)
		}
	})
}

func TestRowCapTruncates(t *testing.T) {
	f := newFixture(t, func(c *server.Config) { c.MaxRows = 2 })
	a := f.query(t, "shop", `{"metrics":["order_count"],"dimensions":["orders.status"]}`)
	if !a.Truncated || a.RowCount != 2 {
		t.Errorf("truncated=%v rows=%d", a.Truncated, a.RowCount)
	}
	a = f.query(t, "shop", `{"metrics":["order_count"],"dimensions":["orders.status"],"limit":2}`)
	if a.Truncated || a.RowCount != 2 {
		t.Errorf("limit within cap: truncated=%v rows=%d", a.Truncated, a.RowCount)
	}
}

func TestTimeoutAndEngineErrors(t *testing.T) {
	f := newFixture(t, func(c *server.Config) { c.QueryTimeout = 300 * time.Millisecond })
	start := time.Now()
	resp, body := f.do(t, "POST", "/v1/models/slow/query", `{"metrics":["rows"]}`)
	wantProblem(t, resp, body, 504, compiler.CodeTimeout)
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("timeout took %v", took)
	}

	resp, body = f.do(t, "POST", "/v1/models/missing/query", `{"metrics":["gone_count"]}`)
	p := wantProblem(t, resp, body, 502, compiler.CodeEngine)
	// Drift, in fixed words: the physical table name stays in the log.
	if p.Detail != server.DetailNotFound+server.DetailInLog || strings.Contains(string(body), "no_such_table") {
		t.Errorf("detail %q", p.Detail)
	}
}

// unavailableEngine is a real engine whose queries fail as a networked
// engine's would when the server is down.
type unavailableEngine struct{ *duckdb.Engine }

func (unavailableEngine) Query(ctx context.Context, sql string, maxRows int) (*engine.Result, error) {
	return nil, &engine.Error{Class: engine.ErrUnavailable, Message: "engine: connection refused", Err: errors.New("dial tcp user:secret@10.0.0.1: refused")}
}

func (e unavailableEngine) Stream(ctx context.Context, sql string, cols engine.ColumnsFunc, row engine.RowFunc) error {
	_, err := e.Query(ctx, sql, 0)
	return err
}

func TestUnavailableEngineAndReadiness(t *testing.T) {
	f := newFixture(t, nil)
	resp, body := f.do(t, "GET", "/healthz", "")
	if resp.StatusCode != 200 || !strings.Contains(string(body), "ok") {
		t.Errorf("healthz %d %s", resp.StatusCode, body)
	}
	resp, body = f.do(t, "GET", "/readyz", "")
	if resp.StatusCode != 200 {
		t.Errorf("readyz %d %s", resp.StatusCode, body)
	}

	down := newFixture(t, func(c *server.Config) { c.Engine = unavailableEngine{c.Engine.(*duckdb.Engine)} })
	resp, body = down.do(t, "POST", "/v1/models/shop/query", `{"metrics":["revenue"]}`)
	p := wantProblem(t, resp, body, 503, compiler.CodeEngine)
	if strings.Contains(string(body), "secret") || p.Detail != server.DetailUnavailable {
		t.Errorf("leak or wrong detail: %s", body)
	}
	resp, body = down.do(t, "GET", "/readyz", "")
	if resp.StatusCode != 503 || strings.Contains(string(body), "secret") {
		t.Errorf("readyz down %d %s", resp.StatusCode, body)
	}

	noModels, err := server.New(server.Config{Engine: f.eng})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	handlerOf(noModels).ServeHTTP(rec, localRequest("GET", "/readyz", nil))
	if rec.Code != 503 {
		t.Errorf("readyz without models: %d", rec.Code)
	}

	planOnly, err := server.New(server.Config{Models: f.srv.Models()})
	if err != nil {
		t.Fatal(err)
	}
	rec = httptest.NewRecorder()
	handlerOf(planOnly).ServeHTTP(rec, localRequest("POST", "/v1/models/shop/sql", strings.NewReader(`{"metrics":["revenue"]}`)))
	if rec.Code != 200 {
		t.Errorf("sql without engine: %d %s", rec.Code, rec.Body)
	}
	rec = httptest.NewRecorder()
	handlerOf(planOnly).ServeHTTP(rec, localRequest("POST", "/v1/models/shop/query", strings.NewReader(`{"metrics":["revenue"]}`)))
	if rec.Code != 503 {
		t.Errorf("query without engine: %d %s", rec.Code, rec.Body)
	}
}

func TestNewRejectsDuplicateModels(t *testing.T) {
	arts, err := load.Models([]string{"../testdata/shop.yaml"}, compiler.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := server.New(server.Config{Models: []*compiler.Artifact{arts[0], arts[0]}}); err == nil {
		t.Error("duplicate model names accepted")
	}
	if _, err := server.New(server.Config{Models: []*compiler.Artifact{nil}}); err == nil {
		t.Error("nil model accepted")
	}
}

func TestLoadModelFilesReportsEveryFile(t *testing.T) {
	_, err := load.Models([]string{"../testdata/broken.yaml", "../testdata/shop.yaml", "../testdata/badversion.yaml", "../testdata/absent.yaml"}, compiler.CompileOptions{})
	var le *load.Error
	if !errors.As(err, &le) {
		t.Fatalf("error %T %v", err, err)
	}
	files := map[string]int{}
	for _, fp := range le.Files {
		files[filepath.Base(fp.File)] = len(fp.Problems)
	}
	if files["broken.yaml"] < 2 || files["badversion.yaml"] < 1 || files["absent.yaml"] != 1 || files["shop.yaml"] != 0 {
		t.Errorf("files %v\n%v", files, err)
	}
	msg := err.Error()
	for _, want := range []string{"../testdata/broken.yaml:10:", compiler.CodeDuplicateName, compiler.CodeUnsupportedVersion, "absent.yaml"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}

	_, err = load.Models([]string{"../testdata/shop.yaml", "../testdata/shop.yaml"}, compiler.CompileOptions{})
	if err == nil || !strings.Contains(err.Error(), compiler.CodeDuplicateName) {
		t.Errorf("duplicate across files: %v", err)
	}
}

func TestOpenAPIListsEveryRoute(t *testing.T) {
	f := newFixture(t, nil)
	resp, body := f.do(t, "GET", "/openapi.json", "")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("%d %v", resp.StatusCode, resp.Header)
	}
	var doc struct {
		OpenAPI string                    `json:"openapi"`
		Paths   map[string]map[string]any `json:"paths"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi %q", doc.OpenAPI)
	}
	for path, method := range map[string]string{
		"/v1/models": "get", "/v1/models/{model}": "get", "/v1/models/{model}/query": "post",
		"/v1/models/{model}/sql": "post", "/healthz": "get", "/readyz": "get", "/openapi.json": "get",
	} {
		if _, ok := doc.Paths[path][method]; !ok {
			t.Errorf("openapi lacks %s %s", method, path)
		}
	}
	// Authentication: the schemes exist, every /v1/ operation documents
	// 401, and exactly the operational routes opt out of security.
	var sec struct {
		Security   []map[string][]string `json:"security"`
		Components struct {
			SecuritySchemes map[string]struct {
				Type   string `json:"type"`
				Scheme string `json:"scheme"`
				In     string `json:"in"`
				Name   string `json:"name"`
			} `json:"securitySchemes"`
		} `json:"components"`
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(body, &sec); err != nil {
		t.Fatal(err)
	}
	schemes := sec.Components.SecuritySchemes
	if b := schemes["bearer"]; b.Type != "http" || b.Scheme != "bearer" {
		t.Errorf("bearer scheme %+v", b)
	}
	if p := schemes["trustedProxy"]; p.Type != "apiKey" || p.In != "header" || p.Name != auth.HeaderProxySecret {
		t.Errorf("proxy scheme %+v", p)
	}
	if len(sec.Security) != 2 {
		t.Errorf("top-level security %v", sec.Security)
	}
	for path, ops := range sec.Paths {
		for method, raw := range ops {
			if method == "parameters" {
				continue
			}
			var op struct {
				Security  *[]any         `json:"security"`
				Responses map[string]any `json:"responses"`
			}
			if err := json.Unmarshal(raw, &op); err != nil {
				t.Fatalf("%s %s: %v", method, path, err)
			}
			open := op.Security != nil && len(*op.Security) == 0
			if strings.HasPrefix(path, "/v1/") || path == "/mcp" {
				if open || op.Responses["401"] == nil {
					t.Errorf("%s %s: open=%v, 401 documented=%v", method, path, open, op.Responses["401"] != nil)
				}
			} else if !open {
				t.Errorf("%s %s should need no credentials", method, path)
			}
		}
	}
	// Every $ref points at something defined.
	var all any
	_ = json.Unmarshal(body, &all)
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if k == "$ref" {
					ref := e.(string)
					parts := strings.Split(strings.TrimPrefix(ref, "#/"), "/")
					var cur any = all
					for _, p := range parts {
						m, _ := cur.(map[string]any)
						cur = m[p]
					}
					if cur == nil {
						t.Errorf("dangling $ref %s", ref)
					}
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(all)
}

func TestFileSourceAnswers(t *testing.T) {
	dir := t.TempDir()
	eng, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	ctx := context.Background()
	pq := filepath.Join(dir, "events.parquet")
	if err := eng.Exec(ctx, "COPY (SELECT range % 3 AS kind, range AS v FROM range(10)) TO '"+pq+"' (FORMAT parquet)"); err != nil {
		t.Fatal(err)
	}
	cols, err := eng.Describe(ctx, []string{pq})
	if err != nil || len(cols) != 2 {
		t.Fatalf("describe %v %v", cols, err)
	}
	doc := fmt.Sprintf(`version: "0.2.0.dev0"
semantic_model:
  - name: files
    datasets:
      - name: events
        source: %q
        fields:
          - name: kind
            expression: {dialects: [{dialect: ANSI_SQL, expression: kind}]}
          - name: v
            expression: {dialects: [{dialect: ANSI_SQL, expression: v}]}
    metrics:
      - name: total
        expression: {dialects: [{dialect: ANSI_SQL, expression: SUM(events.v)}]}
`, pq)
	arts, probs := compiler.Load([]byte(doc), compiler.CompileOptions{})
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	if arts[0].Datasets[0].Source.Kind != compiler.SourceFile {
		t.Fatalf("source %+v", arts[0].Datasets[0].Source)
	}
	srv, err := server.New(server.Config{Engine: eng, Models: arts})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.Answer(ctx, "files", &plan.Query{Metrics: []string{"total"}, Dimensions: []plan.Dimension{{Field: "events.kind"}}})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{eng: eng}
	b, _ := json.Marshal(resp.Rows)
	var got [][]any
	_ = json.Unmarshal(b, &got)
	if err := servertest.SameRows(got, f.handRows(t, "SELECT range % 3, SUM(range) FROM range(10) GROUP BY 1")); err != nil {
		t.Error(err)
	}
}
