package httpapi

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/auth"
	"github.com/ossie-dev/ossie/server/format"
	"github.com/ossie-dev/ossie/server/servertest"
)

// newWideFixture serves shop, slow and wide (over wide_t).
func newWideFixture(t *testing.T, mod func(*server.Config)) *fixture { return serveShop(t, true, mod) }

// post sends a query with an Accept header and reads the whole body (so
// trailers are in resp.Trailer).
func (f *fixture) post(t *testing.T, model, accept, q string, hdr http.Header) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest("POST", f.ts.URL+"/v1/models/"+model+"/query", strings.NewReader(q))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json") // the loopback guard's rule (hostcheck.go)
	for k, v := range hdr {
		req.Header[k] = v
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("%s: status %d: %s", q, resp.StatusCode, b)
	}
	return resp, b
}

// tailField reads an end-of-answer field: a header when the answer was
// small, else a trailer.
func tailField(resp *http.Response, name string) string {
	if v := resp.Header.Get(name); v != "" {
		return v
	}
	return resp.Trailer.Get(name)
}

// text renders a JSON-decoded value for comparison across formats.
func text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return x
	}
	return fmt.Sprint(v)
}

func jsonTable(t *testing.T, body []byte) (queryAnswer, [][]string) {
	t.Helper()
	var a queryAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		t.Fatalf("JSON answer: %v", err)
	}
	out := make([][]string, len(a.Rows))
	for i, r := range a.Rows {
		out[i] = make([]string, len(r))
		for j, v := range r {
			out[i][j] = text(v)
		}
	}
	return a, out
}

func csvTable(t *testing.T, body []byte, cols []format.ResultColumn) []string {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(string(body))).ReadAll()
	if err != nil {
		t.Fatalf("CSV answer: %v", err)
	}
	var out []string
	for i, r := range recs {
		if i == 0 {
			for j, c := range cols {
				if r[j] != c.Name {
					t.Fatalf("CSV header %v, columns %v", r, cols)
				}
			}
			continue
		}
		for j, v := range r {
			if n, err := strconv.ParseFloat(v, 64); err == nil && (cols[j].Type == "Float" || cols[j].Type == "Decimal" || cols[j].Type == "Integer") {
				v = strconv.FormatFloat(n, 'g', -1, 64)
			}
			r[j] = v
		}
		out = append(out, strings.Join(r, "\x1f"))
	}
	return out
}

func arrowTable(t *testing.T, body []byte, cols []format.ResultColumn) []string {
	t.Helper()
	rd, err := ipc.NewReader(strings.NewReader(string(body)))
	if err != nil {
		t.Fatalf("Arrow answer: %v", err)
	}
	defer rd.Release()
	sc := rd.Schema()
	for j, c := range cols {
		if sc.Field(j).Name != c.Name {
			t.Fatalf("Arrow field %d is %s, want %s", j, sc.Field(j).Name, c.Name)
		}
		want, _ := format.ArrowType(ossie.Datatype(c.Type))
		if !arrow.TypeEqual(sc.Field(j).Type, want) {
			t.Errorf("Arrow field %s type %s, want %s for %s", c.Name, sc.Field(j).Type, want, c.Type)
		}
	}
	var out []string
	for rd.Next() {
		rec := rd.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			row := make([]string, rec.NumCols())
			for j := range row {
				col := rec.Column(j)
				if col.IsNull(i) {
					continue
				}
				switch c := col.(type) {
				case *array.Int64:
					row[j] = strconv.FormatInt(c.Value(i), 10)
				case *array.Float64:
					row[j] = strconv.FormatFloat(c.Value(i), 'g', -1, 64)
				case *array.String:
					row[j] = c.Value(i)
				case *array.Boolean:
					row[j] = strconv.FormatBool(c.Value(i))
				case *array.Date32:
					row[j] = c.Value(i).ToTime().Format(time.DateOnly)
				case *array.Timestamp:
					row[j] = time.UnixMicro(int64(c.Value(i))).UTC().Format(time.RFC3339Nano)
				default:
					t.Fatalf("unexpected Arrow column %T", col)
				}
			}
			out = append(out, strings.Join(row, "\x1f"))
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatalf("Arrow stream: %v", err)
	}
	return out
}

func joinRows(rows [][]string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strings.Join(r, "\x1f")
	}
	return out
}

func sameLines(t *testing.T, format string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, JSON %d", format, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s row %d: %q, JSON %q", format, i, got[i], want[i])
		}
	}
}

