package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/template"
	"time"

	"github.com/jackc/pgx/v5"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/test/cases/casefile"
)

// ---- the shop model and its PostgreSQL tables ----

// shop fills testdata/shop.yaml.
type shop struct {
	Name        string // SemanticModel name
	Namespace   string
	Model       string // model name the server serves
	Schema      string // PostgreSQL schema of the tables
	Description string
}

var shopTemplate = template.Must(template.ParseFiles(filepath.Join("testdata", "shop.yaml")))

func newShop(ns, model, schema string) shop {
	return shop{Name: "shop", Namespace: ns, Model: model, Schema: schema, Description: "Orders and their lines"}
}

// manifest is the filled template.
func (s shop) manifest() []byte {
	GinkgoHelper()
	var b bytes.Buffer
	Expect(shopTemplate.Execute(&b, s)).To(Succeed())
	return b.Bytes()
}

// object decodes the manifest strictly (an unknown key fails here just as
// the API server would refuse it).
func (s shop) object() *v1alpha1.SemanticModel {
	GinkgoHelper()
	sm := &v1alpha1.SemanticModel{}
	Expect(yaml.UnmarshalStrict(s.manifest(), sm)).To(Succeed())
	return sm
}

// file writes the manifest to a temporary file for kubectl.
func (s shop) file() string {
	GinkgoHelper()
	path := filepath.Join(GinkgoT().TempDir(), s.Namespace+"-"+s.Name+".yaml")
	Expect(os.WriteFile(path, s.manifest(), 0o600)).To(Succeed())
	return path
}

// create stores the SemanticModel through the API.
func (s shop) create() *v1alpha1.SemanticModel {
	GinkgoHelper()
	sm := s.object()
	Expect(k8s.Create(suiteCtx, sm)).To(Succeed())
	return sm
}

// createShopTables creates schema with the BC-01 tables and rows.
func createShopTables(schema string) {
	GinkgoHelper()
	sql := fmt.Sprintf(`
CREATE SCHEMA %[1]s;
CREATE TABLE %[1]s.orders (order_id INTEGER PRIMARY KEY, region VARCHAR, order_date DATE, amount DECIMAL(10,2));
INSERT INTO %[1]s.orders VALUES (1,'NA','2017-12-01',50.36),(2,'EMEA','2017-12-02',24.12),(3,'NA','2017-12-02',50.36);
CREATE TABLE %[1]s.order_lines (line_id INTEGER PRIMARY KEY, order_id INTEGER, quantity INTEGER, unit_price DECIMAL(10,2));
INSERT INTO %[1]s.order_lines VALUES (50,1,1,23.00),(63,1,2,13.68),(64,2,1,13.68),(72,2,1,5.08),(79,2,1,5.36),(78,3,1,50.36);`,
		pgx.Identifier{schema}.Sanitize())
	execSQL(sql)
}

// execSQL runs statements on the suite's database, as a DBA would.
func execSQL(sql string) {
	GinkgoHelper()
	ctx, cancel := context.WithTimeout(suiteCtx, 20*time.Second)
	defer cancel()
	Expect(pg.Exec(ctx, pgDatabase, sql)).To(Succeed(), sql)
}

// The two questions every scenario asks, with their answers written by
// hand from the rows above, and the SQL that proves them on PostgreSQL.
var (
	byRegionQuery = `{"metrics": ["orders_total", "order_count", "units"], "dimensions": ["orders.region"]}`
	byRegionRows  = [][]any{{"EMEA", 24.12, 1, 3}, {"NA", 100.72, 2, 4}}
	byRegionSQL   = `WITH o AS (SELECT region, SUM(amount) AS t, COUNT(order_id) AS c FROM %[1]s.orders GROUP BY region),
     l AS (SELECT o.region, SUM(l.quantity) AS u FROM %[1]s.order_lines l JOIN %[1]s.orders o USING (order_id) GROUP BY o.region)
SELECT o.region::text, t::float8, c::bigint, u::bigint FROM o JOIN l USING (region) ORDER BY 1`

	// totalsQuery reads no region, so it keeps answering while region is
	// dropped.
	totalsQuery = `{"metrics": ["orders_total", "units"]}`
	totalsRows  = [][]any{{124.84, 7}}
	totalsSQL   = `SELECT (SELECT SUM(amount) FROM %[1]s.orders)::float8, (SELECT SUM(quantity) FROM %[1]s.order_lines)::bigint`
)

