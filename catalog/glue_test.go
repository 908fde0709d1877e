package catalog

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/glue"
	gluetypes "github.com/aws/aws-sdk-go-v2/service/glue/types"

	"github.com/ossie-dev/ossie/catalog/gluetest"
	"github.com/ossie-dev/ossie/test/localproc"
	"github.com/ossie-dev/ossie/test/motoserver"
)

// manyTables is more tables than one page of GetTables on AWS (100).
const manyTables = 150

// glueFixture is a fresh moto account with three databases, its key in the
// AWS environment: crm, sales (a described table with column comments and
// a partition key, a view) and tmp (empty).
func glueFixture(t *testing.T) (*motoserver.Server, *motoserver.Account) {
	t.Helper()
	srv := motoserver.Shared(t)
	acct := srv.NewAccount(t)
	acct.AddDatabase(t, "crm", motoserver.Table("customers", "", "", []string{"id bigint"}))
	acct.AddDatabase(t, "sales",
		motoserver.Table("orders", "Orders as placed", "EXTERNAL_TABLE",
			[]string{"id bigint -- order id", "amount decimal(12,2)", "items array<struct<sku:string,qty:int>>"}, "dt date -- order day"),
		motoserver.Table("fact_returns", "", "", []string{"ts timestamp"}),
		motoserver.Table("v_daily", "", "VIRTUAL_VIEW", []string{"day date"}),
	)
	acct.AddDatabase(t, "tmp")
	acct.SetEnv(t)
	return srv, acct
}

// TestListGlueOnMoto reads the fixture and a database "wide" of manyTables
// tables.
func TestListGlueOnMoto(t *testing.T) {
	srv, acct := glueFixture(t)
	var many []gluetypes.TableInput
	for i := range manyTables {
		many = append(many, motoserver.Table(fmt.Sprintf("t%03d", i), "", "", []string{"id bigint"}))
	}
	acct.AddDatabase(t, "wide", many...)
	var progress []string
	tables, err := ListGlue(context.Background(), GlueOptions{Endpoint: srv.URL(), CatalogName: "awsdatacatalog",
		Progress: func(db string, n int) { progress = append(progress, fmt.Sprintf("%s:%d", db, n)) }})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tb := range tables[:4] {
		names = append(names, tb.Catalog+"."+tb.Schema+"."+tb.Name)
	}
	want := []string{"awsdatacatalog.crm.customers", "awsdatacatalog.sales.orders", "awsdatacatalog.sales.fact_returns", "awsdatacatalog.sales.v_daily"}
	if !slices.Equal(names, want) {
		t.Fatalf("tables %v, want %v", names, want)
	}
	if len(tables) != 4+manyTables || tables[4].Name != "t000" || tables[len(tables)-1].Name != fmt.Sprintf("t%03d", manyTables-1) {
		t.Errorf("%d tables (want %d), the wide ones from %s to %s", len(tables), 4+manyTables, tables[4].Name, tables[len(tables)-1].Name)
	}
	orders := tables[1]
	if orders.Comment != "Orders as placed" || len(orders.Columns) != 4 {
		t.Fatalf("orders = %+v", orders)
	}
	if c := orders.Columns[0]; c.Name != "id" || c.Type != "bigint" || c.Comment != "order id" || c.Partition {
		t.Errorf("first column = %+v", c)
	}
	if c := orders.Columns[2]; c.Type != "array<struct<sku:string,qty:int>>" {
		t.Errorf("nested column = %+v", c)
	}
	if c := orders.Columns[3]; c.Name != "dt" || !c.Partition || c.Type != "date" || c.Comment != "order day" {
		t.Errorf("partition key = %+v", c)
	}
	// moto 5.2.5 answers all 150 tables of "wide" in one page (it ignores
	// MaxResults and never sends NextToken; AWS pages by 100), so paging
	// is proven against the stand-in (TestListGlueReadsEveryPage). When
	// this fails, moto pages: move that test here.
	if !slices.Equal(progress, []string{"crm:1", "sales:3", "tmp:0", fmt.Sprintf("wide:%d", manyTables)}) {
		t.Errorf("progress %v", progress)
	}
}

