package plan

import (
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
)

// balancesModel: snapshots of two accounts whose last January snapshots
// differ (account 2's is on the 30th), a semi-additive metric per account
// and one without, and a rollup declared over the balances.
const balancesModel = `version: "0.2.0.dev0"
semantic_model:
  - name: bank
    datasets:
      - name: balances
        source: balances
        primary_key: [id]
        fields:
          - {name: id, expression: {dialects: [{dialect: ANSI_SQL, expression: id}]}}
          - {name: account_id, expression: {dialects: [{dialect: ANSI_SQL, expression: account_id}]}}
          - {name: taken_on, datatype: Date, expression: {dialects: [{dialect: ANSI_SQL, expression: taken_on}]}}
          - {name: balance, expression: {dialects: [{dialect: ANSI_SQL, expression: balance}]}}
    metrics:
      - name: balance_sum
        expression: {dialects: [{dialect: ANSI_SQL, expression: SUM(balances.balance)}]}
      - name: closing
        expression: {dialects: [{dialect: ANSI_SQL, expression: SUM(balances.balance)}]}
        custom_extensions: [{vendor_name: OSSIE, data: '{"metric": {"version": 1, "type": "semi_additive", "along": "balances.taken_on", "pick": "last", "per": "balances.account_id"}}'}]
      - name: closing_whole
        expression: {dialects: [{dialect: ANSI_SQL, expression: SUM(balances.balance)}]}
        custom_extensions: [{vendor_name: OSSIE, data: '{"metric": {"version": 1, "type": "semi_additive", "along": "balances.taken_on", "pick": "last"}}'}]
    custom_extensions:
      - vendor_name: OSSIE
        data: '{"rollups": [{"version": 1, "name": "by_account_day", "measures": ["balance_sum"], "dimensions": ["balances.account_id"], "time_dimension": {"field": "balances.taken_on", "grain": "day"}}]}'
`

// TestSemiAdditivePer: a per-entity pick gets a group of its own,
// partitioned by the entity, EXPLAIN says so, no rollup answers it (and
// EXPLAIN says why), and on DuckDB the month-end balance counts the
// account whose last snapshot came earlier.
func TestSemiAdditivePer(t *testing.T) {
	arts, probs := compiler.Load([]byte(balancesModel), compiler.CompileOptions{})
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	p, err := New(arts[0])
	if err != nil {
		t.Fatal(err)
	}
	body := `{"metrics":["closing","closing_whole"],"dimensions":[{"field":"balances.taken_on","grain":"month"}]}`
	root := planOf(t, p, body, nil)
	aggs := nodesOf[*aggregate](root)
	if len(aggs) != 2 || aggs[0].semi == nil || aggs[1].semi == nil || aggs[0].madeBy() != rwSemi {
		t.Fatalf("want two semi-additive groups (per and whole), got %d", len(aggs))
	}
	q, _ := ParseQuery([]byte(body))
	pl, probs := p.Plan(q, dialect.DuckDB)
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	ex := pl.Explain()
	for _, want := range []string{
		"closing: sums balances rows per balances.account_id and balances.taken_on value within each group, takes for each balances.account_id the sum at its latest balances.taken_on, then adds those up across balances.account_id",
		"closing_whole: sums balances rows per balances.taken_on value within each group, then takes the sum at the latest balances.taken_on",
		"metric closing is semi-additive (the latest row per balances.account_id), which cannot be re-aggregated from a rollup's partial results (OSS2054)",
	} {
		if !strings.Contains(ex, want) {
			t.Errorf("EXPLAIN lacks %q:\n%s", want, ex)
		}
	}
	if !strings.Contains(pl.SQL, `PARTITION BY`) || !strings.Contains(pl.SQL, `"balances"."account_id"`) {
		t.Fatalf("SQL does not partition by the account:\n%s", pl.SQL)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE balances (id INTEGER, account_id INTEGER, taken_on DATE, balance INTEGER);
		INSERT INTO balances VALUES (1, 1, '2024-01-31', 100), (2, 2, '2024-01-30', 50), (3, 2, '2024-01-15', 40), (4, 1, '2024-02-29', 70)`); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(pl.SQL)
	if err != nil {
		t.Fatalf("%v\n%s", err, pl.SQL)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var month, closing, whole any
		if err := rows.Scan(&month, &closing, &whole); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprint(month, " ", closing, " ", whole))
	}
	sort.Strings(got)
	// January: accounts 1 (100 on the 31st) and 2 (50 on the 30th) = 150,
	// where the whole-group pick sees the 31st only (100); February: 70.
	if strings.Join(got, ",") != "2024-01-01 00:00:00 +0000 UTC 150 100,2024-02-01 00:00:00 +0000 UTC 70 70" {
		t.Fatalf("got %q, want January 150 100 and February 70 70\n%s", got, pl.SQL)
	}
}
