// Command benche2e measures the semantic server end to end against the
// engine's own time on the flights data (run it through `make bench-e2e`).
//
// It loads the flights data into a DuckDB file, starts the server binary
// on that file (read-only, so this process can open the same file) and,
// for each question, runs interleaved: the hand-written SQL, the server's
// planned SQL (from POST /sql) directly on DuckDB in this process (plain
// database/sql calls, every value scanned: the engine's own time), and the
// server over HTTP (POST /query, body read to its end). The tiny and the
// 84k-row questions are asked twice: as the same SQL text every time (a
// dashboard) and as one new to the server on every ask (a filter value
// never used before). For the 84k-row questions it also runs the HTTP
// answer as CSV and as Arrow, and the hand SQL with the ORDER BY the server's answer
// promises (it sorts by the dimensions when the query has none), and sums
// the CPU time of each mode (this process for SQL, the server process for
// HTTP). Every mode must
// return the same number of rows or the run fails. It then reports p50 and
// p99 per mode, the ratio HTTP/hand-written, the server's peak RSS (VmHWM,
// reset before each question), the p50 of a cached answer (when
// --cache-args start a second server with its cache on) and the throughput
// of 8 concurrent clients on the first question.
//
// Timings are wall-clock on a shared machine: compare the modes of one run
// (they are interleaved for that reason), not runs across machines.
package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ossie-dev/ossie/engine/duckdb"
)

// question is one query body and the hand-written SQL answering it.
// formats: also measure the CSV and Arrow answers. ordered: the hand SQL
// with the row order the server's answer promises (it sorts by the
// dimensions when the query has no order_by), measured next to hand.
// fresh: body has a %d, replaced by a number new to each ask, so that
// every ask the server gets is a SQL text it never ran (the hand-written
// SQL is parsed and planned anew each time anyway: it runs unprepared).
type question struct {
	name    string
	body    string
	hand    string
	ordered string
	iters   int
	formats bool
	fresh   bool
}

var questions = []question{
	{name: "tiny: airports by state", iters: 300,
		body: `{"metrics":["airport_count"],"dimensions":["origin.state"],"order_by":[{"key":"origin.state"}]}`,
		hand: `SELECT state, COUNT(iata) FROM airports GROUP BY state ORDER BY state NULLS LAST`},
	{name: "tiny, first ask of each SQL text", iters: 300, fresh: true,
		body: `{"metrics":["airport_count"],"dimensions":["origin.state"],"filters":[{"field":"origin.latitude","op":"gt","values":[-%d]}],"order_by":[{"key":"origin.state"}]}`,
		hand: `SELECT state, COUNT(iata) FROM airports WHERE latitude > -1 GROUP BY state ORDER BY state NULLS LAST`},
	{name: "q1: departures by origin state, top 10", iters: 40,
		body: `{"metrics":["flight_count","avg_distance","avg_delay"],"dimensions":["origin.state"],"order_by":[{"key":"flight_count","dir":"desc"}],"limit":10}`,
		hand: `SELECT o.state, COUNT(*) AS n, AVG(f.distance), AVG(f.delay) FROM flights f LEFT JOIN airports o ON f.origin = o.iata
			GROUP BY o.state ORDER BY n DESC LIMIT 10`},
	{name: "q2: flights and punctuality by month", iters: 40,
		body: `{"metrics":["flight_count","avg_delay","on_time_rate"],"dimensions":[{"field":"flights.departure_time","grain":"month"}],"order_by":[{"key":"flights.departure_time.month"}]}`,
		hand: `SELECT date_trunc('month', date) AS m, COUNT(*), AVG(delay), COUNT(CASE WHEN delay < 15 THEN 1 END) / COUNT(*)
			FROM flights GROUP BY m ORDER BY m`},
	{name: "q3: on-time rate by destination state, best 10", iters: 40,
		body: `{"metrics":["on_time_rate","on_time_flights","flight_count"],"dimensions":["destination.state"],"filters":[{"metric":"flight_count","op":"gte","values":[100]}],"order_by":[{"key":"on_time_rate","dir":"desc"}],"limit":10}`,
		hand: `SELECT d.state, COUNT(CASE WHEN f.delay < 15 THEN 1 END) / COUNT(*) AS r, COUNT(CASE WHEN f.delay < 15 THEN 1 END), COUNT(*)
			FROM flights f LEFT JOIN airports d ON f.destination = d.iata GROUP BY d.state HAVING COUNT(*) >= 100 ORDER BY r DESC LIMIT 10`},
	{name: "84k rows: flights by route and week", iters: 15, formats: true,
		body:    `{"metrics":["flight_count"],"dimensions":["flights.origin_code","flights.destination_code",{"field":"flights.departure_time","grain":"week"}]}`,
		hand:    `SELECT origin, destination, date_trunc('week', date), COUNT(*) FROM flights GROUP BY ALL`,
		ordered: `SELECT origin, destination, date_trunc('week', date), COUNT(*) FROM flights GROUP BY ALL ORDER BY 1, 2, 3`},
	{name: "84k rows, first ask of each SQL text", iters: 15, formats: true, fresh: true,
		body:    `{"metrics":["flight_count"],"dimensions":["flights.origin_code","flights.destination_code",{"field":"flights.departure_time","grain":"week"}],"filters":[{"field":"flights.distance","op":"gt","values":[-%d]}]}`,
		hand:    `SELECT origin, destination, date_trunc('week', date), COUNT(*) FROM flights WHERE distance > -1 GROUP BY ALL`,
		ordered: `SELECT origin, destination, date_trunc('week', date), COUNT(*) FROM flights WHERE distance > -1 GROUP BY ALL ORDER BY 1, 2, 3`},
}

