package plan_test

import (
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/plan"
)

// stringConstants parses sql with the PostgreSQL parser and returns every
// string constant in it; the SQL must be exactly one SELECT statement.
func stringConstants(t *testing.T, sql string) []string {
	t.Helper()
	tree, err := pg_query.ParseToJSON(sql)
	if err != nil {
		t.Fatalf("generated SQL does not parse: %v\n%s", err, sql)
	}
	var doc struct {
		Stmts []struct {
			Stmt map[string]json.RawMessage `json:"stmt"`
		} `json:"stmts"`
	}
	if err := json.Unmarshal([]byte(tree), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Stmts) != 1 || doc.Stmts[0].Stmt["SelectStmt"] == nil {
		t.Fatalf("generated SQL is not one SELECT statement:\n%s", sql)
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if s, ok := v["sval"].(map[string]any); ok {
				if str, ok := s["sval"].(string); ok {
					out = append(out, str)
				}
			}
			for _, c := range v {
				walk(c)
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	var root any
	_ = json.Unmarshal([]byte(tree), &root)
	walk(root)
	return out
}

// FuzzGovernedPlan plans queries under every role with fuzzed caller
// attributes, filter values and member names: nothing panics, and every
// planned statement (DuckDB and PostgreSQL spelling) parses back as one
// SELECT in which the attribute and the filter value are each one whole
// string constant, i.e. no value ever became SQL text. Seeds also run on
// DuckDB, which must leave the tables in place.
func FuzzGovernedPlan(f *testing.F) {
	for _, s := range [][4]string{
		{"NA", "NA", "customers.Customer Name", "0"},
		{"EU'; DROP TABLE shop.orders; --", "x' OR '1'='1", "orders.status", "1"},
		{`\'); SELECT 1; --`, `'' OR 1=1`, `customers."Customer Name"`, "4"},
		{"\x00NA\x00", "é\u2028'\"`$$", "order_lines.product", "01"},
		{"{{ caller.region }}", "%_*", "refunds.amount", "5"},
		{"$1", "?", "customers.region; DROP TABLE x", "06"},
	} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	p := loadGovernedShop(f)
	db := openShopFor(f)
	roles := []string{"regional", "auditor", "ops", "refunds_clerk", "na_team", "emea_team", "nobody"}
	f.Fuzz(func(t *testing.T, attr, value, member, pick string) {
		c := &plan.Caller{Attributes: map[string]string{"region": attr}}
		for i, r := range roles {
			if strings.ContainsRune(pick, rune('0'+i)) {
				c.Roles = append(c.Roles, r)
			}
		}
		if len(c.Roles) == 0 {
			c.Roles = []string{"regional"}
		}
		v := p.Visible(c)
		// A filter value holding NUL is refused (OSS4005); an attribute
		// holding one counts as missing, so the attribute still reaches the
		// row filters below without sinking the whole query.
		inVals := []any{value}
		if !strings.ContainsRune(attr, 0) {
			inVals = append(inVals, attr)
		}
		q := &plan.Query{
			Metrics:    untyped(p, v.Metrics),
			Dimensions: []plan.Dimension{{Field: member}},
			Filters: []plan.Filter{
				{Field: "customers.region", Op: "in", Values: inVals},
				{Field: "customers.Customer Name", Op: "contains", Values: []any{value}},
			},
		}
		if len(q.Metrics) == 0 {
			q.Metrics = []string{member}
		}
		for _, d := range []dialect.Dialect{dialect.DuckDB, dialect.Postgres} {
			pl, probs := p.PlanFor(q, d, c)
			if pl == nil {
				if !probs.HasErrors() {
					t.Fatal("no plan and no problem")
				}
				if db != nil && !strings.Contains(member, ";") && utf8.ValidString(value+attr) && !strings.ContainsRune(value, 0) {
					t.Fatalf("seed does not plan: %v", probs)
				}
				continue
			}
			consts := stringConstants(t, pl.SQL)
			if !slices.Contains(consts, value) {
				t.Fatalf("filter value %q is not one string constant of:\n%s", value, pl.SQL)
			}
			usesRegion := slices.Contains(c.Roles, "regional") && !slices.ContainsFunc(c.Roles, func(r string) bool {
				return r == "auditor" || r == "ops" || r == "refunds_clerk"
			})
			// An attribute that SQL cannot carry unchanged counts as missing.
			bindable := utf8.ValidString(attr) && !strings.ContainsRune(attr, 0)
			if usesRegion && bindable && !slices.Contains(consts, attr) {
				t.Fatalf("caller attribute %q is not one string constant of:\n%s", attr, pl.SQL)
			}
			if d == dialect.DuckDB && db != nil {
				rows, err := db.Query(pl.SQL)
				if err != nil {
					t.Fatalf("%v\n%s", err, pl.SQL)
				}
				rows.Close()
			}
		}
		if db != nil {
			var n int
			if err := db.QueryRow(`SELECT COUNT(*) FROM shop.orders`).Scan(&n); err != nil || n != 6 {
				t.Fatalf("shop.orders after the query: %d %v", n, err)
			}
		}
	})
}

// openShopFor opens the shop tables for a fuzz target's seed run (nil while
// fuzzing proper, where executing every input would be too slow).
func openShopFor(f *testing.F) *sql.DB {
	if fuzzing() {
		return nil
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	ddl, err := os.ReadFile("testdata/shop.sql")
	if err != nil {
		f.Fatal(err)
	}
	if _, err := db.Exec(string(ddl)); err != nil {
		f.Fatal(err)
	}
	return db
}

// fuzzing reports whether the test binary runs with -test.fuzz.
func fuzzing() bool {
	fl := flag.Lookup("test.fuzz")
	return fl != nil && fl.Value.String() != ""
}

// governedCaller is a caller with the rows it may see written by hand: the
// statements delete from a full copy of the shop tables every row the
// caller's roles must hide (docs/governance.md: filters per dataset, roles
// ORed).
type governedCaller struct {
	name   string
	caller *plan.Caller
	hide   []string
}

var governedCallers = []governedCaller{
	{"regional NA", &plan.Caller{Roles: []string{"regional"}, Attributes: map[string]string{"region": "NA"}}, []string{
		`DELETE FROM shop.customers WHERE region IS DISTINCT FROM 'NA'`,
		`DELETE FROM shop.refunds WHERE NOT COALESCE(amount < 10, FALSE)`}},
	{"regional EMEA", &plan.Caller{Roles: []string{"regional"}, Attributes: map[string]string{"region": "EMEA"}}, []string{
		`DELETE FROM shop.customers WHERE region IS DISTINCT FROM 'EMEA'`,
		`DELETE FROM shop.refunds WHERE NOT COALESCE(amount < 10, FALSE)`}},
	{"regional without attribute", &plan.Caller{Roles: []string{"regional"}}, []string{
		`DELETE FROM shop.customers`,
		`DELETE FROM shop.refunds WHERE NOT COALESCE(amount < 10, FALSE)`}},
	{"regional with a hostile attribute", &plan.Caller{Roles: []string{"regional"}, Attributes: map[string]string{"region": "NA' OR '1'='1"}}, []string{
		`DELETE FROM shop.customers`,
		`DELETE FROM shop.refunds WHERE NOT COALESCE(amount < 10, FALSE)`}},
	{"ops", &plan.Caller{Roles: []string{"ops"}}, []string{
		`DELETE FROM shop.orders WHERE NOT COALESCE(status <> 'cancelled', FALSE)`}},
	{"na_team and emea_team", &plan.Caller{Roles: []string{"na_team", "emea_team"}}, []string{
		`DELETE FROM shop.customers WHERE NOT COALESCE(region IN ('NA', 'EMEA'), FALSE)`}},
	{"na_sales", &plan.Caller{Roles: []string{"na_sales"}}, []string{
		`DELETE FROM shop.orders WHERE customer_id IS NULL OR customer_id NOT IN (SELECT customer_id FROM shop.customers WHERE region = 'NA')`,
		`DELETE FROM shop.order_lines WHERE order_id IS NULL OR order_id NOT IN (SELECT order_id FROM shop.orders)`}},
	{"ops and regional (union)", &plan.Caller{Roles: []string{"ops", "regional"}, Attributes: map[string]string{"region": "NA"}}, nil},
	{"auditor", &plan.Caller{Roles: []string{"auditor"}}, nil},
	{"refunds_clerk", &plan.Caller{Roles: []string{"refunds_clerk"}}, nil},
}

// TestGovernedRowsAreVisibleRows is the property test of issue 5 on
// DuckDB: for random queries built from what a caller may read, the
// governed answer on the full tables equals the ungoverned answer on
// tables holding only the rows the caller may see (so every returned row
// comes from visible rows only), masked columns never carry a raw value,
// and queries naming members the caller may not read are refused.
func TestGovernedRowsAreVisibleRows(t *testing.T) {
	gov, plain := loadGovernedShop(t), loadShop(t)
	full := openShop(t)
	samples := fieldSamples(t, full, plain)
	hash := regexp.MustCompile(`^[0-9a-f]{32}$`)
	for _, gc := range governedCallers {
		t.Run(gc.name, func(t *testing.T) {
			visible := openShop(t)
			for _, s := range gc.hide {
				if _, err := visible.Exec(s); err != nil {
					t.Fatal(err)
				}
			}
			v := gov.Visible(gc.caller)
			if len(v.Metrics) == 0 {
				t.Fatal("caller reads no metric")
			}
			var plainFields []string
			for _, f := range v.Fields {
				if v.Masked[f] == "" {
					plainFields = append(plainFields, f)
				}
			}
			rng := rand.New(rand.NewPCG(1, uint64(len(gc.name))))
			checked, rows := 0, 0
			// 200 draws: queries of a typed metric without a time grain are
			// refused both ways (OSS4060) and not compared.
			for i := 0; i < 200; i++ {
				q := randomQuery(rng, v.Metrics, plainFields, samples)
				gp, probs := gov.PlanFor(q, dialect.DuckDB, gc.caller)
				if probs.HasErrors() {
					// Only query shapes the planner refuses ungoverned too
					// (fan-out without key, unreachable) may fail.
					if _, pp := plain.Plan(q, dialect.DuckDB); !pp.HasErrors() {
						t.Fatalf("governed query refused but fine ungoverned: %v\n%+v", probs, q)
					}
					continue
				}
				pp, probs := plain.Plan(q, dialect.DuckDB)
				if probs.HasErrors() {
					t.Fatal(probs)
				}
				got, want := queryRows(t, full, gp.SQL), queryRows(t, visible, pp.SQL)
				sortRows(got)
				sortRows(want)
				if diff := compareRows(got, want); diff != "" {
					t.Fatalf("%s\nquery: %+v\ngoverned: %s\n got: %v\nwant: %v", diff, q, gp.SQL, got, want)
				}
				checked++
				rows += len(got)
			}
			if checked < 60 || rows == 0 {
				t.Fatalf("only %d queries (%d rows) compared", checked, rows)
			}
			// Masked fields as dimensions: never a raw value.
			for f, kind := range v.Masked {
				q := &plan.Query{Metrics: v.Metrics[:1], Dimensions: []plan.Dimension{{Field: f}}}
				gp, probs := gov.PlanFor(q, dialect.DuckDB, gc.caller)
				if probs.HasErrors() {
					continue // not reachable from that metric
				}
				for _, r := range queryRows(t, full, gp.SQL) {
					s, _ := r[0].(string)
					ok := r[0] == nil && kind != "literal"
					switch kind {
					case "hash":
						ok = ok || hash.MatchString(s)
					case "literal":
						ok = s == "(hidden)"
					case "partial":
						ok = ok || strings.HasSuffix(s, "****") && len(s) <= 5
					}
					if !ok || slices.Contains(samples[f], r[0]) && r[0] != nil {
						t.Errorf("masked %s (%s) shows %v", f, kind, r[0])
					}
				}
			}
			// Every member the caller may not read is refused, alone or mixed
			// into an otherwise readable query.
			hm, hf := hiddenFrom(gov, gc.caller)
			for _, m := range hm {
				if _, probs := gov.PlanFor(&plan.Query{Metrics: []string{v.Metrics[0], m}}, dialect.DuckDB, gc.caller); !probs.HasErrors() {
					t.Errorf("hidden metric %s planned", m)
				}
			}
			for _, f := range hf {
				for _, q := range []*plan.Query{
					{Metrics: v.Metrics[:1], Dimensions: []plan.Dimension{{Field: f}}},
					{Metrics: v.Metrics[:1], Filters: []plan.Filter{{Field: f, Op: "is_not_null"}}},
				} {
					if _, probs := gov.PlanFor(q, dialect.DuckDB, gc.caller); !probs.HasErrors() {
						t.Errorf("hidden field %s planned: %+v", f, q)
					}
				}
			}
		})
	}
}

// fieldSamples lists the distinct values of every field on the full data.
func fieldSamples(t *testing.T, db *sql.DB, p *plan.Planner) map[string][]any {
	out := map[string][]any{}
	for _, ds := range p.Artifact().Datasets {
		for _, f := range ds.Fields {
			key := ds.Name + "." + f.Name
			rows := queryRows(t, db, fmt.Sprintf(`SELECT DISTINCT %s FROM %s`, f.SQL, strings.Join(ds.Source.Table, ".")))
			for _, r := range rows {
				out[key] = append(out[key], r[0])
			}
		}
	}
	return out
}

// randomQuery builds a query from the given metrics and fields: one or two
// metrics, up to two dimensions, up to two dimension filters with values
// seen in the data (or absent from it), sometimes a metric filter.
func randomQuery(rng *rand.Rand, metrics, fields []string, samples map[string][]any) *plan.Query {
	q := &plan.Query{}
	for _, i := range rng.Perm(len(metrics))[:1+rng.IntN(min(2, len(metrics)))] {
		q.Metrics = append(q.Metrics, metrics[i])
	}
	if len(fields) == 0 {
		return q
	}
	for _, i := range rng.Perm(len(fields))[:rng.IntN(min(3, len(fields)+1))] {
		d := plan.Dimension{Field: fields[i]}
		if strings.HasSuffix(d.Field, "ordered_at") || strings.HasSuffix(d.Field, "refunded_on") {
			d.Grain = []string{"day", "month", "year"}[rng.IntN(3)]
		}
		q.Dimensions = append(q.Dimensions, d)
	}
	for n := rng.IntN(3); n > 0; n-- {
		f := fields[rng.IntN(len(fields))]
		vals := samples[f]
		var v any = "absent value"
		if slices.ContainsFunc(vals, func(x any) bool { _, num := x.(float64); return num }) {
			v = -12345.0
		}
		if len(vals) > 0 && rng.IntN(4) > 0 {
			v = vals[rng.IntN(len(vals))]
		}
		switch {
		case v == nil:
			q.Filters = append(q.Filters, plan.Filter{Field: f, Op: "is_null"})
		case strings.HasSuffix(f, "ordered_at") || strings.HasSuffix(f, "refunded_on"):
			q.Filters = append(q.Filters, plan.Filter{Field: f, Op: "in_date_range", Values: []any{"2024-03-31", "2024-04-30"}})
		default:
			if _, isNum := v.(float64); isNum && rng.IntN(2) == 0 {
				q.Filters = append(q.Filters, plan.Filter{Field: f, Op: "gte", Values: []any{v}})
			} else if s, isStr := v.(string); isStr {
				q.Filters = append(q.Filters, plan.Filter{Field: f, Op: "!=", Values: []any{s}})
			} else if isNum {
				q.Filters = append(q.Filters, plan.Filter{Field: f, Op: "=", Values: []any{v}})
			}
		}
	}
	if rng.IntN(4) == 0 {
		q.Filters = append(q.Filters, plan.Filter{Metric: q.Metrics[0], Op: "gt", Values: []any{1}})
	}
	return q
}

// untyped keeps the metrics without a metric type, directly or through
// the metrics they combine: those need a time dimension with a grain
// (docs/metrics.md), which these seeds do not have.
func untyped(p *plan.Planner, names []string) []string {
	var typed func(n string) bool
	typed = func(n string) bool {
		m := p.Artifact().Metric(n)
		if m == nil || m.Type != nil {
			return true
		}
		return slices.ContainsFunc(m.DependsOn, typed)
	}
	var out []string
	for _, n := range names {
		if !typed(n) {
			out = append(out, n)
		}
	}
	return out
}
