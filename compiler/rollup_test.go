package compiler

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ossie-dev/ossie/compiler/expr"
)

// flightsWith is the flights example model with extra metrics and, when
// rollups is not "", the model's OSSIE extension {"rollups": rollups}.
func flightsWith(t testing.TB, rollups string, metrics ...string) string {
	t.Helper()
	b, err := os.ReadFile("../examples/flights/model.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.TrimRight(string(b), "\n") + "\n"
	for _, m := range metrics {
		s += "      - " + m + "\n"
	}
	if rollups != "" {
		s += "    custom_extensions:\n      - vendor_name: OSSIE\n        data: '{\"rollups\": " + rollups + "}'\n"
	}
	return s
}

const byDay = `{"version": 1, "name": "flights_by_day", "measures": ["flight_count", "avg_delay", "on_time_rate", "total_distance"],
 "dimensions": ["origin.state", "flights.origin_code"], "time_dimension": {"field": "flights.departure_time", "grain": "day"},
 "partition_grain": "month", "refresh": {"mode": "incremental", "every": "1h", "lookback": 2}}`

func TestRollupCompiles(t *testing.T) {
	arts, probs := Compile(parseOK(t, flightsWith(t, "["+byDay+"]", met("origins", "COUNT(DISTINCT flights.origin_code)"))), CompileOptions{})
	if probs.HasErrors() {
		t.Fatal(probs.Error())
	}
	r := arts[0].Rollup("flights_by_day")
	if r == nil {
		t.Fatal("no rollup in the artifact")
	}
	if !strings.HasPrefix(r.Table, "ossie_rollup_flights_flights_by_day_") || len(r.Table) != len("ossie_rollup_flights_flights_by_day_")+8 {
		t.Fatalf("table %q", r.Table)
	}
	var cols []string
	for _, c := range r.Columns {
		if c.Aggregate != nil {
			cols = append(cols, c.Name+"="+expr.Format(c.Aggregate.Node))
		} else {
			cols = append(cols, c.Name+"="+c.Member+"@"+c.Grain)
		}
	}
	want := []string{"d0=origin.state@", "d1=flights.origin_code@", "d2=flights.departure_time@day",
		"m0=COUNT(*)", "m1=SUM(flights.delay)", "m2=COUNT(flights.delay)", "m3=COUNT(CASE WHEN flights.delay < 15 THEN 1 END)", "m4=SUM(flights.distance)"}
	if !slices.Equal(cols, want) {
		t.Fatalf("columns\n got %q\nwant %q", cols, want)
	}
	var ms []string
	for _, m := range r.Measures {
		ms = append(ms, m.Reaggregate+":"+strings.Join(m.Columns, ","))
	}
	// COUNT(*) of flight_count is shared by on_time_rate.
	if want := []string{"sum:m0", "avg:m1,m2", "sum:m3", "sum:m4"}; !slices.Equal(ms, want) {
		t.Fatalf("measures %q, want %q", ms, want)
	}
	if r.Refresh.Mode != RollupIncremental || r.Refresh.EveryDuration().Hours() != 1 || r.Refresh.Lookback != 2 {
		t.Fatalf("refresh %+v", r.Refresh)
	}

	// The declaration is part of the version; the refresh policy is not
	// part of the table, the definition is.
	plain, _ := Compile(parseOK(t, flightsWith(t, "", met("origins", "COUNT(DISTINCT flights.origin_code)"))), CompileOptions{})
	if plain[0].Version == arts[0].Version {
		t.Fatal("declaring a rollup keeps the artifact version")
	}
	sched, _ := Compile(parseOK(t, flightsWith(t, "["+strings.Replace(byDay, `"incremental", "every": "1h", "lookback": 2`, `"schedule", "every": "1d"`, 1)+"]")), CompileOptions{})
	if sched[0].Rollups[0].Table != r.Table {
		t.Fatalf("a new refresh policy renamed the table: %s, %s", sched[0].Rollups[0].Table, r.Table)
	}
	elsewhere, _ := Compile(parseOK(t, flightsWith(t, "["+byDay+"]", met("origins", "COUNT(DISTINCT flights.origin_code)"))), CompileOptions{DefaultSchema: "other"})
	if elsewhere[0].Rollups[0].Table == r.Table {
		t.Fatal("sources in another schema kept the table name")
	}
	month, _ := Compile(parseOK(t, flightsWith(t, "["+strings.Replace(byDay, `"grain": "day"`, `"grain": "month"`, 1)+"]")), CompileOptions{})
	if month[0].Rollups[0].Table == r.Table {
		t.Fatal("a new grain kept the table name")
	}
	distinct, probs := Compile(parseOK(t, flightsWith(t, `[{"version": 1, "name": "o", "measures": ["origins", "avg_distance"], "dimensions": ["flights.origin_code"]}]`, met("origins", "COUNT(DISTINCT flights.origin_code)"))), CompileOptions{})
	if probs.HasErrors() {
		t.Fatal(probs.Error())
	}
	if m := distinct[0].Rollups[0].Measures[0]; m.Reaggregate != ReaggCountDistinct || m.Columns[0] != "d0" {
		t.Fatalf("count distinct with its key kept: %+v", m)
	}
	if rf := distinct[0].Rollups[0].Refresh; rf.Mode != RollupReconcile {
		t.Fatalf("default refresh %+v", rf)
	}
}

func TestRollupProblems(t *testing.T) {
	const at = "semantic_model[0].custom_extensions[0].data.rollups"
	with := func(s string) string {
		return strings.Replace(byDay, `"partition_grain": "month", "refresh": {"mode": "incremental", "every": "1h", "lookback": 2}`, s, 1)
	}
	tests := []struct {
		name, rollups string
		want          []string
		msg           string
	}{
		{"schema: unknown key and bad grain", `[{"version": 1, "name": "r", "measures": ["flight_count"], "grain": "day", "time_dimension": {"field": "flights.departure_time", "grain": "fortnight"}}]`,
			[]string{"error OSS2050 " + at + "[0]", "error OSS2050 " + at + "[0].time_dimension.grain"}, ""},
		{"schema: schedule needs every", "[" + with(`"refresh": {"mode": "schedule"}`) + "]", []string{"error OSS2050 " + at + "[0].refresh"}, "every"},
		{"schema: lookback is incremental only", "[" + with(`"refresh": {"mode": "reconcile", "lookback": 3}`) + "]", []string{"error OSS2050 " + at + "[0].refresh.lookback"}, "incremental"},
		{"schema: not a list", `{"name": "r"}`, []string{"error OSS2050 " + at}, ""},
		{"duplicate name", "[" + byDay + ", " + byDay + "]", []string{"error OSS2051 " + at + "[1].name"}, "already used"},
		{"unknown members", `[{"version": 1, "name": "r", "measures": ["flight_cnt"], "dimensions": ["origin.stat"], "time_dimension": {"field": "flights.departure", "grain": "day"}}]`,
			[]string{"error OSS2052 " + at + "[0].dimensions[0]", "error OSS2052 " + at + "[0].measures[0]", "error OSS2052 " + at + "[0].time_dimension.field"}, "origin.state"},
		{"time dimension not a time field", `[{"version": 1, "name": "r", "measures": ["flight_count"], "time_dimension": {"field": "flights.delay", "grain": "day"}}]`,
			[]string{"error OSS2053 " + at + "[0].time_dimension.field"}, "not a time field"},
		{"partition finer than the grain", "[" + strings.Replace(byDay, `"grain": "day"`, `"grain": "month"`, 1) + "]", nil, ""},
		{"partition of weeks in months", "[" + strings.Replace(byDay, `"grain": "day"`, `"grain": "week"`, 1) + "]",
			[]string{"error OSS2053 " + at + "[0].partition_grain"}, "whole week periods"},
		{"partition without time", `[{"version": 1, "name": "r", "measures": ["flight_count"], "partition_grain": "month"}]`,
			[]string{"error OSS2053 " + at + "[0].partition_grain"}, "time_dimension"},
		{"incremental without partitions", "[" + with(`"refresh": {"mode": "incremental", "every": "1h"}`) + "]",
			[]string{"error OSS2053 " + at + "[0].refresh.mode"}, "partition_grain"},
		{"median", `[{"version": 1, "name": "r", "measures": ["mid"]}]`, []string{"error OSS2054 " + at + "[0].measures[0]"}, "MEDIAN"},
		{"distinct without its key", `[{"version": 1, "name": "r", "measures": ["origins"], "dimensions": ["origin.state"]}]`,
			[]string{"error OSS2054 " + at + "[0].measures[0]"}, "that the rollup keeps as one of its dimensions"},
		{"filtered distinct with its key", `[{"version": 1, "name": "r", "measures": ["late_origins"], "dimensions": ["flights.origin_code"]}]`,
			[]string{"error OSS2054 " + at + "[0].measures[0]"}, "without FILTER"},
		{"semi-additive", `[{"version": 1, "name": "r", "measures": ["latest"]}]`, []string{"error OSS2054 " + at + "[0].measures[0]"}, "semi_additive"},
		{"semi-additive per entity, even keeping the entity and the day", `[{"version": 1, "name": "r", "measures": ["latest_per_origin"], "dimensions": ["flights.origin_code"], "time_dimension": {"field": "flights.departure_time", "grain": "day"}}]`,
			[]string{"error OSS2054 " + at + "[0].measures[0]"}, "metric latest_per_origin is a semi_additive metric picked per flights.origin_code; its value cannot be re-aggregated"},
	}
	extra := []string{met("mid", "MEDIAN(flights.delay)"), met("origins", "COUNT(DISTINCT flights.origin_code)"), met("late_origins", "COUNT(DISTINCT flights.origin_code) FILTER (WHERE flights.delay > 15)"),
		typed("latest", "flight_count", `{"metric": {"version": 1, "type": "semi_additive", "along": "flights.departure_time", "pick": "last"}}`),
		typed("latest_per_origin", "flight_count", `{"metric": {"version": 1, "type": "semi_additive", "along": "flights.departure_time", "pick": "last", "per": "flights.origin_code"}}`)}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			probs := Validate(parseOK(t, flightsWith(t, tt.rollups, extra...)))
			var errs Problems
			for _, p := range probs {
				if p.Severity == SeverityError {
					errs = append(errs, p)
				}
			}
			got := codePaths(errs)
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("got %q, want %q\n%s", got, tt.want, errs.Error())
			}
			if tt.msg != "" && !strings.Contains(errs.Error(), tt.msg) {
				t.Fatalf("messages do not mention %q:\n%s", tt.msg, errs.Error())
			}
		})
	}
}

