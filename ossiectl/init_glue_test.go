package ossiectl

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/glue"

	"github.com/ossie-dev/ossie/test/localproc"
	"github.com/ossie-dev/ossie/test/motoserver"
)

// The Glue tests run against moto's server mode (test/motoserver), each in
// an AWS account of its own; TestMain (engine_test.go) stops the server.

// glueShop is a fresh moto account, its key in the AWS environment, with
// two Glue databases whose tables cover every type family, comments,
// partition keys, names that need quoting and a table name present in both
// databases. It returns the Glue endpoint.
func glueShop(t *testing.T) (*motoserver.Server, *motoserver.Account) {
	t.Helper()
	srv := motoserver.Shared(t)
	acct := srv.NewAccount(t)
	acct.AddDatabase(t, "crm",
		motoserver.Table("customers", "People who bought something", "", []string{"id bigint", "email string -- Login e-mail", "signup date date", "vip boolean"}),
		motoserver.Table("events", "", "", []string{"id bigint", "payload binary"}),
	)
	acct.AddDatabase(t, "sales",
		motoserver.Table("orders", "One row per order\nloaded nightly", "", []string{
			"id bigint -- order id",
			"customer_id bigint",
			"amount decimal(12,2) -- Order total in EUR",
			"weight double",
			"qty int",
			"placed_at timestamp",
			"order string -- reserved word",
			"Ship Mode varchar(20)",
			`say "hi" char(2)`,
			"items array<struct<sku:string,qty:int>>",
			"attrs map<string,string>",
			"address struct<city:string,zip:string>",
		}, "dt date -- order day", "region string"),
		motoserver.Table("events", "", "VIRTUAL_VIEW", []string{"at timestamp"}),
		motoserver.Table("Daily Totals", "", "", []string{"day date", "total decimal(18,2)"}),
	)
	acct.SetEnv(t)
	return srv, acct
}

func TestInitFromGlue(t *testing.T) {
	srv, _ := glueShop(t)
	code, out, errOut := run(t, "", "init", "--from", "glue", "--endpoint", srv.URL(), "--catalog", "awsdatacatalog")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "init/glue.yaml", []byte(out))
	for _, want := range []string{
		`drafted model "glue" from Glue database(s) crm, sales (engine catalog awsdatacatalog): 5 dataset(s), 23 field(s), 0 relationship(s), written to standard output`,
		"add primary_key to 5 dataset(s) (customers, crm_events, orders, sales_events, daily_totals)",
		"add relationships",
		"4 field(s) have no scalar type and are Opaque (crm_events.payload, orders.items, orders.attrs, orders.address)",
		"review the metrics",
		"4 metric(s) were drafted (row counts over one-column primary keys, sums of numeric columns",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}

	// Written to a file, the draft passes ossiectl validate.
	file := filepath.Join(t.TempDir(), "model.yaml")
	if code, _, errOut := run(t, "", "init", "--from", "glue", "--endpoint", srv.URL(), "--database", "sales", "--tables", "orders,Daily*", "-o", file); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if code, out, errOut := run(t, "", "validate", file); code != ExitOK {
		t.Fatalf("validate exit %d:\n%s%s", code, out, errOut)
	}
	doc := string(readFile(t, file))
	for _, want := range []string{"name: sales\n", "source: sales.orders\n", `source: sales."Daily Totals"`, "name: daily_totals"} {
		if !strings.Contains(doc, want) {
			t.Errorf("document lacks %q", want)
		}
	}
	// An existing file is kept unless --force.
	code, _, errOut = run(t, "", "init", "--from", "glue", "--endpoint", srv.URL(), "-o", file)
	if code != ExitUsage || !strings.Contains(errOut, "pass --force") {
		t.Errorf("overwrite without --force: exit %d: %s", code, errOut)
	}
	if code, _, errOut := run(t, "", "init", "--from", "glue", "--endpoint", srv.URL(), "-o", file, "--force", "--name", "everything"); code != ExitOK {
		t.Errorf("--force: exit %d: %s", code, errOut)
	}
	if !strings.Contains(string(readFile(t, file)), "name: everything") {
		t.Error("--force did not replace the file")
	}
}