// sqlRows runs hand-written SQL (with %[1]s standing for the quoted
// schema) directly on PostgreSQL.
func sqlRows(format, schema string) [][]any {
	GinkgoHelper()
	ctx, cancel := context.WithTimeout(suiteCtx, 20*time.Second)
	defer cancel()
	rows, err := sqlDB.Query(ctx, fmt.Sprintf(format, pgx.Identifier{schema}.Sanitize()))
	Expect(err).NotTo(HaveOccurred())
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) ([]any, error) { return r.Values() })
	Expect(err).NotTo(HaveOccurred())
	return out
}

// expectAnswer asks the server q on model and checks the rows against
// want (hand-written) and against the same question in SQL on PostgreSQL,
// returning the answer's model_version.
func expectAnswer(g Gomega, model, q string, want [][]any, checkSQL, schema string) string {
	status, resp, prob := queryServer(model, q)
	g.Expect(status).To(Equal(http.StatusOK), "query %s on %s: %+v", q, model, prob)
	ok, why := casefile.Match(want, resp.Rows, false, 1e-9)
	g.Expect(ok).To(BeTrue(), "server answer vs hand-written rows: %s\ngot:\n%swant:\n%s", why, casefile.FormatRows(resp.Rows), casefile.FormatRows(want))
	direct := sqlRows(checkSQL, schema)
	ok, why = casefile.Match(direct, resp.Rows, false, 1e-9)
	g.Expect(ok).To(BeTrue(), "server answer vs SQL on PostgreSQL: %s\ngot:\n%ssql:\n%s", why, casefile.FormatRows(resp.Rows), casefile.FormatRows(direct))
	return resp.ModelVersion
}

// ---- the semantic server ----

// problem is the RFC 9457 document of a failed request.
type problem struct {
	Status int    `json:"status"`
	Code   string `json:"code"`
	Detail string `json:"detail"`
}

// queryServer POSTs q to /v1/models/{model}/query, or, for a model
// written namespace/name, to /v1/namespaces/{namespace}/models/{name}/query
// (a name that two namespaces publish is only served that way).
func queryServer(model, q string) (int, server.Response, problem) {
	GinkgoHelper()
	var resp server.Response
	var prob problem
	ctx, cancel := context.WithTimeout(suiteCtx, 20*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ossieURL+modelPath(model)+"/query", strings.NewReader(q))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	Expect(err).NotTo(HaveOccurred())
	if res.StatusCode == http.StatusOK {
		Expect(json.Unmarshal(body, &resp)).To(Succeed(), string(body))
	} else {
		Expect(json.Unmarshal(body, &prob)).To(Succeed(), string(body))
	}
	return res.StatusCode, resp, prob
}

// servedVersion is the version of model the server answers with, or ""
// with the problem code when it does not answer.
func servedVersion(model string) (string, string) {
	GinkgoHelper()
	status, resp, prob := queryServer(model, totalsQuery)
	if status != http.StatusOK {
		return "", prob.Code
	}
	return resp.ModelVersion, ""
}

// ---- Kubernetes objects ----

func getModel(g Gomega, ns, name string) *v1alpha1.SemanticModel {
	sm := &v1alpha1.SemanticModel{}
	g.Expect(k8s.Get(suiteCtx, client.ObjectKey{Namespace: ns, Name: name}, sm)).To(Succeed())
	return sm
}

// getConfigMap returns the ConfigMap name in ns, or nil when there is none.
func getConfigMap(g Gomega, ns, name string) *corev1.ConfigMap {
	cm := &corev1.ConfigMap{}
	err := k8s.Get(suiteCtx, client.ObjectKey{Namespace: ns, Name: name}, cm)
	if apierrors.IsNotFound(err) {
		return nil
	}
	g.Expect(err).NotTo(HaveOccurred())
	return cm
}

// cond is an expected condition.
type cond struct {
	status metav1.ConditionStatus
	reason string
}

