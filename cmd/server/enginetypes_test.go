package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/engine/duckdb"
	"github.com/ossie-dev/ossie/server/servertest"
	"github.com/ossie-dev/ossie/test/pgtest"
	"github.com/ossie-dev/ossie/test/trinoserver"
)

// eventRows are three UTC instants: 23:30 on 1 January is already
// 2 January in Amsterdam (+01:00), 12:00 on 1 July is 14:00 there (+02:00).
const eventRows = `(1, TIMESTAMP '2024-01-01 23:30:00', %TZ%'2024-01-01 23:30:00%UTC%', DATE '2024-01-01'),
(2, TIMESTAMP '2024-01-02 00:10:00', %TZ%'2024-01-02 00:10:00%UTC%', DATE '2024-01-02'),
(3, TIMESTAMP '2024-07-01 12:00:00', %TZ%'2024-07-01 12:00:00%UTC%', DATE '2024-07-01')`

// eventEngine creates the events table (id, occurred TIMESTAMP,
// occurred_tz TIMESTAMPTZ, on_day DATE) on the named engine (DuckDB, a
// real PostgreSQL, a real Trino) and returns the server flags that reach
// it.
func eventEngine(t *testing.T, name string) []string {
	t.Helper()
	ctx := context.Background()
	rows := func(tz, utc string) string {
		return strings.NewReplacer("%TZ%", tz, "%UTC%", utc).Replace(eventRows)
	}
	const table = `CREATE TABLE events (id INTEGER, occurred TIMESTAMP, occurred_tz TIMESTAMPTZ, on_day DATE); INSERT INTO events VALUES `
	dsnFile := filepath.Join(t.TempDir(), "dsn")
	switch name {
	case "duckdb":
		dbPath := filepath.Join(t.TempDir(), "events.duckdb")
		duck, err := duckdb.Open(dbPath)
		if err != nil {
			t.Fatal(err)
		}
		defer duck.Close()
		if err := duck.Exec(ctx, table+rows("TIMESTAMPTZ ", "+00")); err != nil {
			t.Fatal(err)
		}
		return []string{"--duckdb", dbPath}
	case "postgres":
		pg := pgtest.Private(t)
		if err := pg.Exec(ctx, "postgres", table+rows("TIMESTAMPTZ ", "+00")); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dsnFile, []byte(pg.DSN("postgres")), 0o600); err != nil {
			t.Fatal(err)
		}
		return []string{"--engine", "postgres", "--dsn-file", dsnFile, "--default-schema", "public"}
	}
	srv := trinoserver.Shared(t)
	schema := srv.NewSchema(t, "events")
	if err := srv.Exec(ctx, `CREATE TABLE memory.`+schema+`.events (id INTEGER, occurred TIMESTAMP(3), occurred_tz TIMESTAMP(3) WITH TIME ZONE, on_day DATE)`,
		`INSERT INTO memory.`+schema+`.events VALUES `+rows("TIMESTAMP ", " UTC")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dsnFile, []byte(srv.DSN(trinoserver.AdminUser, "", "")), 0o600); err != nil {
		t.Fatal(err)
	}
	return []string{"--engine", "trino", "--dsn-file", dsnFile, "--default-catalog", "memory", "--default-schema", schema}
}

// answer is the HTTP JSON answer as encoding/json reads it.
type answer struct {
	Columns []struct {
		Name, Type, Timezone string
	} `json:"columns"`
	Rows [][]any `json:"rows"`
}

