package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/auth"
	"github.com/ossie-dev/ossie/server/load"
	"github.com/ossie-dev/ossie/server/servertest"
)

// Tokens of the governed fixture, one per role of
// testdata/shop.governance.yaml plus edge cases.
var governedTokens = []struct{ name, token, roles, attrs string }{
	{"state", "tok-state-analyst-0000000000", "[state_analyst]", "{state: CA}"},
	{"quote", "tok-state-quote-000000000000", "[state_analyst]", `{state: "CA' OR '1'='1"}`},
	{"noattr", "tok-state-no-attribute-00000", "[state_analyst]", "{}"},
	{"auditor", "tok-auditor-0000000000000000", "[auditor]", "{}"},
	{"ops", "tok-ops-000000000000000000000", "[ops]", "{}"},
	{"outsider", "tok-outsider-000000000000000", "[outsider]", "{}"},
	{"undefined", "tok-undefined-role-000000000", "[no_such_role]", "{}"},
	{"opsauditor", "tok-ops-and-auditor-00000000", "[ops, auditor]", "{}"},
}

func governedToken(name string) string {
	for _, g := range governedTokens {
		if g.name == name {
			return g.token
		}
	}
	panic(name)
}

// newGovernedFixture serves shop (governed by testdata/shop.governance.yaml)
// and the ungoverned slow/missing models behind bearer tokens and the
// trusted proxy; mods change its configuration further.
func newGovernedFixture(t *testing.T, mods ...func(*server.Config)) *authFixture {
	t.Helper()
	var b strings.Builder
	b.WriteString("tokens:\n")
	for _, g := range governedTokens {
		b.WriteString("  - {name: " + g.name + ", token: " + g.token + ", roles: " + g.roles + ", attributes: " + g.attrs + "}\n")
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "tokens.yaml"), b.String())
	writeFile(t, filepath.Join(dir, "proxy"), testProxySecret)
	shop, err := load.GovernedModels([]string{"../testdata/shop.yaml"}, "../testdata/shop.governance.yaml", compiler.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rest, err := load.Models([]string{"../testdata/slow.yaml"}, compiler.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	opts := auth.Options{TokensFile: filepath.Join(dir, "tokens.yaml"), ProxySecretFile: filepath.Join(dir, "proxy")}
	models := func(c *server.Config) { c.Models = append(shop, rest...) }
	return newAuthFixture(t, opts, append([]func(*server.Config){models}, mods...)...)
}

func (f *authFixture) getJSON(t *testing.T, path string, hdr http.Header, v any) {
	t.Helper()
	resp, body := f.call(t, "GET", path, "", hdr)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatal(err)
	}
}

// members flattens a detail into its dimension names (with the mask, if
// any), metric names, dataset names, primary keys and relationships.
func members(d server.ModelDetail) (dims, metrics, datasets []string) {
	for _, ds := range d.Datasets {
		datasets = append(datasets, ds.Name+"["+strings.Join(ds.PrimaryKey, ",")+"]")
		for _, dim := range ds.Dimensions {
			n := dim.Name
			if dim.Masked != "" {
				n += ":" + dim.Masked + ":" + string(dim.Datatype)
			}
			dims = append(dims, n)
		}
	}
	for _, m := range d.Metrics {
		metrics = append(metrics, m.Name)
	}
	for _, r := range d.Relationships {
		datasets = append(datasets, r.Name)
	}
	return
}

