package compiler

import (
	"encoding/json"
	"slices"
	"testing"
)

// balancesDoc is a model of account balance snapshots joined to their
// accounts, with metrics appended.
func balancesDoc(metrics ...string) string {
	return doc([]string{
		ds("balances", "balances", "primary_key: [snapshot_id]", fld("snapshot_id", "snapshot_id"), fld("account_id", "account_id"), fld("currency", "currency"),
			`{name: taken_on, datatype: Date, expression: {dialects: [{dialect: ANSI_SQL, expression: taken_on}]}}`, fld("balance", "balance")),
		ds("accounts", "accounts", "primary_key: [account_id]", fld("account_id", "account_id"), fld("branch", "branch")),
	}, []string{rel("balances_accounts", "balances", "accounts", "account_id", "account_id")},
		append([]string{met("balance_sum", "SUM(balances.balance)")}, metrics...))
}

func semiPer(per string, pick string) string {
	return typed("closing", "SUM(balances.balance)", `{"metric": {"version": 1, "type": "semi_additive", "along": "balances.taken_on", "pick": "`+pick+`", "per": `+per+`}}`)
}

// TestSemiAdditivePerInArtifact: one field or a list is kept as a list,
// and the artifact's JSON reads back the same.
func TestSemiAdditivePerInArtifact(t *testing.T) {
	for per, want := range map[string][]string{
		`"balances.account_id"`:                        {"balances.account_id"},
		`["balances.account_id", "balances.currency"]`: {"balances.account_id", "balances.currency"},
	} {
		arts, probs := Compile(parseOK(t, balancesDoc(semiPer(per, "last"))), CompileOptions{})
		if probs.HasErrors() {
			t.Fatal(probs.Error())
		}
		m := arts[0].Metric("closing")
		if !slices.Equal(m.Type.Per, want) {
			t.Fatalf("per %s: artifact has %q, want %q", per, m.Type.Per, want)
		}
		raw, err := json.Marshal(m.Type)
		if err != nil {
			t.Fatal(err)
		}
		var back MetricType
		if err := json.Unmarshal(raw, &back); err != nil || !slices.Equal(back.Per, want) {
			t.Fatalf("round trip of %s: %+v, %v", raw, back, err)
		}
	}
}
