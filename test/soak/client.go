package soak

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/test/differential"
	"github.com/ossie-dev/ossie/test/differential/wire"
)

// The entry points a query is sent through.
const (
	epJSON  = "http-json"
	epCSV   = "http-csv"
	epArrow = "http-arrow"
	epMCP   = "mcp"
	epWire  = "sql"
)

var entryPoints = []string{epJSON, epCSV, epArrow, epMCP, epWire}

// outcome is what one request gave, classified.
type outcome struct {
	// class: "answer" (checked right), "wrong" (an answer that differs
	// from the reference), "refused" (a clear refusal: status or SQLSTATE
	// and an OSS code), "unclear" (a failure without a clear code),
	// "unreachable" (the connection failed), "hang" (no answer within the
	// client's timeout).
	class string
	// key is the refusal's label, e.g. "503 OSS5001" or "57P03 OSS5001".
	key    string
	detail string
	// token is the one the request carried (a 401 is excused for a token
	// rotated out).
	token string
}

var ossCode = regexp.MustCompile(`OSS\d{4}`)

// ask sends c's query (with limit, when > 0, set instead of the case's
// none) through ep with token and classifies what came back within the
// client timeout.
func (w *world) ask(ctx context.Context, c *soakCase, ep, token string, limit int) outcome {
	if c.trino {
		// Not while the soak loads the Trino case's tables again: a table
		// created and not yet filled answers nothing, rightly.
		w.trinoReload.RLock()
		defer w.trinoReload.RUnlock()
	}
	ctx, cancel := context.WithTimeout(ctx, w.o.clientTimeout())
	defer cancel()
	p := w.server()
	if c.trino {
		p = w.trinoProc
	}
	pc := *p
	pc.Token = token
	kase := c.Case
	if limit > 0 {
		var q map[string]any
		_ = json.Unmarshal(kase.Query, &q)
		q["limit"] = limit
		kase.Query, _ = json.Marshal(q)
	}
	var (
		o   differential.Outcome
		err error
	)
	switch ep {
	case epJSON, epCSV, epArrow:
		o, err = differential.RunHTTP(ctx, &pc, kase, c.Path, strings.TrimPrefix(ep, "http-"))
	case epMCP:
		o, err = differential.RunMCP(ctx, &pc, kase, c.NS)
	case epWire:
		o, err = w.askWire(ctx, &pc, c, kase.Query)
	}
	if ctx.Err() == context.DeadlineExceeded {
		return outcome{class: "hang", detail: fmt.Sprintf("%s %s: no answer within %s", ep, c.Name, w.o.clientTimeout())}
	}
	if err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) {
			out := wireRefusal(pgErr)
			out.token = token
			return out
		}
		if ep == epMCP && strings.Contains(err.Error(), "Unauthorized") {
			// The MCP client reports the 401 of its first request so.
			return outcome{class: "refused", key: "401 OSS5005", token: token, detail: fmt.Sprintf("%s %s: %v", ep, c.Name, err)}
		}
		return outcome{class: "unreachable", key: "unreachable", detail: fmt.Sprintf("%s %s: %v", ep, c.Name, err)}
	}
	if o.Result != nil {
		if ep == epWire {
			differential.UntypedAsWant(o.Result, *kase.Want)
		}
		if cerr := differential.Check(kase, o, ep == epCSV, strings.HasPrefix(ep, "http")); cerr != nil {
			return outcome{class: "wrong", detail: fmt.Sprintf("%s %s: %v", ep, c.Name, cerr)}
		}
		return outcome{class: "answer"}
	}
	if ep == epMCP && ossCode.FindString(o.Text) == "" && strings.Contains(o.Text, "Unauthorized") {
		// A 401 on a later request of the session reaches the tool's
		// error text, still without the problem's code.
		return outcome{class: "refused", key: "401 OSS5005", token: token, detail: fmt.Sprintf("%s %s: %s", ep, c.Name, o.Text)}
	}
	if ep == epMCP && ossCode.FindString(o.Text) == "" && strings.Contains(o.Text, "rejected by transport") {
		// The MCP client's HTTP request failed: no answer came back.
		return outcome{class: "unreachable", key: "unreachable", detail: fmt.Sprintf("%s %s: %s", ep, c.Name, o.Text)}
	}
	out := httpRefusal(ep, o.Text)
	out.token = token
	return out
}

// httpRefusal classifies a refusal text: "HTTP 503: {problem}" over HTTP,
// the tool's error text over MCP.
func httpRefusal(ep, text string) outcome {
	code := ossCode.FindString(text)
	status := ""
	if rest, ok := strings.CutPrefix(text, "HTTP "); ok && len(rest) >= 3 {
		status = rest[:3]
	}
	if ep == epMCP {
		status = "mcp"
	}
	if code == "" || status == "" {
		return outcome{class: "unclear", key: strings.TrimSpace(status + " " + code), detail: fmt.Sprintf("%s: %.300s", ep, text)}
	}
	return outcome{class: "refused", key: status + " " + code, detail: fmt.Sprintf("%s: %.300s", ep, text)}
}

// wireRefusal classifies an error of the SQL endpoint: a SQLSTATE and the
// OSS code its message starts with (docs/sql-api.md); the endpoint's own
// refusals (authentication, too many connections, no such model table)
// carry no OSS code, their SQLSTATE is the code.
func wireRefusal(e *pgconn.PgError) outcome {
	code := ossCode.FindString(e.Message + " " + e.Detail)
	key := strings.TrimSpace(e.Code + " " + code)
	if code == "" && e.Code != "28P01" && e.Code != "53300" && e.Code != "42P01" && e.Code != "3F000" {
		return outcome{class: "unclear", key: key, detail: "sql: " + e.Error()}
	}
	return outcome{class: "refused", key: key, detail: "sql: " + e.Error()}
}

// askWire writes the query as semantic SQL for the model the caller sees
// and runs it through pgx on the SQL endpoint, the token as the password.
func (w *world) askWire(ctx context.Context, p *differential.Proc, c *soakCase, query []byte) (differential.Outcome, error) {
	code, body, _, err := p.Do(ctx, http.MethodGet, c.Path, "", nil)
	if err != nil {
		return differential.Outcome{}, err
	}
	if code != http.StatusOK {
		return differential.Outcome{Codes: ossCode.FindAllString(string(body), -1), Text: fmt.Sprintf("HTTP %d: %s", code, body)}, nil
	}
	var detail server.ModelDetail
	if err := json.Unmarshal(body, &detail); err != nil {
		return differential.Outcome{}, fmt.Errorf("model detail: %w", err)
	}
	// total is an answer option of the HTTP API; the SQL endpoint's
	// query has none.
	var q map[string]any
	if err := json.Unmarshal(query, &q); err != nil {
		return differential.Outcome{}, err
	}
	delete(q, "total")
	query, _ = json.Marshal(q)
	addr := fmt.Sprintf("127.0.0.1:%d", w.pgPort)
	if p.PgAddr != "" {
		addr = p.PgAddr
	}
	url := fmt.Sprintf("postgres://soak:%s@%s/ossie?sslmode=disable&connect_timeout=5", p.Token, addr)
	res, err := wire.Answer(ctx, url, &detail, query)
	if err != nil {
		return differential.Outcome{}, err
	}
	return differential.Outcome{Result: &res}, nil
}

// label names the outcome in the report: the class, or the refusal key.
func (o outcome) label() string {
	switch o.class {
	case "refused", "unclear":
		return o.class + " " + o.key
	}
	return o.class
}

// sleepCtx sleeps d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
