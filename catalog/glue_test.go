package catalog

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/catalog/gluetest"
)

const testKey = "AKIDGLUETEST"

// glueFixture serves three databases; "sales" has three tables so that
// GetTables needs two pages of two.
func glueFixture(t *testing.T) *gluetest.Server {
	t.Helper()
	s := gluetest.StartSigned(t, testKey)
	s.AddDatabase("crm", gluetest.Table{Name: "customers", Columns: []gluetest.Column{{Name: "id", Type: "bigint"}}})
	s.AddDatabase("sales",
		gluetest.Table{Name: "orders", Description: "Orders as placed",
			Columns:       []gluetest.Column{{Name: "id", Type: "bigint", Comment: "order id"}, {Name: "amount", Type: "decimal(12,2)"}, {Name: "items", Type: "array<struct<sku:string,qty:int>>"}},
			PartitionKeys: []gluetest.Column{{Name: "dt", Type: "date", Comment: "order day"}}},
		gluetest.Table{Name: "fact_returns", Columns: []gluetest.Column{{Name: "ts", Type: "timestamp"}}},
		gluetest.Table{Name: "v_daily", TableType: "VIRTUAL_VIEW", Columns: []gluetest.Column{{Name: "day", Type: "date"}}},
	)
	s.AddDatabase("tmp")
	return s
}

func TestListGlueReadsEveryPage(t *testing.T) {
	s := glueFixture(t)
	var progress []string
	tables, err := ListGlue(context.Background(), GlueOptions{Endpoint: s.URL, CatalogName: "awsdatacatalog",
		Progress: func(db string, n int) { progress = append(progress, fmt.Sprintf("%s:%d", db, n)) }})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tb := range tables {
		names = append(names, tb.Catalog+"."+tb.Schema+"."+tb.Name)
	}
	want := []string{"awsdatacatalog.crm.customers", "awsdatacatalog.sales.orders", "awsdatacatalog.sales.fact_returns", "awsdatacatalog.sales.v_daily"}
	if !slices.Equal(names, want) {
		t.Fatalf("tables %v, want %v", names, want)
	}
	orders := tables[1]
	if orders.Comment != "Orders as placed" || len(orders.Columns) != 4 {
		t.Fatalf("orders = %+v", orders)
	}
	if c := orders.Columns[3]; c.Name != "dt" || !c.Partition || c.Type != "date" || c.Comment != "order day" {
		t.Errorf("partition key = %+v", c)
	}
	calls := s.Calls()
	wantCalls := []string{"GetDatabases page 1", "GetDatabases page 2", "GetTables crm page 1", "GetTables sales page 1", "GetTables sales page 2", "GetTables tmp page 1"}
	if !slices.Equal(calls, wantCalls) {
		t.Errorf("calls %v, want %v", calls, wantCalls)
	}
	if !slices.Equal(progress, []string{"crm:1", "sales:2", "sales:3", "tmp:0"}) {
		t.Errorf("progress %v", progress)
	}
}

func TestListGlueSelectsByPattern(t *testing.T) {
	s := glueFixture(t)
	for _, tc := range []struct {
		dbs, tables []string
		want        []string
	}{
		{[]string{"sales"}, nil, []string{"orders", "fact_returns", "v_daily"}},
		{[]string{"SALES"}, []string{"fact_*", "v_?aily"}, []string{"fact_returns", "v_daily"}},
		{nil, []string{"*.customers", "sales.ord*"}, []string{"customers", "orders"}},
		{[]string{"s*", "c*"}, []string{"[co]*"}, []string{"customers", "orders"}},
	} {
		tables, err := ListGlue(context.Background(), GlueOptions{Endpoint: s.URL, Databases: tc.dbs, Tables: tc.tables})
		if err != nil {
			t.Fatalf("%v/%v: %v", tc.dbs, tc.tables, err)
		}
		var names []string
		for _, tb := range tables {
			names = append(names, tb.Name)
			if tb.Catalog != "" {
				t.Errorf("catalog %q without CatalogName", tb.Catalog)
			}
		}
		if !slices.Equal(names, tc.want) {
			t.Errorf("%v/%v: got %v, want %v", tc.dbs, tc.tables, names, tc.want)
		}
	}
}