// TestFormatsAgree reads CSV with encoding/csv and the Arrow stream with
// arrow-go and compares every value with the JSON answer, itself compared
// with hand-written SQL; small answers (headers) and large ones (streamed,
// trailers) alike.
func TestFormatsAgree(t *testing.T) {
	f := newWideFixture(t, nil)
	for _, tc := range []struct{ name, q, hand string }{
		{"shop: decimals, dates, NULL groups", `{"metrics":["revenue","order_count","avg_amount"],"dimensions":["customers.state",{"field":"orders.order_date","grain":"month"}],"order_by":[{"key":"customers.state"},{"key":"orders.order_date.month"}]}`,
			`SELECT c.state, CAST(date_trunc('month', o.order_date) AS DATE), SUM(o.amount), COUNT(o.order_id), AVG(o.amount) FROM orders o LEFT JOIN customers c ON o.customer_id = c.customer_id GROUP BY 1, 2`},
		{"wide: 40,000 rows, quotes and commas, NULL sums", `{"metrics":["n","total"],"dimensions":["t.k","t.label","t.day"],"order_by":[{"key":"t.k"}]}`,
			`SELECT k, label, day, COUNT(k), SUM(x) FROM wide_t GROUP BY ALL`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := "shop"
			if strings.HasPrefix(tc.name, "wide") {
				model = "wide"
			}
			resp, body := f.post(t, model, "", tc.q, nil)
			a, rows := jsonTable(t, body)
			if err := servertest.SameRows(a.Rows, f.handRows(t, tc.hand)); err != nil {
				t.Fatalf("JSON vs hand-written SQL: %v", err)
			}
			if tailField(resp, format.HdrTruncated) != "false" || tailField(resp, format.HdrRowCount) != strconv.Itoa(len(rows)) {
				t.Errorf("JSON end fields: truncated %q rows %q", tailField(resp, format.HdrTruncated), tailField(resp, format.HdrRowCount))
			}
			want := joinRows(rows)

			resp, body = f.post(t, model, "text/csv", tc.q, nil)
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
				t.Errorf("CSV content type %q", ct)
			}
			sameLines(t, "CSV", csvTable(t, body, a.Columns), want)
			if tailField(resp, format.HdrTruncated) != "false" || tailField(resp, format.HdrRowCount) != strconv.Itoa(len(rows)) {
				t.Errorf("CSV end fields: truncated %q rows %q", tailField(resp, format.HdrTruncated), tailField(resp, format.HdrRowCount))
			}

			resp, body = f.post(t, model, "application/vnd.apache.arrow.stream", tc.q, nil)
			if ct := resp.Header.Get("Content-Type"); ct != format.MediaArrow {
				t.Errorf("Arrow content type %q", ct)
			}
			sameLines(t, "Arrow", arrowTable(t, body, a.Columns), want)
			if tailField(resp, format.HdrRowCount) != strconv.Itoa(len(rows)) {
				t.Errorf("Arrow row count %q", tailField(resp, format.HdrRowCount))
			}
			if model == "wide" && resp.Trailer.Get(format.HdrRowCount) == "" {
				t.Error("a large answer should carry its end fields as trailers")
			}
		})
	}
}