// The conditions of a model whose current spec is published and bound.
var readyConditions = map[string]cond{
	v1alpha1.ConditionValidated:     {metav1.ConditionTrue, v1alpha1.ReasonValid},
	v1alpha1.ConditionCompiled:      {metav1.ConditionTrue, v1alpha1.ReasonCompiled},
	v1alpha1.ConditionDriftDetected: {metav1.ConditionFalse, v1alpha1.ReasonNoDrift},
	v1alpha1.ConditionPublished:     {metav1.ConditionTrue, v1alpha1.ReasonPublished},
	v1alpha1.ConditionViewsReady:    {metav1.ConditionTrue, v1alpha1.ReasonNoViews},
	v1alpha1.ConditionReady:         {metav1.ConditionTrue, v1alpha1.ReasonReady},
}

// expectConditions checks that sm's status describes its current
// generation and that each condition in want has its status and reason
// for that generation. It returns the conditions by type.
func expectConditions(g Gomega, sm *v1alpha1.SemanticModel, want map[string]cond) map[string]metav1.Condition {
	g.Expect(sm.Status.ObservedGeneration).To(Equal(sm.Generation), "status.observedGeneration")
	out := map[string]metav1.Condition{}
	for typ, w := range want {
		c := meta.FindStatusCondition(sm.Status.Conditions, typ)
		g.Expect(c).NotTo(BeNil(), "condition %s missing; have %v", typ, sm.Status.Conditions)
		g.Expect(c.ObservedGeneration).To(Equal(sm.Generation), "%s.observedGeneration", typ)
		g.Expect(c.Status).To(Equal(w.status), "%s status (reason %s: %s)", typ, c.Reason, c.Message)
		g.Expect(c.Reason).To(Equal(w.reason), "%s reason (%s)", typ, c.Message)
		out[typ] = *c
	}
	return out
}