// asks numbers the bodies of fresh questions (the throughput run asks
// from several goroutines).
var asks atomic.Int64

// ask returns q's body for the next ask: q.body, or for a fresh question
// its body with a number never used before.
func (q question) ask() string {
	if !q.fresh {
		return q.body
	}
	return fmt.Sprintf(q.body, asks.Add(1))
}

func main() {
	data := flag.String("data", "examples/flights/data/full", "directory with flights-3m.parquet (or flights-sample.parquet) and airports.csv")
	bin := flag.String("server", "bin/server", "server binary to measure")
	model := flag.String("model", "examples/flights/model.yaml", "flights model; the run serves a copy with the metric airport_count added")
	args := flag.String("server-args", "", "extra server flags for the measured (uncached) runs")
	cacheArgs := flag.String("cache-args", "", "server flags turning its result cache on; empty: skip the cached measurement")
	scale := flag.Float64("scale", 1, "multiplies every question's iteration count")
	clients := flag.Int("clients", 8, "concurrent clients for the throughput run")
	dur := flag.Duration("throughput-for", 5*time.Second, "length of the throughput run")
	only := flag.String("only", "", "measure only the questions whose name contains this text")
	flag.Parse()
	questions = slices.DeleteFunc(questions, func(q question) bool { return !strings.Contains(q.name, *only) })
	if len(questions) == 0 {
		fmt.Fprintln(os.Stderr, "bench-e2e: no question matches --only")
		os.Exit(2)
	}
	if err := run(*data, *bin, *model, *args, *cacheArgs, *scale, *clients, *dur); err != nil {
		fmt.Fprintln(os.Stderr, "bench-e2e:", err)
		os.Exit(1)
	}
}

func run(data, bin, model, args, cacheArgs string, scale float64, clients int, dur time.Duration) error {
	ctx := context.Background()
	dbFile, err := buildDB(ctx, data)
	if err != nil {
		return err
	}
	defer os.RemoveAll(filepath.Dir(dbFile))
	if model, err = withAirportCount(model, filepath.Dir(dbFile)); err != nil {
		return err
	}
	ro := dbFile + "?access_mode=READ_ONLY"
	eng, err := duckdb.Open(ro)
	if err != nil {
		return err
	}
	defer eng.Close()

	srv, err := startServer(bin, model, ro, strings.Fields(args))
	if err != nil {
		return err
	}
	defer srv.stop()
	fmt.Printf("server %s %s; data %s\n", bin, args, data)
	fmt.Printf("%-42s %10s %10s %10s %10s %10s %8s %10s\n", "question (rows)", "hand p50", "hand p99", "sql p50", "http p50", "http p99", "ratio", "peak RSS")
	for _, q := range questions {
		if err := measure(ctx, eng.DB(), srv, q, max(3, int(float64(q.iters)*scale))); err != nil {
			return fmt.Errorf("%s: %w", q.name, err)
		}
	}
	if err := throughput(srv, questions[0], clients, dur); err != nil {
		return err
	}
	srv.stop()

	if cacheArgs == "" {
		fmt.Println("cached answer: not measured (no --cache-args)")
		return nil
	}
	csrv, err := startServer(bin, model, ro, strings.Fields(cacheArgs))
	if err != nil {
		return err
	}
	defer csrv.stop()
	for _, q := range questions {
		// The large answers are past any sensible cache; a fresh question
		// is never asked twice.
		if q.formats || q.fresh {
			continue
		}
		var web []time.Duration
		for i := -1; i < max(20, int(100*scale)); i++ {
			t, _, err := timed(func() (int, error) { return csrv.query(q.body, "") })
			if err != nil {
				return err
			}
			if i >= 0 {
				web = append(web, t)
			}
		}
		fmt.Printf("cached %-35s http p50 %s p99 %s\n", q.name, ms(pct(web, 50)), ms(pct(web, 99)))
	}
	return nil
}