// Paging with NextToken, which moto does not do: against the stand-in.
func TestListGlueReadsEveryPage(t *testing.T) {
	motoserver.SetEnv(t, "AKIDGLUETEST", "gluetest-secret")
	s := gluetest.Start(t)
	s.AddDatabase("crm", "customers")
	s.AddDatabase("sales", "orders", "fact_returns", "v_daily")
	s.AddDatabase("tmp")
	var progress []string
	tables, err := ListGlue(context.Background(), GlueOptions{Endpoint: s.URL,
		Progress: func(db string, n int) { progress = append(progress, fmt.Sprintf("%s:%d", db, n)) }})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tb := range tables {
		names = append(names, tb.Schema+"."+tb.Name)
	}
	if want := []string{"crm.customers", "sales.orders", "sales.fact_returns", "sales.v_daily"}; !slices.Equal(names, want) {
		t.Fatalf("tables %v, want %v", names, want)
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
	srv, _ := glueFixture(t)
	for _, tc := range []struct {
		dbs, tables []string
		want        []string
	}{
		{[]string{"sales"}, nil, []string{"orders", "fact_returns", "v_daily"}},
		{[]string{"SALES"}, []string{"fact_*", "v_?aily"}, []string{"fact_returns", "v_daily"}},
		{nil, []string{"*.customers", "sales.ord*"}, []string{"customers", "orders"}},
		{[]string{"s*", "c*"}, []string{"[co]*"}, []string{"customers", "orders"}},
	} {
		tables, err := ListGlue(context.Background(), GlueOptions{Endpoint: srv.URL(), Databases: tc.dbs, Tables: tc.tables})
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
	// Refusals need moto's IAM enforcement (moto answers them as XML with
	// HTTP 403, not Glue's JSON AccessDeniedException).
	t.Run("access denied", func(t *testing.T) {
		srv, acct := glueFixture(t)
		key, secret := acct.NewUser(t, "lister", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"glue:GetDatabases","Resource":"*"}]}`)
		srv.EnforceIAM(t)
		motoserver.SetEnv(t, key, secret)
		_, err := ListGlue(ctx, GlueOptions{Endpoint: srv.URL()})
		wantError(t, err, Denied, "AccessDenied", "user/lister is not authorized to perform: glue:GetTables", "check the AWS credentials")
	})
	t.Run("unknown access key", func(t *testing.T) {
		srv, _ := glueFixture(t)
		srv.EnforceIAM(t)
		motoserver.SetEnv(t, "AKIDSOMEONEELSE", "someone-elses-secret")
		_, err := ListGlue(ctx, GlueOptions{Endpoint: srv.URL()})
		wantError(t, err, Denied, "InvalidClientTokenId", "security token", "check the AWS credentials")
		if strings.Contains(err.Error(), "someone-elses-secret") {
			t.Errorf("secret in message: %v", err)
		}
	})
	t.Run("wrong secret", func(t *testing.T) {
		srv, acct := glueFixture(t)
		srv.EnforceIAM(t)
		motoserver.SetEnv(t, acct.AccessKeyID, "not-"+acct.SecretAccessKey)
		_, err := ListGlue(ctx, GlueOptions{Endpoint: srv.URL()})
		wantError(t, err, Denied, "SignatureDoesNotMatch", "check the AWS credentials")
		if strings.Contains(err.Error(), acct.SecretAccessKey) {
			t.Errorf("secret in message: %v", err)
		}
	})
	t.Run("database vanished", func(t *testing.T) {
		// Dropped between GetDatabases and its GetTables: moto answers
		// EntityNotFoundException.
		srv, acct := glueFixture(t)
		_, err := ListGlue(ctx, GlueOptions{Endpoint: srv.URL(), Databases: []string{"crm", "sales"}, Progress: func(db string, _ int) {
			if db == "crm" {
				if _, err := acct.Glue().DeleteDatabase(ctx, &glue.DeleteDatabaseInput{Name: aws.String("sales")}); err != nil {
					t.Fatal(err)
				}
			}
		}})
		wantError(t, err, NotFound, `Glue database "sales" not found: Database sales not found.`, "--database")
	})
	t.Run("no such database", func(t *testing.T) {
		srv, _ := glueFixture(t)
		_, err := ListGlue(ctx, GlueOptions{Endpoint: srv.URL(), Databases: []string{"salse"}})
		wantError(t, err, NotFound, `no database "salse"`, "crm, sales, tmp", "fix --database")
	})
	t.Run("nothing matched", func(t *testing.T) {
		srv, _ := glueFixture(t)
		_, err := ListGlue(ctx, GlueOptions{Endpoint: srv.URL(), Tables: []string{"nope*"}})
		wantError(t, err, NotFound, "no table matched", "--tables")
	})
	t.Run("server error", func(t *testing.T) {
		// moto cannot fail on demand: the stand-in does.
		motoserver.SetEnv(t, "AKIDGLUETEST", "gluetest-secret")
		s := gluetest.Start(t)
		s.Fail("GetDatabases", gluetest.APIError{Type: "InternalServiceException", Message: "boom", Status: 500})
		_, err := ListGlue(ctx, GlueOptions{Endpoint: s.URL})
		wantError(t, err, Problem, "InternalServiceException", "retry later")
	})
	t.Run("unreachable", func(t *testing.T) {
		motoserver.SetEnv(t, "AKIDGLUETEST", "gluetest-secret")
		port, err := localproc.FreePort() // free: nothing answers there
		if err != nil {
			t.Fatal(err)
		}
		endpoint := fmt.Sprintf("http://127.0.0.1:%d", port)
		_, err = ListGlue(ctx, GlueOptions{Endpoint: endpoint})
		wantError(t, err, Unreachable, "cannot reach the Glue endpoint "+endpoint, "connection refused", "--endpoint")
	})
	t.Run("no region", func(t *testing.T) {
		motoserver.SetEnv(t, "AKIDGLUETEST", "gluetest-secret")
		t.Setenv("AWS_REGION", "")
		_, err := ListGlue(ctx, GlueOptions{Endpoint: "http://127.0.0.1:1"})
		wantError(t, err, Problem, "no AWS region", "--region")
	})
	t.Run("no credentials", func(t *testing.T) {
		motoserver.SetEnv(t, "", "")
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