func TestInitFromGlueFailures(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, srv *motoserver.Server, acct *motoserver.Account) (endpoint string)
		args  []string
		code  int
		want  []string
	}{
		{"access denied", func(t *testing.T, srv *motoserver.Server, acct *motoserver.Account) string {
			key, secret := acct.NewUser(t, "lister", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"glue:GetDatabases","Resource":"*"}]}`)
			srv.EnforceIAM(t)
			motoserver.SetEnv(t, key, secret)
			return srv.URL()
		}, nil, ExitProblems, []string{"ossiectl: error OSS5065: Glue refused the request: AccessDenied", "is not authorized to perform: glue:GetTables", "check the AWS credentials"}},
		{"bad credentials", func(t *testing.T, srv *motoserver.Server, _ *motoserver.Account) string {
			srv.EnforceIAM(t)
			motoserver.SetEnv(t, "AKIDSOMEONEELSE", "someone-elses-secret")
			return srv.URL()
		}, nil, ExitProblems, []string{"ossiectl: error OSS5065: Glue refused the request: InvalidClientTokenId", "check the AWS credentials"}},
		{"unknown database", nil, []string{"--database", "slaes"}, ExitProblems, []string{`ossiectl: error OSS5066: the Glue catalog has no database "slaes" (it has crm, sales); fix --database`}},
		{"unreachable", func(t *testing.T, _ *motoserver.Server, _ *motoserver.Account) string {
			port, err := localproc.FreePort() // free: nothing answers there
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprintf("http://127.0.0.1:%d", port)
		}, nil, ExitUnreachable, []string{"ossiectl: error OSS5067: cannot reach the Glue endpoint", "connection refused", "check the network"}},
		{"no region", func(t *testing.T, srv *motoserver.Server, _ *motoserver.Account) string {
			t.Setenv("AWS_REGION", "")
			return srv.URL()
		}, nil, ExitProblems, []string{"ossiectl: error OSS5068: no AWS region is configured", "--region"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, acct := glueShop(t)
			endpoint := srv.URL()
			if tc.setup != nil {
				endpoint = tc.setup(t, srv, acct)
			}
			code, out, errOut := run(t, "", append([]string{"init", "--from", "glue", "--endpoint", endpoint}, tc.args...)...)
			if code != tc.code || out != "" {
				t.Errorf("exit %d (want %d), stdout %q", code, tc.code, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q: %s", w, errOut)
				}
			}
			if strings.Contains(errOut, "someone-elses-secret") || strings.Contains(errOut, acct.SecretAccessKey) {
				t.Errorf("secret in stderr: %s", errOut)
			}
		})
	}
}

// A Glue table with 5,000 columns drafts, validates and stays fast.
func TestInitFromGlueWideTable(t *testing.T) {
	acct := motoserver.Shared(t).NewAccount(t)
	cols := make([]string, 5000)
	types := []string{"bigint", "string", "decimal(10,2)", "timestamp", "date", "array<int>"}
	for i := range cols {
		cols[i] = fmt.Sprintf("c%04d %s", i, types[i%len(types)])
	}
	acct.AddDatabase(t, "wide", motoserver.Table("t", "", "", cols))
	acct.SetEnv(t)
	file := filepath.Join(t.TempDir(), "wide.yaml")
	start := time.Now()
	code, _, errOut := run(t, "", "init", "--from", "glue", "--endpoint", motoserver.Shared(t).URL(), "-o", file)
	took := time.Since(start)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "1 dataset(s), 5000 field(s)") {
		t.Errorf("stderr: %s", errOut)
	}
	start = time.Now()
	if code, out, errOut := run(t, "", "validate", file); code != ExitOK {
		t.Fatalf("validate exit %d: %s%s", code, out, errOut)
	}
	t.Logf("5,000 columns: init %v (fetch from moto, draft, render, self-check), validate %v, %d bytes", took, time.Since(start), len(readFile(t, file)))
}

// Progress appears on a terminal and nowhere else.
func TestInitProgressOnlyOnTerminal(t *testing.T) {
	srv, _ := glueShop(t)
	master, tty := openPTY(t)
	got := make(chan string)
	go func() {
		var b bytes.Buffer
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			b.Write(buf[:n])
			if err != nil || strings.Contains(b.String(), "Next steps:") {
				break
			}
		}
		got <- b.String()
	}()
	var out bytes.Buffer
	if code := Do([]string{"init", "--from", "glue", "--endpoint", srv.URL()}, strings.NewReader(""), &out, tty); code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	select {
	case term := <-got:
		if !strings.Contains(term, "reading Glue database crm: 2 tables") || !strings.Contains(term, "reading Glue database sales: 3 tables") {
			t.Errorf("terminal shows no progress:\n%q", term)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("nothing on the terminal")
	}
	// A file (or pipe) gets the report only.
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if code := Do([]string{"init", "--from", "glue", "--endpoint", srv.URL()}, strings.NewReader(""), &out, f); code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	if b := readFile(t, f.Name()); strings.Contains(string(b), "reading Glue") || !strings.Contains(string(b), "Next steps:") {
		t.Errorf("file stderr:\n%s", b)
	}
}

// A draft from Glue answers: moto holds the Glue tables, whose locations
// are Parquet files (orders partitioned by day, Hive layout); DuckDB plays
// the engine that reads a Glue catalog (as Athena or Trino's Hive
// connector do): one view per Glue table over the files at its location,
// typed by its partition keys. The drafted model with one metric added
// gives the answers of hand-written SQL over the same files.
func TestInitFromGlueAnswers(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	files, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer files.Close()
	for _, stmt := range []string{
		`CREATE TABLE o AS SELECT * FROM (VALUES
			(10, 1, 100.50::DECIMAL(12,2), DATE '2024-02-01'), (11, 1, 20.00, DATE '2024-02-01'),
			(12, 2, 5.25, DATE '2024-02-02'), (13, NULL, 7.00, DATE '2024-03-01')) t(id, customer_id, amount, dt)`,
		fmt.Sprintf(`COPY o TO '%s/orders' (FORMAT parquet, PARTITION_BY (dt))`, dir),
		fmt.Sprintf(`COPY (SELECT * FROM (VALUES (1, 'EU'), (2, 'US')) t(id, region)) TO '%s/customers.parquet' (FORMAT parquet)`, dir),
	} {
		if _, err := files.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	// The answer the drafted model must reproduce, written by hand.
	want := queryRows(t, files, fmt.Sprintf(`SELECT strftime(dt, '%%Y-%%m-%%d'), printf('%%.2f', SUM(amount)) FROM read_parquet('%s/orders/*/*.parquet', hive_partitioning = true) GROUP BY dt ORDER BY dt`, dir))

	acct := motoserver.Shared(t).NewAccount(t)
	orders := motoserver.Table("orders", "One row per order", "EXTERNAL_TABLE",
		[]string{"id bigint -- order id", "customer_id bigint", "amount decimal(12,2) -- Order total in EUR"}, "dt date -- order day")
	orders.StorageDescriptor.Location = aws.String(dir + "/orders/")
	customers := motoserver.Table("customers", "", "EXTERNAL_TABLE", []string{"id bigint", "region string -- Sales region"})
	customers.StorageDescriptor.Location = aws.String(dir + "/customers.parquet")
	acct.AddDatabase(t, "shop", orders, customers)
	acct.SetEnv(t)

	// The engine: a view per table of what Glue answers.
	engineFile := filepath.Join(t.TempDir(), "engine.duckdb")
	engineDB, err := sql.Open("duckdb", engineFile)
	if err != nil {
		t.Fatal(err)
	}
	page, err := acct.Glue().GetTables(ctx, &glue.GetTablesInput{DatabaseName: aws.String("shop")})
	if err != nil {
		t.Fatal(err)
	}
	stmts := []string{`CREATE SCHEMA shop`}
	for _, tb := range page.TableList {
		loc := aws.ToString(tb.StorageDescriptor.Location)
		read := fmt.Sprintf(`read_parquet('%s')`, loc)
		if len(tb.PartitionKeys) > 0 {
			var types []string
			for _, k := range tb.PartitionKeys {
				duck := map[string]string{"date": "DATE", "string": "VARCHAR"}[aws.ToString(k.Type)]
				if duck == "" {
					t.Fatalf("partition key type %s", aws.ToString(k.Type))
				}
				types = append(types, fmt.Sprintf(`'%s': '%s'`, aws.ToString(k.Name), duck))
			}
			read = fmt.Sprintf(`read_parquet('%s*/*.parquet', hive_partitioning = true, hive_types = {%s})`, loc, strings.Join(types, ", "))
		}
		stmts = append(stmts, fmt.Sprintf(`CREATE VIEW shop.%s AS SELECT * FROM %s`, aws.ToString(tb.Name), read))
	}
	for _, stmt := range stmts {
		if _, err := engineDB.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	engineDB.Close()

	model := filepath.Join(t.TempDir(), "shop.yaml")
	code, _, errOut := run(t, "", "init", "--from", "glue", "--endpoint", motoserver.Shared(t).URL(), "--database", "shop", "-o", model)
	if code != ExitOK {
		t.Fatalf("init exit %d: %s", code, errOut)
	}
	draft := string(readFile(t, model))
	for _, w := range []string{"source: shop.orders\n", "description: One row per order\n", "description: Order total in EUR\n", "description: order day", "description: Sales region\n"} {
		if !strings.Contains(draft, w) {
			t.Errorf("draft lacks %q:\n%s", w, draft)
		}
	}
	// The drafted metric total_amount (SUM(orders.amount)) validates and
	// answers as hand-written SQL does.
	if !strings.Contains(draft, "- name: total_amount\n        expression:\n          dialects:\n            - {dialect: OSSIE_SQL_2026, expression: SUM(orders.amount)}") {
		t.Fatalf("no total_amount drafted:\n%s", draft)
	}
	if code, out, errOut := run(t, "", "validate", model); code != ExitOK {
		t.Fatalf("validate exit %d:\n%s%s", code, out, errOut)
	}
	// The engine's views read the Glue tables' files: the sandbox lets
	// the query read them only because --allow-read names their directory.
	code, out, errOut := run(t, "", "query", model, "--duckdb", engineFile, "--allow-read", dir, "--metrics", "total_amount", "--dimensions", "orders.dt", "--format", "csv")
	if code != ExitOK {
		t.Fatalf("query exit %d: %s", code, errOut)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		day, value, _ := strings.Cut(line, ",")
		var sum float64
		if _, err := fmt.Sscan(value, &sum); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		got = append(got, fmt.Sprintf("%s|%.2f", strings.TrimSuffix(day, "T00:00:00Z"), sum))
	}
	slices.Sort(got)
	if !slices.Equal(got, want) || len(want) != 3 {
		t.Errorf("drafted model answers\n%v\nhand-written SQL answers\n%v\n(raw CLI output:\n%s)", got, want, out)
	}
}
