package e2e_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/engine/postgres"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/auth"
	"github.com/ossie-dev/ossie/test/cases/casefile"
)

// Issue 5, the BI path: a model with two governed views under two roles.
// A BI tool connects to PostgreSQL as a plain login role that may use the
// view schema and read its views, nothing else, and reads certified
// numbers: each view holds exactly what the semantic server answers for
// the same query under the same role, the restricted role's view only its
// rows and its masked values. Renaming a view drops the old one; deleting
// the model drops both.
var _ = Describe("governed views read by a BI user", Ordered, func() {
	const (
		ns         = "e2e-views"
		model      = "shop_views"
		schema     = "s_views"
		viewSchema = "bi_views"
		biUser     = "bi_reader"
		biPassword = "bi-reader-pw"
	)
	var op *operatorInstance

	// The two views and the server query each stands for.
	finance := v1alpha1.View{
		Name: "revenue_by_region", Role: "finance",
		Metrics:    []string{"orders_total", "order_count", "units"},
		Dimensions: []v1alpha1.ViewDimension{{Field: "orders.region"}},
	}
	financeQuery := `{"metrics": ["orders_total", "order_count", "units"], "dimensions": ["orders.region"]}`
	partner := v1alpha1.View{
		Name: "na_daily", Role: "na_partner",
		Metrics:    []string{"orders_total", "units"},
		Dimensions: []v1alpha1.ViewDimension{{Field: "orders.region"}, {Field: "orders.order_date", Grain: "day"}},
		Filters:    []v1alpha1.ViewFilter{{Field: "orders.amount", Op: "gt", Values: []apiextensionsv1.JSON{{Raw: []byte("10")}}}},
	}
	partnerQuery := `{"metrics": ["orders_total", "units"], "dimensions": ["orders.region", {"field": "orders.order_date", "grain": "day"}],
	                  "filters": [{"field": "orders.amount", "op": "gt", "values": [10]}]}`

	governance := &ossie.Governance{Roles: []ossie.Role{
		{Name: "finance"},
		{
			Name:       "na_partner",
			RowFilters: []ossie.RowFilter{{Dataset: "orders", Expression: "region = 'NA'"}},
			Masks:      []ossie.Mask{{Field: "orders.region", Mask: "partial", KeepFirst: 1}},
		},
	}}

	// biConn connects as the BI user.
	biConn := func() *pgx.Conn {
		GinkgoHelper()
		cfg, err := pgx.ParseConfig(pgDSN)
		Expect(err).NotTo(HaveOccurred())
		cfg.User, cfg.Password = biUser, biPassword
		ctx, cancel := context.WithTimeout(suiteCtx, 10*time.Second)
		defer cancel()
		conn, err := pgx.ConnectConfig(ctx, cfg)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { _ = conn.Close(context.Background()) })
		return conn
	}
	// biPeeker connects as the BI user and collects the values its
	// temporary function reports by notice ("peek <value>").
	biPeeker := func() *peekConn {
		GinkgoHelper()
		cfg, err := pgx.ParseConfig(pgDSN)
		Expect(err).NotTo(HaveOccurred())
		cfg.User, cfg.Password = biUser, biPassword
		p := &peekConn{seen: map[string]bool{}}
		cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
			if v, ok := strings.CutPrefix(n.Message, "peek "); ok {
				p.mu.Lock()
				p.seen[v] = true
				p.mu.Unlock()
			}
		}
		ctx, cancel := context.WithTimeout(suiteCtx, 10*time.Second)
		defer cancel()
		p.conn, err = pgx.ConnectConfig(ctx, cfg)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { _ = p.conn.Close(context.Background()) })
		return p
	}
	// biRead reads a whole view as the BI user, ordered by its first
	// columns.
	biRead := func(conn *pgx.Conn, view string, orderBy string) ([][]any, error) {
		ctx, cancel := context.WithTimeout(suiteCtx, 10*time.Second)
		defer cancel()
		rows, err := conn.Query(ctx, fmt.Sprintf("SELECT * FROM %s ORDER BY %s", pgx.Identifier{viewSchema, view}.Sanitize(), orderBy))
		if err != nil {
			return nil, err
		}
		return pgx.CollectRows(rows, func(r pgx.CollectableRow) ([]any, error) {
			vals, err := r.Values()
			for i, v := range vals {
				if n, ok := v.(pgtype.Numeric); ok { // NUMERIC, as a BI tool would show it
					f, ferr := n.Float64Value()
					vals[i], err = f.Float64, errors.Join(err, ferr)
				}
			}
			return vals, err
		})
	}
	// answer is the semantic server's answer to q under role, for the
	// version the operator published.
	answer := func(sm *v1alpha1.SemanticModel, role, q string) [][]any {
		GinkgoHelper()
		cm := getConfigMap(Default, ns, "ossie-"+sm.Name)
		Expect(cm).NotTo(BeNil())
		b, err := compiler.DecodeBundle(cm.BinaryData[v1alpha1.ArtifactKey], 0)
		Expect(err).NotTo(HaveOccurred())
		eng, err := postgres.Open(suiteCtx, postgres.Config{DSN: pgDSN})
		Expect(err).NotTo(HaveOccurred())
		defer eng.Close()
		srv, err := server.New(server.Config{Engine: eng, Models: b.Artifacts, QueryTimeout: 10 * time.Second})
		Expect(err).NotTo(HaveOccurred())
		query, probs := plan.ParseQuery([]byte(q))
		Expect(probs).To(BeEmpty())
		ctx := auth.WithIdentity(suiteCtx, &auth.Identity{Name: "bi-check", Roles: []string{role}, Method: auth.MethodToken})
		resp, err := srv.Answer(ctx, model, query)
		Expect(err).NotTo(HaveOccurred())
		return resp.Rows
	}
	expectRows := func(what string, got, want [][]any) {
		GinkgoHelper()
		ok, why := casefile.Match(want, got, false, 1e-9)
		Expect(ok).To(BeTrue(), "%s: %s\ngot:\n%swant:\n%s", what, why, casefile.FormatRows(got), casefile.FormatRows(want))
	}
	viewsInSchema := func() []string {
		GinkgoHelper()
		ctx, cancel := context.WithTimeout(suiteCtx, 10*time.Second)
		defer cancel()
		rows, err := sqlDB.Query(ctx, `SELECT c.relname::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = $1 AND c.relkind = 'v' ORDER BY 1`, viewSchema)
		Expect(err).NotTo(HaveOccurred())
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		Expect(err).NotTo(HaveOccurred())
		return names
	}
	viewsReady := with(readyConditions, map[string]cond{v1alpha1.ConditionViewsReady: {metav1.ConditionTrue, v1alpha1.ReasonViewsApplied}})

	BeforeAll(func() {
		Expect(k8s.Create(suiteCtx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
		createShopTables(schema)
		// One login that may use the view schema and read every view the
		// operator creates there (default privileges), and nothing else:
		// the test compares both roles' views through it. In production
		// each role gets its own login granted its own views only
		// (docs/operator.md, "BI access"): one login holding every role's
		// views holds the union of their access.
		execSQL(fmt.Sprintf(`CREATE ROLE %[1]s LOGIN PASSWORD '%[2]s';
CREATE SCHEMA %[3]s;
GRANT USAGE ON SCHEMA %[3]s TO %[1]s;
ALTER DEFAULT PRIVILEGES IN SCHEMA %[3]s GRANT SELECT ON TABLES TO %[1]s;`, biUser, biPassword, viewSchema))
		opts := testOptions()
		opts.ViewSchema = viewSchema
		op = startOperator(operatorConfig{name: "views", namespaces: []string{ns}, opts: opts, resync: testResync})
		DeferCleanup(op.stop)
	})

	It("gives the BI user each role's certified numbers, filtered and masked", func() {
		sm := newShop(ns, model, schema).object()
		sm.Spec.Governance = governance
		sm.Spec.Views = []v1alpha1.View{finance, partner}
		Expect(k8s.Create(suiteCtx, sm)).To(Succeed())
		sm = eventuallyModel(ns, "shop", func(g Gomega, sm *v1alpha1.SemanticModel) {
			expectConditions(g, sm, viewsReady)
		})
		Expect(sm.Status.Views).To(HaveLen(2))
		Expect(sm.Status.Views[0]).To(Equal(v1alpha1.ViewStatus{Name: "revenue_by_region", Relation: `"bi_views"."revenue_by_region"`, Role: "finance",
			Columns: []string{"orders.region", "orders_total", "order_count", "units"}}))
		Expect(sm.Status.Views[1].Columns).To(Equal([]string{"orders.region", "orders.order_date.day", "orders_total", "units"}))
		Expect(sm.Finalizers).To(ContainElement(v1alpha1.FinalizerViews))
		Expect(sm.Annotations).To(HaveKeyWithValue(v1alpha1.AnnotationViews,
			`[{"schema":"bi_views","name":"na_daily"},{"schema":"bi_views","name":"revenue_by_region"}]`))

		conn := biConn()
		fin, err := biRead(conn, "revenue_by_region", "1")
		Expect(err).NotTo(HaveOccurred())
		// The numbers of the server for the same query and role, and the
		// hand-written ones (the rows of createShopTables).
		expectRows("finance view vs server", fin, answer(sm, "finance", financeQuery))
		expectRows("finance view vs hand-written", fin, byRegionRows)

		na, err := biRead(conn, "na_daily", "2")
		Expect(err).NotTo(HaveOccurred())
		expectRows("partner view vs server", na, answer(sm, "na_partner", partnerQuery))
		// Only NA rows (row filter), region masked to its first letter.
		expectRows("partner view vs hand-written", na, [][]any{
			{"N****", "2017-12-01", 50.36, 3},
			{"N****", "2017-12-02", 50.36, 1},
		})

		// The views are security barriers (issue 13): the BI user's own
		// function, cheap enough to run before the row filter, sees only
		// the partner's masked NA rows, never another region.
		ctx, cancel := context.WithTimeout(suiteCtx, 10*time.Second)
		defer cancel()
		var barriers int
		Expect(sqlDB.QueryRow(ctx, `SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = $1 AND c.relkind = 'v' AND 'security_barrier=true' = ANY(c.reloptions)`, viewSchema).Scan(&barriers)).To(Succeed())
		Expect(barriers).To(Equal(2), "both views are security barriers")
		peeker := biPeeker()
		_, err = peeker.conn.Exec(ctx, `CREATE FUNCTION pg_temp.peek(text) RETURNS boolean LANGUAGE plpgsql COST 0.0000001
AS $$ BEGIN RAISE NOTICE 'peek %', $1; RETURN true; END $$`)
		Expect(err).NotTo(HaveOccurred())
		_, err = peeker.conn.Exec(ctx, fmt.Sprintf("SELECT * FROM %s WHERE pg_temp.peek(\"orders.region\"::text)", pgx.Identifier{viewSchema, "na_daily"}.Sanitize()))
		Expect(err).NotTo(HaveOccurred())
		Expect(peeker.values()).To(ConsistOf("N****"), "the reader's function saw values past the row filter")

		// The BI user reads views, not tables.
		_, err = conn.Exec(ctx, fmt.Sprintf("SELECT * FROM %s.orders", schema))
		var pe *pgconn.PgError
		Expect(errors.As(err, &pe)).To(BeTrue(), "reading a table as the BI user: %v", err)
		Expect(pe.Code).To(Equal("42501"), "insufficient_privilege")

		// No write of any kind while nothing changes.
		settle(op, ns, "shop")
		before := len(op.api.writesIn(ns))
		_, stmtsBefore := op.eng.calls(schema)
		waitPasses(op, ns, "shop", op.api.passesOf(ns, "shop"), 2)
		Expect(op.api.writesIn(ns)).To(HaveLen(before), "API writes for an unchanged model")
		_, stmtsAfter := op.eng.calls(schema)
		Expect(stmtsAfter).To(Equal(stmtsBefore), "statements (view DDL) for an unchanged model")
	})

	It("drops the old view when a view is renamed", func() {
		Eventually(func(g Gomega) {
			sm := getModel(g, ns, "shop")
			sm.Spec.Views[1].Name = "na_daily_v2"
			g.Expect(k8s.Update(suiteCtx, sm)).To(Succeed())
		}).Should(Succeed())
		sm := eventuallyModel(ns, "shop", func(g Gomega, sm *v1alpha1.SemanticModel) {
			expectConditions(g, sm, viewsReady)
			g.Expect(sm.Status.Views).To(HaveLen(2))
			g.Expect(sm.Status.Views[1].Name).To(Equal("na_daily_v2"))
		})
		Expect(viewsInSchema()).To(Equal([]string{"na_daily_v2", "revenue_by_region"}))
		Expect(sm.Annotations[v1alpha1.AnnotationViews]).NotTo(ContainSubstring(`"na_daily"`))
		conn := biConn()
		na, err := biRead(conn, "na_daily_v2", "2")
		Expect(err).NotTo(HaveOccurred())
		expectRows("renamed partner view vs server", na, answer(sm, "na_partner", partnerQuery))
		_, err = biRead(conn, "na_daily", "2")
		var pe *pgconn.PgError
		Expect(errors.As(err, &pe)).To(BeTrue())
		Expect(pe.Code).To(Equal("42P01"), "the old view is gone (undefined_table)")
	})

	It("drops both views when the model is deleted", func() {
		Expect(k8s.Delete(suiteCtx, getModel(Default, ns, "shop"))).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(k8s.Get(suiteCtx, clientKey(ns, "shop"), &v1alpha1.SemanticModel{}))
		}).Should(BeTrue(), "the finalizer lets the model go once its views are dropped")
		Expect(viewsInSchema()).To(BeEmpty())
		_, err := biRead(biConn(), "revenue_by_region", "1")
		Expect(err).To(HaveOccurred())
	})
})

// peekConn is a BI connection with the values its notices reported.
type peekConn struct {
	conn *pgx.Conn
	mu   sync.Mutex
	seen map[string]bool
}

func (p *peekConn) values() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]string, 0, len(p.seen))
	for v := range p.seen {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}