// with returns base with the conditions in changes replaced.
func with(base map[string]cond, changes map[string]cond) map[string]cond {
	out := map[string]cond{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range changes {
		out[k] = v
	}
	return out
}

// eventuallyModel polls model ns/name until check passes and returns it.
func eventuallyModel(ns, name string, check func(Gomega, *v1alpha1.SemanticModel)) *v1alpha1.SemanticModel {
	GinkgoHelper()
	var sm *v1alpha1.SemanticModel
	Eventually(func(g Gomega) {
		sm = getModel(g, ns, name)
		check(g, sm)
	}).Should(Succeed())
	return sm
}

// waitReady waits until ns/name is Ready for its current generation with
// every condition good, and returns it.
func waitReady(ns, name string) *v1alpha1.SemanticModel {
	GinkgoHelper()
	return eventuallyModel(ns, name, func(g Gomega, sm *v1alpha1.SemanticModel) {
		expectConditions(g, sm, readyConditions)
		g.Expect(sm.Status.PublishedVersion).To(Equal(sm.Status.AttemptedVersion))
		// kstatus "Current": neither abnormal-true condition is present.
		for _, typ := range []string{v1alpha1.ConditionReconciling, v1alpha1.ConditionStalled} {
			g.Expect(meta.FindStatusCondition(sm.Status.Conditions, typ)).To(BeNil(), "%s on a Ready model", typ)
		}
	})
}

// expectPublishedConfigMap checks the ConfigMap contract of issue 3 for
// sm's published version, spelled out here rather than through the
// operator's helpers: name, the four labels, the version annotation, the
// controller ownerReference to this very SemanticModel (UID included) and
// the bundle, which must decode to that version and the given models.
func expectPublishedConfigMap(g Gomega, sm *v1alpha1.SemanticModel, models ...string) *corev1.ConfigMap {
	version := sm.Status.PublishedVersion
	g.Expect(version).To(MatchRegexp(`^sha256:[0-9a-f]{64}$`), "publishedVersion")
	cm := getConfigMap(g, sm.Namespace, "ossie-"+sm.Name)
	g.Expect(cm).NotTo(BeNil(), "ConfigMap ossie-%s", sm.Name)
	g.Expect(cm.Labels).To(Equal(map[string]string{
		"app.kubernetes.io/managed-by": "ossie-operator",
		"ossie.dev/artifact":           "true",
		"ossie.dev/model":              sm.Name,
		"ossie.dev/version":            "sha256-" + strings.TrimPrefix(version, "sha256:")[:32],
	}), "labels")
	g.Expect(cm.Annotations).To(HaveKeyWithValue("ossie.dev/version", version))
	expectOwnedBy(g, cm, sm)
	g.Expect(cm.Data).To(BeEmpty())
	g.Expect(cm.BinaryData).To(HaveLen(1))
	b, err := compiler.DecodeBundle(cm.BinaryData["artifact.json.gz"], 0)
	g.Expect(err).NotTo(HaveOccurred(), "binaryData[artifact.json.gz]")
	g.Expect(b.Format).To(Equal(compiler.ArtifactFormat))
	g.Expect(b.Version).To(Equal(version))
	var names []string
	for _, a := range b.Artifacts {
		names = append(names, a.Name)
	}
	g.Expect(names).To(Equal(models))
	return cm
}

// expectOwnedBy checks that cm has exactly one ownerReference: the
// controller reference to sm, which the garbage collector follows.
func expectOwnedBy(g Gomega, cm *corev1.ConfigMap, sm *v1alpha1.SemanticModel) {
	g.Expect(cm.OwnerReferences).To(HaveLen(1), "ownerReferences")
	ref := cm.OwnerReferences[0]
	g.Expect(ref.APIVersion).To(Equal("ossie.dev/v1alpha1"))
	g.Expect(ref.Kind).To(Equal("SemanticModel"))
	g.Expect(ref.Name).To(Equal(sm.Name))
	g.Expect(ref.UID).To(Equal(sm.UID), "ownerReference UID")
	g.Expect(ref.Controller).To(HaveValue(BeTrue()), "controller")
	g.Expect(ref.BlockOwnerDeletion).To(HaveValue(BeTrue()), "blockOwnerDeletion")
}

// waitPasses waits until the operator has run at least n more reconcile
// passes over ns/name than it had at from.
func waitPasses(op *operatorInstance, ns, name string, from, n int) {
	GinkgoHelper()
	Eventually(func() int { return op.api.passesOf(ns, name) }).Should(BeNumerically(">=", from+n),
		"%d reconcile passes of %s/%s (resync every %s)", n, ns, name, testResync)
}

// eventsAbout lists the reasons of the events whose regarding object is
// the SemanticModel ns/name.
func eventsAbout(ns, name string) []string {
	GinkgoHelper()
	list, err := clientset.EventsV1().Events(ns).List(suiteCtx, metav1.ListOptions{})
	Expect(err).NotTo(HaveOccurred())
	var out []string
	for _, e := range list.Items {
		if e.Regarding.Kind == "SemanticModel" && e.Regarding.Name == name {
			out = append(out, e.Reason)
		}
	}
	return out
}

// ---- kubectl ----

// kubectl runs the kubectl binary against the test API server and returns
// its standard output.
func kubectl(args ...string) string {
	GinkgoHelper()
	ctx, cancel := context.WithTimeout(suiteCtx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, kubectlPath, append([]string{"--kubeconfig", kubeconfigPath}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	Expect(cmd.Run()).To(Succeed(), "kubectl %s: %s", strings.Join(args, " "), stderr.String())
	return stdout.String()
}

func clientKey(ns, name string) client.ObjectKey { return client.ObjectKey{Namespace: ns, Name: name} }

// settle waits until op's cache holds the current ns/name (the operator's
// own last status write included) and a later pass has started, which
// means every earlier pass over it has finished: what follows sees only
// passes over an up-to-date model. (A pass that starts from a cache older
// than the operator's own last write tries a status update, gets a
// conflict and retries; that is expected, and not the no-op case.)
func settle(op *operatorInstance, ns, name string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		current := getModel(g, ns, name)
		cached := &v1alpha1.SemanticModel{}
		g.Expect(op.mgr.GetCache().Get(suiteCtx, clientKey(ns, name), cached)).To(Succeed())
		g.Expect(cached.ResourceVersion).To(Equal(current.ResourceVersion))
	}).Should(Succeed())
	waitPasses(op, ns, name, op.api.passesOf(ns, name), 1)
}

// modelPath is the API path of model, "name" or "namespace/name".
func modelPath(model string) string {
	if ns, name, ok := strings.Cut(model, "/"); ok {
		return "/v1/namespaces/" + ns + "/models/" + name
	}
	return "/v1/models/" + model
}