// TestTruncationInEveryFormat: the cap is pushed into SQL (LIMIT cap+1)
// and a row beyond it sets truncated in the JSON trailer and in
// Ossie-Truncated for every format, for small and streamed answers.
func TestTruncationInEveryFormat(t *testing.T) {
	const capRows = 30000
	f := newWideFixture(t, func(c *server.Config) { c.MaxRows = capRows })
	for _, tc := range []struct {
		q         string
		rows      int
		truncated bool
	}{
		{`{"metrics":["n"],"dimensions":["t.k"]}`, capRows, true},
		{`{"metrics":["n"],"dimensions":["t.k"],"limit":30001}`, capRows, true},
		{`{"metrics":["n"],"dimensions":["t.k"],"limit":30000}`, capRows, false},
		{`{"metrics":["n"],"dimensions":["t.k"],"filters":[{"field":"t.k","op":"lt","values":[30000]}]}`, capRows, false},
		{`{"metrics":["n"],"dimensions":["t.k"],"filters":[{"field":"t.k","op":"lt","values":[30001]}]}`, capRows, true},
		{`{"metrics":["n"],"dimensions":["t.label"]}`, 14, false},
	} {
		for _, accept := range []string{"", "text/csv", format.MediaArrow} {
			resp, body := f.post(t, "wide", accept, tc.q, nil)
			if got := tailField(resp, format.HdrTruncated); got != strconv.FormatBool(tc.truncated) {
				t.Errorf("%s %s: Ossie-Truncated %q, want %v", accept, tc.q, got, tc.truncated)
			}
			if got := tailField(resp, format.HdrRowCount); got != strconv.Itoa(tc.rows) {
				t.Errorf("%s %s: Ossie-Row-Count %q, want %d", accept, tc.q, got, tc.rows)
			}
			if accept == "" {
				a, _ := jsonTable(t, body)
				if a.Truncated != tc.truncated || a.RowCount != tc.rows || len(a.Rows) != tc.rows {
					t.Errorf("%s: JSON truncated=%v row_count=%d rows=%d", tc.q, a.Truncated, a.RowCount, len(a.Rows))
				}
			}
		}
	}
	res, err := f.srv.Answer(context.Background(), "wide", servertest.MustQuery(t, `{"metrics":["n"],"dimensions":["t.k"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.SQL, "LIMIT 30001") {
		t.Errorf("the cap is not in the SQL:\n%s", res.SQL)
	}
}

// TestTotal: `total: true` adds the row count without limit and offset.
func TestTotal(t *testing.T) {
	f := newWideFixture(t, nil)
	_, body := f.post(t, "shop", "", `{"metrics":["order_count"],"dimensions":["orders.status"],"order_by":[{"key":"orders.status"}],"limit":2,"offset":1,"total":true}`, nil)
	var a struct {
		queryAnswer
		Total *int64 `json:"total"`
	}
	if err := json.Unmarshal(body, &a); err != nil {
		t.Fatal(err)
	}
	want := f.handRows(t, `SELECT COUNT(*) FROM (SELECT DISTINCT status FROM orders)`)[0][0].(float64)
	if a.Total == nil || float64(*a.Total) != want {
		t.Fatalf("total %v, want %v", a.Total, want)
	}
	if err := servertest.SameRows(a.Rows, f.handRows(t, `SELECT status, COUNT(*) FROM orders GROUP BY 1 ORDER BY 1 LIMIT 2 OFFSET 1`)); err != nil {
		t.Error(err)
	}
	_, body = f.post(t, "shop", "", `{"metrics":["order_count"],"dimensions":["orders.status"]}`, nil)
	if strings.Contains(string(body), `"total"`) {
		t.Errorf("total without asking: %s", body)
	}
}

// slowEngine is the real DuckDB engine whose answers start later, so that
// concurrent identical questions overlap.
type slowEngine struct{ *duckdb.Engine }

func (e slowEngine) Stream(ctx context.Context, sql string, cols engine.ColumnsFunc, row engine.RowFunc) error {
	time.Sleep(time.Second)
	return e.Engine.Stream(ctx, sql, cols, row)
}

func cacheCounts(t *testing.T, reg *prometheus.Registry) (hits, misses float64) {
	t.Helper()
	return counterValue(t, reg, "ossie_result_cache_hits_total"), counterValue(t, reg, "ossie_result_cache_misses_total")
}

// counterValue is the value of the unlabelled counter name on reg, as
// /metrics serves it.
func counterValue(t testing.TB, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}

// TestResultCache: a repeated question is a hit that says so; concurrent
// identical questions run once; a new model version is a miss and sees
// new data; an answer larger than the cache's entry limit is not kept.
func TestResultCache(t *testing.T) {
	reg := prometheus.NewRegistry()
	// The models come from a store, so that a new version can be put in
	// while serving.
	store := server.NewStore(nil)
	files := server.Source{Key: "files"}
	f := newWideFixture(t, func(c *server.Config) {
		if err := store.Set(files, c.Models); err != nil {
			t.Fatal(err)
		}
		c.Store, c.Models, c.CacheBytes, c.Registry = store, nil, 1<<20, reg
	})
	q := `{"metrics":["revenue"],"dimensions":["orders.status"]}`
	resp, body := f.post(t, "shop", "", q, nil)
	first, _ := jsonTable(t, body)
	if resp.Header.Get(format.HdrCache) != "miss" || strings.Contains(string(body), `"cached":true`) {
		t.Fatalf("first answer: %s %s", resp.Header.Get(format.HdrCache), body)
	}
	resp, body = f.post(t, "shop", "", q, nil)
	second, _ := jsonTable(t, body)
	if resp.Header.Get(format.HdrCache) != "hit" || resp.Header.Get("Age") == "" || !strings.Contains(string(body), `"cached":true`) {
		t.Fatalf("second answer: %s %s", resp.Header.Get(format.HdrCache), body)
	}
	if err := servertest.SameRows(second.Rows, first.Rows); err != nil {
		t.Fatal(err)
	}
	// Same answer in another format: still one entry.
	resp, _ = f.post(t, "shop", "text/csv", q, nil)
	if resp.Header.Get(format.HdrCache) != "hit" {
		t.Errorf("CSV of a cached answer: %s", resp.Header.Get(format.HdrCache))
	}
	if h, m := cacheCounts(t, reg); h != 2 || m != 1 {
		t.Errorf("hits %v misses %v, want 2 and 1", h, m)
	}

	// New data under the same model version: the cache still answers
	// (bounded by the TTL); a new version must not.
	if err := f.eng.Exec(context.Background(), `UPDATE orders SET amount = amount * 2`); err != nil {
		t.Fatal(err)
	}
	resp, _ = f.post(t, "shop", "", q, nil)
	if resp.Header.Get(format.HdrCache) != "hit" {
		t.Fatalf("same version: %s", resp.Header.Get(format.HdrCache))
	}
	arts := f.srv.Models()
	for i, a := range arts {
		c := *a
		c.Version = a.Version + "-next"
		arts[i] = &c
	}
	if err := store.Set(files, arts); err != nil {
		t.Fatal(err)
	}
	resp, body = f.post(t, "shop", "", q, nil)
	third, _ := jsonTable(t, body)
	if resp.Header.Get(format.HdrCache) != "miss" || !strings.HasSuffix(third.ModelVersion, "-next") {
		t.Fatalf("new version: %s %s", resp.Header.Get(format.HdrCache), third.ModelVersion)
	}
	if err := servertest.SameRows(third.Rows, f.handRows(t, `SELECT status, SUM(amount) FROM orders GROUP BY 1`)); err != nil {
		t.Fatalf("new version served old data: %v", err)
	}

	// 40,000 rows are more than an eighth of 1 MiB: never kept.
	big := `{"metrics":["n"],"dimensions":["t.k","t.label"]}`
	f.post(t, "wide", "", big, nil)
	if resp, _ := f.post(t, "wide", "", big, nil); resp.Header.Get(format.HdrCache) != "miss" {
		t.Errorf("a large answer was cached")
	}
}

func TestResultCacheSingleFlight(t *testing.T) {
	f := newWideFixture(t, nil)
	srv, err := server.New(server.Config{Engine: slowEngine{f.eng}, Models: f.srv.Models(), CacheBytes: 1 << 20, Registry: prometheus.NewRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	q := servertest.MustQuery(t, `{"metrics":["order_count"],"dimensions":["orders.status"]}`)
	var wg sync.WaitGroup
	answers := make([]*server.Response, 8)
	for i := range answers {
		wg.Go(func() {
			a, err := srv.Answer(context.Background(), "shop", q)
			if err != nil {
				t.Error(err)
				return
			}
			answers[i] = a
		})
	}
	wg.Wait()
	cached := 0
	for _, a := range answers {
		if a != nil && a.Cached {
			cached++
		}
	}
	if cached != len(answers)-1 {
		t.Errorf("%d of %d concurrent answers from the cache, want all but one", cached, len(answers))
	}
	if _, got := cacheCounts(t, srv.Config().Registry); got != 1 {
		t.Errorf("misses %v, want 1 engine query", got)
	}
}

// TestResultCachePerRole: the same question under two roles (or two
// attribute values) is two entries, each answering only its own rows.
func TestResultCachePerRole(t *testing.T) {
	g := newGovernedFixture(t)
	cfg := g.srv.Config()
	cfg.CacheBytes, cfg.Registry = 1<<20, prometheus.NewRegistry()
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	q := servertest.MustQuery(t, `{"metrics":["order_count"],"dimensions":["customers.state"]}`)
	as := func(role, state string) *server.Response {
		id := &auth.Identity{Name: role, Roles: []string{role}, Attributes: map[string]string{"state": state}}
		a, err := srv.Answer(auth.WithIdentity(ctx, id), "shop", q)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	const ordersState = `(SELECT * FROM orders WHERE status <> 'returned')`
	for range 2 {
		for _, tc := range []struct{ role, state, hand string }{
			{"state_analyst", "CA", `SELECT c.state, COUNT(o.order_id) FROM ` + ordersState + ` o LEFT JOIN (SELECT * FROM customers WHERE state = 'CA') c ON o.customer_id = c.customer_id GROUP BY 1`},
			{"state_analyst", "NY", `SELECT c.state, COUNT(o.order_id) FROM ` + ordersState + ` o LEFT JOIN (SELECT * FROM customers WHERE state = 'NY') c ON o.customer_id = c.customer_id GROUP BY 1`},
			{"auditor", "CA", `SELECT c.state, COUNT(o.order_id) FROM orders o LEFT JOIN customers c ON o.customer_id = c.customer_id GROUP BY 1`},
		} {
			a := as(tc.role, tc.state)
			if err := servertest.SameRows(servertest.JSONRows(t, a.Rows), g.handRows(t, tc.hand)); err != nil {
				t.Errorf("%s %s (cached=%v): %v", tc.role, tc.state, a.Cached, err)
			}
		}
	}
	if h, m := cacheCounts(t, srv.Config().Registry); h != 3 || m != 3 {
		t.Errorf("hits %v misses %v, want 3 and 3", h, m)
	}
}