func TestRollupsOnlyOnTheModel(t *testing.T) {
	s := strings.Replace(shop(), "source: shop.orders", `source: shop.orders
        custom_extensions: [{vendor_name: OSSIE, data: '{"rollups": []}'}]`, 1)
	got := codePaths(Validate(parseOK(t, s)))
	if !slices.Equal(got, []string{"error OSS2022 semantic_model[0].datasets[0].custom_extensions[0].data"}) {
		t.Fatalf("got %q", got)
	}
}

func TestGrainNests(t *testing.T) {
	for _, c := range []struct {
		fine, coarse string
		want         bool
	}{{"day", "day", true}, {"hour", "year", true}, {"day", "week", true}, {"week", "month", false}, {"month", "quarter", true},
		{"quarter", "month", false}, {"month", "week", false}, {"quarter", "year", true}, {"year", "day", false}, {"day", "fortnight", false}} {
		if got := GrainNests(c.fine, c.coarse); got != c.want {
			t.Errorf("GrainNests(%s, %s) = %v", c.fine, c.coarse, got)
		}
	}
}

func TestRollupUnjoinable(t *testing.T) {
	s := doc([]string{ordersDS, customersDS, ds("stores", "shop.stores", "primary_key: [id]", fld("id", "id"), fld("city", "city"))},
		[]string{ordersToCustomers}, []string{met("revenue", "SUM(orders.amount)")}) +
		"    custom_extensions:\n      - vendor_name: OSSIE\n        data: '{\"rollups\": [{\"version\": 1, \"name\": \"r\", \"measures\": [\"revenue\"], \"dimensions\": [\"customers.region\", \"stores.city\"]}]}'\n"
	var got []string
	probs := Validate(parseOK(t, s))
	for _, p := range probs {
		if p.Severity == SeverityError {
			got = append(got, p.Code+" "+p.Path+": "+p.Message)
		}
	}
	want := []string{"OSS2055 semantic_model[0].custom_extensions[0].data.rollups[0].dimensions[1]: stores.city cannot be joined to dataset orders, which metric revenue reads: no relationship path connects them"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q", got)
	}
}