// mode is one way of answering a question, timed; it returns the row
// count. cpu reads the CPU time used so far by whoever does the work: this
// process for the SQL modes, the server process for HTTP.
type mode struct {
	name string
	run  func() (int, error)
	cpu  func() time.Duration
}

// measure runs q's modes interleaved, n times after two warm-up rounds,
// checks they all return the same number of rows and prints the p50s: one
// line for hand-written SQL, the planned SQL and the JSON answer, and for
// a question with formats one line more per format (CSV, Arrow) and for
// the ordered hand SQL, each with its ratio to the hand-written SQL.
func measure(ctx context.Context, db *sql.DB, srv *server, q question, n int) error {
	planned, err := srv.plannedSQL(q.ask())
	if err != nil {
		return err
	}
	modes := []mode{
		{"hand", func() (int, error) { return plain(ctx, db, q.hand) }, selfCPU},
		{"planned", func() (int, error) { return plain(ctx, db, planned) }, selfCPU},
		{"json", func() (int, error) { return srv.query(q.ask(), "") }, srv.cpu},
	}
	if q.formats {
		modes = append(modes,
			mode{"csv", func() (int, error) { return srv.query(q.ask(), "text/csv") }, srv.cpu},
			mode{"arrow", func() (int, error) { return srv.query(q.ask(), "application/vnd.apache.arrow.stream") }, srv.cpu})
	}
	if q.ordered != "" {
		modes = append(modes, mode{"ordered", func() (int, error) { return plain(ctx, db, q.ordered) }, selfCPU})
	}
	times := make([][]time.Duration, len(modes))
	cpu := make([]time.Duration, len(modes))
	srv.resetPeak()
	rows := -1
	for i := -2; i < n; i++ { // two warm-up rounds
		for m, md := range modes {
			c := md.cpu()
			t, r, err := timed(md.run)
			if err != nil {
				return fmt.Errorf("%s: %w", md.name, err)
			}
			if rows >= 0 && r != rows {
				return fmt.Errorf("row counts differ: %s %d, %s %d", modes[0].name, rows, md.name, r)
			}
			rows = r
			if i >= 0 {
				times[m] = append(times[m], t)
				cpu[m] += md.cpu() - c
			}
		}
	}
	h50 := pct(times[0], 50)
	fmt.Printf("%-42s %10s %10s %10s %10s %10s %7.2fx %9.0fM\n", fmt.Sprintf("%s (%d)", q.name, rows),
		ms(h50), ms(pct(times[0], 99)), ms(pct(times[1], 50)), ms(pct(times[2], 50)), ms(pct(times[2], 99)),
		float64(pct(times[2], 50))/float64(h50), float64(srv.peakRSS())/(1<<20))
	for m := 3; m < len(modes); m++ {
		name := "  http " + modes[m].name
		if modes[m].name == "ordered" {
			name = "  hand SQL with the answer's ORDER BY"
		}
		fmt.Printf("%-42s %10s %10s %10s %10s %10s %7.2fx\n", name, "", "", "",
			ms(pct(times[m], 50)), ms(pct(times[m], 99)), float64(pct(times[m], 50))/float64(h50))
	}
	if q.formats {
		// CPU time moves less than wall time on a shared machine.
		fmt.Printf("  CPU per answer (ratio to hand):")
		for m, md := range modes {
			fmt.Printf(" %s %s (%.2fx)", md.name, ms(cpu[m]/time.Duration(n)), float64(cpu[m])/float64(cpu[0]))
		}
		fmt.Println()
	}
	return nil
}