func TestListGlueErrors(t *testing.T) {
	ctx := context.Background()
	t.Run("access denied", func(t *testing.T) {
		s := glueFixture(t)
		s.Fail("GetTables", gluetest.APIError{Type: "AccessDeniedException", Message: "User: arn:aws:iam::123456789012:user/x is not authorized to perform: glue:GetTables"})
		_, err := ListGlue(ctx, GlueOptions{Endpoint: s.URL})
		wantError(t, err, Denied, "AccessDeniedException", "glue:GetTables", "check the AWS credentials")
	})
	t.Run("unknown access key", func(t *testing.T) {
		s := glueFixture(t)
		s.AccessKeyID = "AKIDSOMEONEELSE"
		_, err := ListGlue(ctx, GlueOptions{Endpoint: s.URL})
		wantError(t, err, Denied, "UnrecognizedClientException", "security token")
		if strings.Contains(err.Error(), "gluetest-secret") {
			t.Errorf("secret in message: %v", err)
		}
	})
	t.Run("database vanished", func(t *testing.T) {
		s := glueFixture(t)
		s.Fail("GetTables", gluetest.APIError{Type: "EntityNotFoundException", Message: "Database sales not found."})
		_, err := ListGlue(ctx, GlueOptions{Endpoint: s.URL, Databases: []string{"sales"}})
		wantError(t, err, NotFound, `"sales" not found`, "--database")
	})
	t.Run("no such database", func(t *testing.T) {
		s := glueFixture(t)
		_, err := ListGlue(ctx, GlueOptions{Endpoint: s.URL, Databases: []string{"salse"}})
		wantError(t, err, NotFound, `no database "salse"`, "crm, sales, tmp", "fix --database")
	})
	t.Run("nothing matched", func(t *testing.T) {
		s := glueFixture(t)
		_, err := ListGlue(ctx, GlueOptions{Endpoint: s.URL, Tables: []string{"nope*"}})
		wantError(t, err, NotFound, "no table matched", "--tables")
	})
	t.Run("server error", func(t *testing.T) {
		s := glueFixture(t)
		s.Fail("GetDatabases", gluetest.APIError{Type: "InternalServiceException", Message: "boom", Status: 500})
		_, err := ListGlue(ctx, GlueOptions{Endpoint: s.URL})
		wantError(t, err, Problem, "InternalServiceException", "retry later")
	})
	t.Run("unreachable", func(t *testing.T) {
		s := glueFixture(t)
		s.Close()
		start := time.Now()
		_, err := ListGlue(ctx, GlueOptions{Endpoint: s.URL})
		wantError(t, err, Unreachable, "cannot reach the Glue endpoint "+s.URL, "connection refused", "--endpoint")
		t.Logf("unreachable endpoint reported after %v (AWS_MAX_ATTEMPTS=2)", time.Since(start))
	})
	t.Run("no region", func(t *testing.T) {
		glueFixture(t)
		t.Setenv("AWS_REGION", "")
		_, err := ListGlue(ctx, GlueOptions{Endpoint: "http://127.0.0.1:1"})
		wantError(t, err, Problem, "no AWS region", "--region")
	})
	t.Run("no credentials", func(t *testing.T) {
		glueFixture(t)
		t.Setenv("AWS_ACCESS_KEY_ID", "")
		t.Setenv("AWS_SECRET_ACCESS_KEY", "")
		_, err := ListGlue(ctx, GlueOptions{Endpoint: "http://127.0.0.1:1"})
		wantError(t, err, Denied, "no AWS credentials", "AWS_PROFILE")
	})
}

func wantError(t *testing.T, err error, kind ErrorKind, parts ...string) {
	t.Helper()
	var ce *Error
	if !errors.As(err, &ce) {
		t.Fatalf("error %v (%T) is not a *catalog.Error", err, err)
	}
	if ce.Kind != kind {
		t.Errorf("kind %d, want %d: %v", ce.Kind, kind, err)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not contain %q", err, p)
		}
	}
}