func TestRollupJoinChoice(t *testing.T) {
	s := doc([]string{
		ds("orders", "orders", "primary_key: [id]", fld("id", "id"), fld("order_day", "order_day"), fld("ship_day", "ship_day")),
		ds("calendar", "calendar", "primary_key: [day]", fld("day", "day"), fld("month", "month")),
	}, []string{rel("orders_order_date", "orders", "calendar", "order_day", "day"), rel("orders_ship_date", "orders", "calendar", "ship_day", "day")},
		[]string{met("n", "COUNT(orders.id)")}) +
		"    custom_extensions:\n      - vendor_name: OSSIE\n        data: '{\"rollups\": [{\"version\": 1, \"name\": \"r\", \"measures\": [\"n\"], \"dimensions\": [\"orders.order_day\", \"calendar.month\"]}]}'\n"
	var got []string
	for _, p := range Validate(parseOK(t, s)) {
		if p.Severity == SeverityError {
			got = append(got, p.Code+" "+p.Path+": "+p.Message)
		}
	}
	want := []string{"OSS2055 semantic_model[0].custom_extensions[0].data.rollups[0].dimensions[1]: calendar.month is joined to dataset orders, which metric n reads, by one of several many-to-one paths to calendar; a rollup cannot choose one yet"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q", got)
	}
}