// selfCPU is the CPU time of this process so far (user and system, all
// threads: the in-process DuckDB's too).
func selfCPU() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// throughput runs clients concurrent loops of q over HTTP for dur.
func throughput(srv *server, q question, clients int, dur time.Duration) error {
	var mu sync.Mutex
	var all []time.Duration
	var firstErr error
	var wg sync.WaitGroup
	deadline := time.Now().Add(dur)
	for range clients {
		wg.Go(func() {
			var mine []time.Duration
			for time.Now().Before(deadline) {
				t, _, err := timed(func() (int, error) { return srv.query(q.ask(), "") })
				if err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
					return
				}
				mine = append(mine, t)
			}
			mu.Lock()
			all = append(all, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	fmt.Printf("throughput %s, %d clients: %.0f requests/s, p50 %s, p99 %s\n", q.name, clients,
		float64(len(all))/dur.Seconds(), ms(pct(all, 50)), ms(pct(all, 99)))
	return nil
}

// withAirportCount writes a copy of the flights model into dir with one
// metric more, airport_count, aggregated at the origin dataset: the tiny
// question ("airports by state") reads only the airports table.
func withAirportCount(model, dir string) (string, error) {
	b, err := os.ReadFile(model)
	if err != nil {
		return "", err
	}
	const at = "\n    metrics:\n"
	metric := `      - name: airport_count
        description: Number of airports.
        datatype: Integer
        expression:
          dialects:
            - {dialect: OSSIE_SQL_2026, expression: 'COUNT(origin.code)'}
`
	i := bytes.Index(b, []byte(at))
	if i < 0 {
		return "", fmt.Errorf("%s: no metrics section", model)
	}
	out := slices.Concat(b[:i+len(at)], []byte(metric), b[i+len(at):])
	file := filepath.Join(dir, "model.yaml")
	return file, os.WriteFile(file, out, 0o644)
}

// buildDB loads the Parquet and CSV files into a new DuckDB file.
func buildDB(ctx context.Context, data string) (string, error) {
	flights := filepath.Join(data, "flights-3m.parquet")
	if _, err := os.Stat(flights); err != nil {
		flights = filepath.Join(data, "flights-sample.parquet")
	}
	dir, err := os.MkdirTemp("", "ossie-bench-e2e")
	if err != nil {
		return "", err
	}
	file := filepath.Join(dir, "flights.duckdb")
	eng, err := duckdb.Open(file)
	if err != nil {
		return "", err
	}
	defer eng.Close()
	if err := eng.LoadFile(ctx, "flights", flights); err != nil {
		return "", err
	}
	return file, eng.LoadFile(ctx, "airports", filepath.Join(data, "airports.csv"))
}

type server struct {
	cmd  *exec.Cmd
	base string
	http *http.Client
}

func startServer(bin, model, db string, extra []string) (*server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	args := append([]string{"--models", model, "--duckdb", db, "--create-duckdb", "--addr", addr}, extra...)
	cmd := exec.Command(bin, args...)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, base: "http://" + addr, http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
	for range 200 {
		resp, err := s.http.Get(s.base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.stop()
	return nil, fmt.Errorf("server %s did not become ready", bin)
}

func (s *server) stop() {
	if s.cmd.Process != nil && s.cmd.ProcessState == nil {
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
	}
}

func (s *server) post(path, body string) ([]byte, error) {
	resp, err := s.http.Post(s.base+"/v1/models/flights/"+path, "application/json", strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %d: %s", resp.StatusCode, b)
	}
	return b, nil
}

func (s *server) plannedSQL(body string) (string, error) {
	b, err := s.post("sql", body)
	if err != nil {
		return "", err
	}
	var p struct{ SQL string }
	return p.SQL, json.Unmarshal(b, &p)
}

// query answers body over HTTP in the format accept asks for ("": JSON)
// and returns the row count of the answer: Ossie-Row-Count, a header or a
// trailer once the body is read. The client does not decode the rows: that
// is not the server's cost.
func (s *server) query(body, accept string) (int, error) {
	req, err := http.NewRequest(http.MethodPost, s.base+"/v1/models/flights/query", strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := s.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("status %d: %s", resp.StatusCode, b)
	}
	n := resp.Header.Get("Ossie-Row-Count")
	if n == "" {
		n = resp.Trailer.Get("Ossie-Row-Count")
	}
	return strconv.Atoi(n)
}

// resetPeak resets the kernel's peak RSS (VmHWM) of the server process.
func (s *server) resetPeak() {
	_ = os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", s.cmd.Process.Pid), []byte("5"), 0)
}

// cpu is the server process's CPU time so far (user and system, from
// /proc/PID/stat, in clock ticks of 10 ms: sum it over many answers).
func (s *server) cpu() time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	// Fields after the command name, which is in parentheses: utime and
	// stime are the 12th and 13th of them.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// peakRSS is VmHWM of the server process in bytes (0 when unknown).
func (s *server) peakRSS() int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// plain runs sql through database/sql as a hand-written client would (no
// prepared statement kept), scanning every value, and counts the rows:
// the engine's own time.
func plain(ctx context.Context, db *sql.DB, query string) (int, error) {
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return 0, err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return 0, err
		}
		n++
	}
	return n, rows.Err()
}

func timed(f func() (int, error)) (time.Duration, int, error) {
	start := time.Now()
	n, err := f()
	return time.Since(start), n, err
}

func pct(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d.Microseconds())/1000) }
