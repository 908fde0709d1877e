package httpapi

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/server"
	"github.com/prometheus/client_golang/prometheus"
)

func TestMetricsEndpoint(t *testing.T) {
	f := newFixture(t, nil)
	f.do(t, "POST", "/v1/models/shop/query", `{"metrics":["revenue"]}`)
	f.do(t, "POST", "/v1/models/shop/query", `{"metrics":["no_such_metric"]}`)
	f.do(t, "POST", "/v1/models/nope/query", `{"metrics":["revenue"]}`)
	f.do(t, "GET", "/v1/models/shop", "")
	f.do(t, "GET", "/no/such/path", "")
	f.do(t, "DELETE", "/v1/models", "")

	resp, body := f.do(t, "GET", "/metrics", "")
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("%d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	m := string(body)
	shop := f.srv.Models()[1]
	for _, want := range []string{
		`ossie_server_http_requests_total{code="200",route="POST /v1/models/{model}/query"} 1`,
		`ossie_server_http_requests_total{code="400",route="POST /v1/models/{model}/query"} 1`,
		`ossie_server_http_requests_total{code="404",route="POST /v1/models/{model}/query"} 1`,
		`ossie_server_http_requests_total{code="200",route="GET /v1/models/{model}"} 1`,
		`ossie_server_http_requests_total{code="404",route="unmatched"} 1`,
		`ossie_server_http_requests_total{code="405",route="/v1/models"} 1`,
		`ossie_server_query_duration_seconds_count{model="shop",outcome="ok"} 1`,
		`ossie_server_query_duration_seconds_count{model="shop",outcome="invalid"} 1`,
		`ossie_server_models_loaded 3`,
		`ossie_server_model_info{model="shop",source="files",version="` + shop.Version + `"} 1`,
		`ossie_server_artifact_load_errors_total{reason="decode"} 0`,
		`go_goroutines `,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	// An unknown model name must not become a label value.
	if strings.Contains(m, `model="nope"`) {
		t.Error("request-supplied model name became a label")
	}
}

func TestReadyzDetailAndSyncGate(t *testing.T) {
	f := newFixture(t, nil)
	resp, body := f.do(t, "GET", "/readyz", "")
	var doc struct {
		Status string                        `json:"status"`
		Ready  bool                          `json:"ready"`
		Models map[string]server.ModelStatus `json:"models"`
	}
	if err := json.Unmarshal(body, &doc); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	shop := f.srv.Models()[1]
	if doc.Status != "ready" || !doc.Ready || doc.Models["shop"] != (server.ModelStatus{Version: shop.Version, Source: "files"}) || len(doc.Models) != 3 {
		t.Errorf("readyz %s", body)
	}

	// A store-backed server is not ready before its cache syncs, and is
	// ready without models after (they may be published later).
	synced := false
	srv, err := server.New(server.Config{Engine: f.eng, Store: server.NewStore(nil), Synced: func() bool { return synced }})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	handlerOf(srv).ServeHTTP(rec, localRequest("GET", "/readyz", nil))
	var notReady struct {
		Status int                           `json:"status"`
		Detail string                        `json:"detail"`
		Ready  bool                          `json:"ready"`
		Models map[string]server.ModelStatus `json:"models"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &notReady); err != nil {
		t.Fatal(err)
	}
	if rec.Code != 503 || rec.Header().Get("Content-Type") != "application/problem+json" || notReady.Status != 503 ||
		notReady.Ready || notReady.Models == nil || !strings.Contains(notReady.Detail, "not synced") {
		t.Errorf("before sync: %d %s", rec.Code, rec.Body)
	}
	synced = true
	rec = httptest.NewRecorder()
	handlerOf(srv).ServeHTTP(rec, localRequest("GET", "/readyz", nil))
	if rec.Code != 200 {
		t.Errorf("after sync without models: %d %s", rec.Code, rec.Body)
	}

	if _, err := server.New(server.Config{Store: server.NewStore(nil), Models: f.srv.Models()}); err == nil {
		t.Error("Models together with Store accepted")
	}
}

// Two servers over one store and one registry register the store once;
// the same server collectors twice are refused.
func TestMetricsRegistration(t *testing.T) {
	reg := prometheus.NewRegistry()
	store := server.NewStore(nil)
	if _, err := server.New(server.Config{Store: store, Registry: reg}); err != nil {
		t.Fatal(err)
	}
	if _, err := server.New(server.Config{Store: store, Registry: reg}); err == nil {
		t.Error("second server on the same registry accepted; its request counters would collide")
	}
	if _, err := server.New(server.Config{Store: store, Registry: prometheus.NewRegistry()}); err != nil {
		t.Errorf("fresh registry: %v", err)
	}
}