// TestEngineTypesOnEveryEngine runs `server --models` on each engine
// (issue 24, bugs 1-3):
//   - every time value of the HTTP JSON answer decodes with encoding/json
//     (the hour bucket of a timestamp, a Date, a DateTimeTz instant);
//   - a time field declared without datatype takes the engine's type at
//     load: the TIMESTAMP column is a naive DateTime of UTC instants,
//     converted into the query zone (Europe/Amsterdam buckets, not UTC),
//     the TIMESTAMPTZ one a DateTimeTz converted the same way, a CAST to
//     DATE a Date; the metadata and the answers say so;
//   - a naive TIMESTAMP declared DateTimeTz refuses to load with OSS5008
//     instead of answering shifted.
func TestEngineTypesOnEveryEngine(t *testing.T) {
	for _, name := range []string{"duckdb", "postgres", "trino"} {
		t.Run(name, func(t *testing.T) {
			args := eventEngine(t, name)
			ctx, cancel := context.WithCancel(context.Background())
			hs := servertest.Start(t, func(addr string) int {
				return run(ctx, append([]string{"--models", "testdata/events.yaml", "--addr", addr}, args...))
			})
			stopped := false
			stop := func() {
				if !stopped {
					stopped = true
					cancel()
					if code := hs.Exit(t); code != 0 {
						t.Errorf("server exited with %d", code)
					}
				}
			}
			defer stop()
			hs.WaitServing(t)
			query := func(body string) answer {
				t.Helper()
				code, resp := hs.Call("POST", "/v1/models/ev/query", body, "")
				if code != 200 {
					t.Fatalf("%s: %d %s", body, code, resp)
				}
				var a answer
				if err := json.Unmarshal([]byte(resp), &a); err != nil {
					t.Fatalf("%s: the answer is not JSON (%v): %s", body, err, resp)
				}
				return a
			}
			want := func(what string, a answer, rows [][]any) {
				t.Helper()
				if !reflect.DeepEqual(a.Rows, rows) {
					t.Errorf("%s: rows %v, want %v", what, a.Rows, rows)
				}
			}

			a := query(`{"metrics":["event_count"],"dimensions":[{"field":"events.at","grain":"hour"}],"order_by":[{"key":"events.at.hour"}],"timezone":"Europe/Amsterdam"}`)
			want("hour of the naive TIMESTAMP in Amsterdam", a, [][]any{
				{"2024-01-02T00:00:00Z", 1.0}, {"2024-01-02T01:00:00Z", 1.0}, {"2024-07-01T14:00:00Z", 1.0}})
			if len(a.Columns) != 2 || a.Columns[0].Type != "DateTime" || a.Columns[0].Timezone != "Europe/Amsterdam" {
				t.Errorf("hour column %+v: want DateTime in Europe/Amsterdam", a.Columns)
			}
			a = query(`{"metrics":["event_count"],"dimensions":[{"field":"events.at","grain":"day"}],"order_by":[{"key":"events.at.day"}],"timezone":"Europe/Amsterdam"}`)
			want("day of the naive TIMESTAMP in Amsterdam", a, [][]any{{"2024-01-02", 2.0}, {"2024-07-01", 1.0}})
			a = query(`{"metrics":["event_count"],"dimensions":[{"field":"events.at_tz","grain":"day"}],"order_by":[{"key":"events.at_tz.day"}],"timezone":"Europe/Amsterdam"}`)
			want("day of the TIMESTAMPTZ in Amsterdam", a, [][]any{{"2024-01-02", 2.0}, {"2024-07-01", 1.0}})
			a = query(`{"metrics":["event_count"],"dimensions":["events.day","events.at_tz","events.at_day"],"order_by":[{"key":"events.day"}]}`)
			if len(a.Rows) != 3 || len(a.Columns) != 4 {
				t.Fatalf("day, at_tz, at_day: %+v", a)
			}
			for i, r := range a.Rows {
				day := []string{"2024-01-01", "2024-01-02", "2024-07-01"}[i]
				instant := []string{"2024-01-01T23:30:00Z", "2024-01-02T00:10:00Z", "2024-07-01T12:00:00Z"}[i]
				s, _ := r[1].(string)
				got, err := time.Parse(time.RFC3339Nano, s)
				wantAt, _ := time.Parse(time.RFC3339, instant)
				if r[0] != day || err != nil || !got.Equal(wantAt) || r[2] != day || r[3] != 1.0 {
					t.Errorf("row %d: %v, want [%s %s %s 1]", i, r, day, instant, day)
				}
			}
			// A DateTimeTz value is answered as wall time in the query zone.
			for i, typ := range []string{"Date", "DateTime", "Date", "Integer"} {
				if a.Columns[i].Type != typ || (i == 1) != (a.Columns[i].Timezone == "UTC") {
					t.Errorf("column %s: type %q, want %s", a.Columns[i].Name, a.Columns[i].Type, typ)
				}
			}

			// The metadata and the plan-only columns report the resolved types.
			code, body := hs.Call("GET", "/v1/models/ev", "", "")
			var meta struct {
				Datasets []struct {
					Dimensions []struct{ Field, Datatype string } `json:"dimensions"`
				} `json:"datasets"`
			}
			if err := json.Unmarshal([]byte(body), &meta); code != 200 || err != nil || len(meta.Datasets) != 1 {
				t.Fatalf("metadata %d %v %s", code, err, body)
			}
			types := map[string]string{}
			for _, f := range meta.Datasets[0].Dimensions {
				types[f.Field] = f.Datatype
			}
			if w := map[string]string{"id": "Integer", "at": "DateTime", "at_tz": "DateTimeTz", "at_day": "Date", "day": "Date"}; !reflect.DeepEqual(types, w) {
				t.Errorf("metadata datatypes %v, want %v", types, w)
			}
			code, body = hs.Call("POST", "/v1/models/ev/sql", `{"metrics":["event_count"],"dimensions":["events.at","events.at_tz"],"timezone":"Europe/Amsterdam"}`, "")
			var pl answer
			if err := json.Unmarshal([]byte(body), &pl); code != 200 || err != nil || len(pl.Columns) != 3 ||
				pl.Columns[0].Type != "DateTime" || pl.Columns[1].Type != "DateTime" || pl.Columns[1].Timezone != "Europe/Amsterdam" {
				t.Errorf("plan columns %d %v %s", code, err, body)
			}

			// Stopped first: a second DuckDB open of the same file in this
			// process shares the first one's locked (sandboxed) configuration.
			stop()
			var out, errs strings.Builder
			code = runTo(context.Background(), append([]string{"--models", "testdata/events_naive_as_tz.yaml", "--addr", "127.0.0.1:0"}, args...), &out, &errs)
			if code != 1 || !strings.Contains(errs.String(), "OSS5008") || !strings.Contains(errs.String(), "events.at is declared DateTimeTz") {
				t.Errorf("naive TIMESTAMP declared DateTimeTz: exit %d, stderr %s; want 1 and OSS5008 for events.at", code, errs.String())
			}
		})
	}
}