func TestGovernedMetadata(t *testing.T) {
	f := newGovernedFixture(t)
	allDims := "orders.order_id,orders.customer_id,orders.status,orders.order_date,orders.amount,customers.customer_id,customers.state"
	for _, tc := range []struct {
		who                             string
		dims, metrics, datasets, models string
		counts                          server.ModelCounts
	}{
		{"state", "orders.order_id,orders.status,orders.order_date,orders.amount,customers.state", "order_count,revenue",
			"orders[order_id],customers[],orders_to_customers", "missing,shop,slow", server.ModelCounts{Datasets: 2, Dimensions: 5, Metrics: 2, Relationships: 1}},
		{"auditor", strings.Replace(allDims, "orders.status", "orders.status:hash:String", 1), "order_count,revenue,avg_amount",
			"orders[order_id],customers[customer_id],orders_to_customers", "missing,shop,slow", server.ModelCounts{Datasets: 2, Dimensions: 7, Metrics: 3, Relationships: 1}},
		{"ops", "orders.order_id,orders.customer_id,orders.status,orders.order_date", "order_count",
			"orders[order_id]", "missing,shop,slow", server.ModelCounts{Datasets: 1, Dimensions: 4, Metrics: 1, Relationships: 0}},
		// Union of roles: ops reads status unmasked, so it is not masked.
		{"opsauditor", allDims, "order_count,revenue,avg_amount",
			"orders[order_id],customers[customer_id],orders_to_customers", "missing,shop,slow", server.ModelCounts{Datasets: 2, Dimensions: 7, Metrics: 3, Relationships: 1}},
	} {
		t.Run(tc.who, func(t *testing.T) {
			hdr := bearer(governedToken(tc.who))
			var d server.ModelDetail
			f.getJSON(t, "/v1/models/shop", hdr, &d)
			dims, metrics, datasets := members(d)
			if got := strings.Join(dims, ","); got != tc.dims {
				t.Errorf("dimensions\n got %s\nwant %s", got, tc.dims)
			}
			if got := strings.Join(metrics, ","); got != tc.metrics {
				t.Errorf("metrics %s, want %s", got, tc.metrics)
			}
			if got := strings.Join(datasets, ","); got != tc.datasets {
				t.Errorf("datasets %s, want %s", got, tc.datasets)
			}
			var list struct{ Models []server.ModelSummary }
			f.getJSON(t, "/v1/models", hdr, &list)
			var names []string
			for _, m := range list.Models {
				names = append(names, m.Name)
				if m.Name == "shop" && m.Counts != tc.counts {
					t.Errorf("counts %+v, want %+v", m.Counts, tc.counts)
				}
			}
			if strings.Join(names, ",") != tc.models {
				t.Errorf("models %v", names)
			}
			// The governance rules themselves never reach a client.
			_, body := f.call(t, "GET", "/v1/models/shop", "", hdr)
			for _, leak := range []string{"governance", "row_filter", "caller.", "<> 'returned'"} {
				if strings.Contains(string(body), leak) {
					t.Errorf("detail shows %q", leak)
				}
			}
		})
	}

	// Callers who can see nothing of shop: it is absent from the list, and
	// asking for it is exactly asking for a model that does not exist.
	for _, who := range []string{"outsider", "undefined"} {
		hdr := bearer(governedToken(who))
		var list struct{ Models []server.ModelSummary }
		f.getJSON(t, "/v1/models", hdr, &list)
		if len(list.Models) != 2 || list.Models[0].Name != "missing" || list.Models[1].Name != "slow" {
			t.Errorf("%s: models %+v", who, list.Models)
		}
		for _, rt := range []struct{ method, suffix, body string }{
			{"GET", "", ""}, {"POST", "/query", `{"metrics":["order_count"]}`}, {"POST", "/sql", `{"metrics":["order_count"]}`},
		} {
			resp, hidden := f.call(t, rt.method, "/v1/models/shop"+rt.suffix, rt.body, hdr)
			wantProblem(t, resp, hidden, 404, "OSS5003")
			resp, unknown := f.call(t, rt.method, "/v1/models/shoq"+rt.suffix, rt.body, hdr)
			wantProblem(t, resp, unknown, 404, "OSS5003")
			// Word for word, but for the per-request id.
			hidden, unknown = withoutRequestID(hidden), withoutRequestID(unknown)
			if strings.ReplaceAll(string(hidden), "shop", "shoq") != string(unknown) {
				t.Errorf("%s %s: hidden and unknown differ:\n%s\n%s", who, rt.suffix, hidden, unknown)
			}
			if strings.Contains(string(unknown), "shop") {
				t.Errorf("%s: the unknown-model problem names the hidden model: %s", who, unknown)
			}
		}
	}
	// An ungoverned model is the same for everyone.
	var slowAll, slowOutsider server.ModelDetail
	f.getJSON(t, "/v1/models/slow", bearer(governedToken("auditor")), &slowAll)
	f.getJSON(t, "/v1/models/slow", bearer(governedToken("outsider")), &slowOutsider)
	if a, b := mustJSON(t, slowAll), mustJSON(t, slowOutsider); a != b || !strings.Contains(a, `"metrics":[{`) {
		t.Errorf("ungoverned model differs by caller:\n%s\n%s", a, b)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// answerAs posts a query with hdr and returns the answer.
func (f *authFixture) answerAs(t *testing.T, hdr http.Header, q string) queryAnswer {
	t.Helper()
	resp, body := f.call(t, "POST", "/v1/models/shop/query", q, hdr)
	if resp.StatusCode != 200 {
		t.Fatalf("query %s: %d %s", q, resp.StatusCode, body)
	}
	var a queryAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		t.Fatal(err)
	}
	return a
}

// TestGovernedAnswers compares answers under each role with hand-written
// SQL over the rows and values that role may see.
func TestGovernedAnswers(t *testing.T) {
	f := newGovernedFixture(t)
	// What state_analyst with state CA may read.
	const ordersState = `(SELECT * FROM orders WHERE status <> 'returned')`
	const customersCA = `(SELECT * FROM customers WHERE state = 'CA')`
	proxyCA := http.Header{"X-Ossie-Proxy-Secret": {testProxySecret}, "X-Ossie-Role": {"state_analyst"}, "X-Ossie-Attr-State": {"CA"}}
	for _, tc := range []struct {
		name string
		hdr  http.Header
		q    string
		hand string
	}{
		{"state: revenue by state", bearer(governedToken("state")),
			`{"metrics":["revenue","order_count"],"dimensions":["customers.state"]}`,
			`SELECT c.state, SUM(o.amount), COUNT(o.order_id) FROM ` + ordersState + ` o LEFT JOIN ` + customersCA + ` c ON o.customer_id = c.customer_id GROUP BY 1`},
		{"proxy state: revenue by state", proxyCA,
			`{"metrics":["revenue","order_count"],"dimensions":["customers.state"]}`,
			`SELECT c.state, SUM(o.amount), COUNT(o.order_id) FROM ` + ordersState + ` o LEFT JOIN ` + customersCA + ` c ON o.customer_id = c.customer_id GROUP BY 1`},
		{"state: a filter on a hidden state finds nothing", bearer(governedToken("state")),
			`{"metrics":["order_count"],"filters":[{"field":"customers.state","op":"=","values":["NY"]}]}`,
			`SELECT COUNT(o.order_id) FROM ` + ordersState + ` o LEFT JOIN ` + customersCA + ` c ON o.customer_id = c.customer_id WHERE c.state = 'NY'`},
		{"state: totals without dimensions", bearer(governedToken("state")),
			`{"metrics":["revenue","order_count"]}`,
			`SELECT SUM(amount), COUNT(order_id) FROM ` + ordersState + ` o`},
		{"quote in the attribute is a value", bearer(governedToken("quote")),
			`{"metrics":["order_count"],"dimensions":["customers.state"]}`,
			`SELECT c.state, COUNT(o.order_id) FROM ` + ordersState + ` o LEFT JOIN (SELECT * FROM customers WHERE state = 'CA'' OR ''1''=''1') c ON o.customer_id = c.customer_id GROUP BY 1`},
		{"missing attribute admits no customer", bearer(governedToken("noattr")),
			`{"metrics":["order_count"],"dimensions":["customers.state"]}`,
			`SELECT CAST(NULL AS VARCHAR), COUNT(order_id) FROM ` + ordersState + ` o`},
		{"auditor: hashed status", bearer(governedToken("auditor")),
			`{"metrics":["revenue"],"dimensions":["orders.status"],"filters":[{"field":"orders.status","op":"!=","values":["placed"]}]}`,
			`SELECT md5(status), SUM(amount) FROM orders WHERE md5(status) <> 'placed' GROUP BY 1`},
		{"ops: counts by status", bearer(governedToken("ops")),
			`{"metrics":["order_count"],"dimensions":["orders.status"]}`,
			`SELECT status, COUNT(order_id) FROM orders GROUP BY 1`},
		{"ungoverned in-process caller sees all", nil, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.hdr == nil {
				// Answer without an identity in ctx: every row, every member.
				a, err := f.srv.Answer(context.Background(), "shop", servertest.MustQuery(t, `{"metrics":["avg_amount"],"dimensions":["customers.customer_id"]}`))
				if err != nil {
					t.Fatal(err)
				}
				if err := servertest.SameRows(servertest.JSONRows(t, a.Rows), f.handRows(t, `SELECT c.customer_id, AVG(o.amount) FROM orders o LEFT JOIN customers c ON o.customer_id = c.customer_id GROUP BY 1`)); err != nil {
					t.Error(err)
				}
				return
			}
			a := f.answerAs(t, tc.hdr, tc.q)
			if err := servertest.SameRows(a.Rows, f.handRows(t, tc.hand)); err != nil {
				t.Error(err)
			}
		})
	}

	// The Go API plans under the identity in ctx, like the HTTP path.
	ctx := auth.WithIdentity(context.Background(), &auth.Identity{Name: "go", Roles: []string{"state_analyst"}, Attributes: map[string]string{"state": "CA"}})
	a, err := f.srv.Answer(ctx, "shop", servertest.MustQuery(t, `{"metrics":["revenue"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := servertest.SameRows(servertest.JSONRows(t, a.Rows), f.handRows(t, `SELECT SUM(amount) FROM `+ordersState+` o`)); err != nil {
		t.Error(err)
	}
	if _, err := f.srv.Plan(ctx, "shop", servertest.MustQuery(t, `{"metrics":["avg_amount"]}`)); err == nil || !strings.Contains(err.Error(), "OSS4002") {
		t.Errorf("hidden metric through Plan: %v", err)
	}
}

// withoutRequestID drops the request_id member, which differs per request.
func withoutRequestID(body []byte) []byte {
	return requestIDMember.ReplaceAll(body, nil)
}

var requestIDMember = regexp.MustCompile(`,"request_id":"[0-9a-f]+"`)

// TestSQLPreviewRefusedWhenGoverned: /sql would spell out the caller's row
// filters, physical sources and masked expressions, so a governed caller
// gets 403 OSS5007 with none of them, and an ungoverned one the SQL.
func TestSQLPreviewRefusedWhenGoverned(t *testing.T) {
	f := newGovernedFixture(t)
	for _, q := range []string{`{"metrics":["order_count"]}`, `{"metrics":["order_count"],"explain":true}`} {
		resp, body := f.call(t, "POST", "/v1/models/shop/sql", q, bearer(governedToken("state")))
		p := wantProblem(t, resp, body, 403, "OSS5007")
		for _, leak := range []string{"SELECT", "WHERE", "state", `"orders"`} {
			if strings.Contains(p.Detail, leak) {
				t.Errorf("%s: the problem shows %q: %s", q, leak, body)
			}
		}
		if strings.Contains(string(body), "scan ") || strings.Contains(string(body), `"explain"`) {
			t.Errorf("%s: the refusal carries the plan: %s", q, body)
		}
	}
}

// TestHiddenMembersAreUnknown: a member the role may not read gets the
// same problem as a member that does not exist, and no suggestion names a
// hidden member.
func TestHiddenMembersAreUnknown(t *testing.T) {
	f := newGovernedFixture(t)
	hdr := bearer(governedToken("state"))
	for _, tc := range []struct{ hidden, unknown, code string }{
		{`{"metrics":["avg_amount"]}`, `{"metrics":["avg_amoun"]}`, "OSS4002"},
		{`{"metrics":["order_count"],"dimensions":["customers.customer_id"]}`, `{"metrics":["order_count"],"dimensions":["customers.customer_ix"]}`, "OSS4003"},
		{`{"metrics":["order_count"],"filters":[{"field":"orders.customer_id","op":"=","values":[1]}]}`, `{"metrics":["order_count"],"filters":[{"field":"orders.customer_ix","op":"=","values":[1]}]}`, "OSS4003"},
		{`{"metrics":["order_count"],"order_by":[{"key":"avg_amount"}]}`, `{"metrics":["order_count"],"order_by":[{"key":"avg_amoun"}]}`, ""},
	} {
		for _, ep := range []string{"query"} {
			resp, hidden := f.call(t, "POST", "/v1/models/shop/"+ep, tc.hidden, hdr)
			p := wantProblem(t, resp, hidden, 400, problemCode(t, hidden))
			if tc.code != "" && p.Code != tc.code {
				t.Errorf("%s %s: code %s, want %s", ep, tc.hidden, p.Code, tc.code)
			}
			resp, unknown := f.call(t, "POST", "/v1/models/shop/"+ep, tc.unknown, hdr)
			q := wantProblem(t, resp, unknown, 400, p.Code)
			for _, leak := range []string{"avg_amount", "customer_id", "forbidden", "denied", "not allowed", "permission"} {
				if strings.Contains(q.Detail, leak) || (strings.Contains(p.Detail, leak) && !strings.Contains(tc.hidden, leak)) {
					t.Errorf("%s: a problem reveals %q:\n%s\n%s", ep, leak, hidden, unknown)
				}
			}
			// Hidden and misspelt names are reported with the same message
			// shape: only the name differs.
			if len(p.Problems) != len(q.Problems) || len(p.Problems) == 0 || p.Problems[0].Path != q.Problems[0].Path {
				t.Errorf("%s: problems differ in shape:\n%s\n%s", ep, hidden, unknown)
			}
		}
	}
	// The same hidden metric is readable by a role that allows it: it
	// exists, so the refusal above is governance, not a typo in the test.
	if a := f.answerAs(t, bearer(governedToken("auditor")), `{"metrics":["avg_amount"]}`); len(a.Rows) != 1 {
		t.Errorf("auditor avg_amount: %+v", a)
	}
}

func problemCode(t *testing.T, body []byte) string {
	t.Helper()
	var p problemBody
	_ = json.Unmarshal(body, &p)
	return p.Code
}

// TestBodyCannotChooseTheRole: the role comes only from authentication.
// A body naming a role or attributes is refused as an unknown key, and
// identity headers without the proxy secret change nothing.
func TestBodyCannotChooseTheRole(t *testing.T) {
	f := newGovernedFixture(t)
	hdr := bearer(governedToken("ops"))
	for _, body := range []string{
		`{"metrics":["revenue"],"role":"auditor"}`,
		`{"metrics":["revenue"],"roles":["auditor"]}`,
		`{"metrics":["revenue"],"caller":{"roles":["auditor"]}}`,
		`{"metrics":["revenue"],"attributes":{"state":"CA"}}`,
	} {
		resp, b := f.call(t, "POST", "/v1/models/shop/query", body, hdr)
		wantProblem(t, resp, b, 400, "OSS4001")
	}
	spoof := bearer(governedToken("ops"))
	spoof.Set("X-Ossie-Role", "auditor")
	spoof.Set("X-Ossie-Attr-State", "CA")
	resp, b := f.call(t, "POST", "/v1/models/shop/query", `{"metrics":["revenue"]}`, spoof)
	wantProblem(t, resp, b, 400, "OSS4002")
	// A wrong proxy secret with a role header is refused outright.
	spoof.Set("X-Ossie-Proxy-Secret", "not-the-proxy-secret-00000000")
	resp, b = f.call(t, "POST", "/v1/models/shop/query", `{"metrics":["revenue"]}`, spoof)
	wantProblem(t, resp, b, 401, "OSS5005")
}

// FuzzAuthenticate: whatever headers a client sends, the identity is the
// one its credentials name — a token entry's exact roles and attributes,
// the proxy's headers only with the exact proxy secret, the anonymous role
// only without credentials — and never anything else.
func FuzzAuthenticate(f *testing.F) {
	f.Add("Bearer "+tokAnalyst, "", "admin", "region", "EU", "")
	f.Add("Bearer "+tokAnalyst, testProxySecret, "admin, auditor", "region", "EU", "bob")
	f.Add("", testProxySecret+" ", "admin", "State", "x", "")
	f.Add("bearer  "+tokHashed, "", "", "", "", "")
	f.Add("", "", "admin", "region", "*", "root")
	f.Add("Basic "+tokAnalyst, testProxySecret[:20], "x", "a-b", "'; DROP TABLE orders; --", "")
	dir := f.TempDir()
	tokens := filepath.Join(dir, "tokens.yaml")
	secret := filepath.Join(dir, "secret")
	if err := os.WriteFile(tokens, []byte(tokensYAML()), 0o600); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(secret, []byte(testProxySecret+"\n"), 0o600); err != nil {
		f.Fatal(err)
	}
	a, err := auth.New(f.Context(), auth.Options{TokensFile: tokens, ProxySecretFile: secret, AnonymousRoles: []string{"public"}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, authz, proxySecretValue, roleHdr, attrName, attrValue, user string) {
		r := httptest.NewRequest("POST", "/v1/models/shop/query", strings.NewReader(`{"metrics":["revenue"],"role":"admin"}`))
		set := func(k, v string) {
			if v != "" {
				r.Header[http.CanonicalHeaderKey(k)] = []string{v}
			}
		}
		set("Authorization", authz)
		set("X-Ossie-Proxy-Secret", proxySecretValue)
		set("X-Ossie-Role", roleHdr)
		set("X-Ossie-User", user)
		if attrName != "" {
			set("X-Ossie-Attr-"+attrName, attrValue)
		}
		id, fail := a.Authenticate(r)
		if (id == nil) == (fail == nil) {
			t.Fatalf("identity %+v and failure %+v", id, fail)
		}
		if id == nil {
			return
		}
		switch id.Method {
		case auth.MethodProxy:
			if proxySecretValue != testProxySecret {
				t.Fatalf("proxy identity without the exact secret (%q)", proxySecretValue)
			}
			for _, role := range id.Roles {
				if !strings.Contains(roleHdr, role) {
					t.Fatalf("proxy role %q not in the header %q", role, roleHdr)
				}
			}
		case auth.MethodToken:
			if proxySecretValue == testProxySecret {
				t.Fatal("token identity although the proxy secret was sent")
			}
			want := map[string]string{"alice": "Bearer " + tokAnalyst, "bi-tool": "Bearer " + tokHashed}[id.Name]
			if want == "" || len(authz) < 7 || !strings.EqualFold(authz[:7], want[:7]) || authz[7:] != want[7:] {
				t.Fatalf("token identity %s for Authorization %q", id.Name, authz)
			}
			if id.Name == "alice" && (strings.Join(id.Roles, ",") != "analyst" || len(id.Attributes) != 1 || id.Attributes["region"] != "CA") ||
				id.Name == "bi-tool" && (strings.Join(id.Roles, ",") != "viewer,auditor" || len(id.Attributes) != 0) {
				t.Fatalf("token identity changed by the request: %+v", id)
			}
		case auth.MethodAnonymous:
			if authz != "" || proxySecretValue == testProxySecret {
				t.Fatalf("anonymous although credentials were sent")
			}
			if strings.Join(id.Roles, ",") != "public" || id.Attributes != nil {
				t.Fatalf("anonymous identity changed by the request: %+v", id)
			}
		default:
			t.Fatalf("identity %+v", id)
		}
	})
}

// TestGovernedBundleFromStore: in Kubernetes mode governance arrives inside
// the published artifact bundle. A governed artifact encoded and decoded as
// the ConfigMap watcher does, served from a Store, answers under a role
// exactly as the file-loaded one.
func TestGovernedBundleFromStore(t *testing.T) {
	arts, err := load.GovernedModels([]string{"../testdata/shop.yaml"}, "../testdata/shop.governance.yaml", compiler.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	data, err := compiler.EncodeBundle(compiler.NewBundle(arts))
	if err != nil {
		t.Fatal(err)
	}
	b, err := compiler.DecodeBundle(data, 0)
	if err != nil {
		t.Fatal(err)
	}
	if b.Artifacts[0].Governance == nil || b.Artifacts[0].Version != arts[0].Version {
		t.Fatalf("governance lost in the bundle: %+v", b.Artifacts[0].Governance)
	}
	store := server.NewStore(nil)
	if err := store.Set(server.Source{Key: "configmap ns/ossie-shop"}, b.Artifacts); err != nil {
		t.Fatal(err)
	}
	eng := servertest.ShopEngine(t)
	fromStore, err := server.New(server.Config{Engine: eng, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	fromFiles, err := server.New(server.Config{Engine: eng, Models: arts})
	if err != nil {
		t.Fatal(err)
	}
	ctx := auth.WithIdentity(context.Background(), &auth.Identity{Roles: []string{"state_analyst"}, Attributes: map[string]string{"state": "CA"}})
	q := servertest.MustQuery(t, `{"metrics":["revenue","order_count"],"dimensions":["customers.state"]}`)
	a1, err := fromStore.Answer(ctx, "shop", q)
	if err != nil {
		t.Fatal(err)
	}
	a2, err := fromFiles.Answer(ctx, "shop", q)
	if err != nil {
		t.Fatal(err)
	}
	if a1.SQL != a2.SQL || !strings.Contains(a1.SQL, "'CA'") {
		t.Errorf("plans differ or lack the row filter:\n%s\n%s", a1.SQL, a2.SQL)
	}
	if err := servertest.SameRows(servertest.JSONRows(t, a1.Rows), servertest.JSONRows(t, a2.Rows)); err != nil {
		t.Error(err)
	}
	if _, err := fromStore.Answer(ctx, "shop", servertest.MustQuery(t, `{"metrics":["avg_amount"]}`)); err == nil {
		t.Error("hidden metric answered from the store")
	}
}

// TestLoadGovernedModelFilesReportsTheGovernanceFile: governance problems
// are reported under the governance file's name, model problems under the
// model file's, all at once.
func TestLoadGovernedModelFilesReportsTheGovernanceFile(t *testing.T) {
	dir := t.TempDir()
	gov := filepath.Join(dir, "gov.yaml")
	writeFile(t, gov, "roles:\n  - name: r\n    metrics: {allow: [revenu]}\n    row_filters:\n      - {dataset: orderz, expression: \"1 = 1\"}\n")
	_, err := load.GovernedModels([]string{"../testdata/shop.yaml", "../testdata/broken.yaml"}, gov, compiler.CompileOptions{})
	le, ok := err.(*load.Error)
	if !ok {
		t.Fatalf("error %v", err)
	}
	files := map[string]string{}
	for _, f := range le.Files {
		for _, p := range f.Problems {
			files[f.File] += p.Code + " " + p.Path + "\n"
		}
	}
	if !strings.Contains(files[gov], "OSS2009 governance.roles[0].metrics.allow[0]") || !strings.Contains(files[gov], "OSS2002 governance.roles[0].row_filters[0].dataset") {
		t.Errorf("governance problems:\n%s", files[gov])
	}
	if files["../testdata/broken.yaml"] == "" || strings.Contains(files["../testdata/shop.yaml"], "governance") {
		t.Errorf("model problems: %v", files)
	}
	if !strings.Contains(err.Error(), gov+":3:") {
		t.Errorf("no line:col under the governance file:\n%v", err)
	}
}

// BenchmarkPlanGoverned measures what governance adds to planning one
// query through Server.Plan (visibility check + PlanFor with row filters
// and masks) against the same query planned ungoverned.
func BenchmarkPlanGoverned(b *testing.B) {
	arts, err := load.GovernedModels([]string{"../testdata/shop.yaml"}, "../testdata/shop.governance.yaml", compiler.CompileOptions{})
	if err != nil {
		b.Fatal(err)
	}
	srv, err := server.New(server.Config{Models: arts})
	if err != nil {
		b.Fatal(err)
	}
	q, probs := plan.ParseQuery([]byte(`{"metrics":["revenue","order_count"],"dimensions":["customers.state","orders.status"]}`))
	if probs.HasErrors() {
		b.Fatal(probs)
	}
	for name, ctx := range map[string]context.Context{
		"ungoverned": context.Background(),
		"governed": auth.WithIdentity(context.Background(), &auth.Identity{Roles: []string{"state_analyst", "auditor"},
			Attributes: map[string]string{"state": "CA"}}),
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := srv.Plan(ctx, "shop", q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
