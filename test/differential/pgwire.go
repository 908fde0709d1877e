package differential

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ossie-dev/ossie/compiler/plan"
	"github.com/ossie-dev/ossie/server"
	"github.com/ossie-dev/ossie/server/pgwire"
	"github.com/ossie-dev/ossie/test/differential/dcase"
	"github.com/ossie-dev/ossie/test/differential/wire"
)

// RunWire answers c's query through the server's PostgreSQL-wire
// endpoint (--pg-addr, docs/sql-api.md): the model as the caller sees it
// (GET /v1/models/{model} with the caller's token), the query written as
// semantic SQL (pgwire.SQLFor) and sent through pgx with the token as the
// password. A query with no SQL form (week_start, via, compare_date_range,
// through, relative date ranges, a member the caller cannot see) makes the cell not
// applicable; an error of the endpoint is a refusal with the OSS codes its
// message and detail carry.
func RunWire(ctx context.Context, p *Proc, c dcase.Case) (Outcome, error) {
	if p.PgAddr == "" {
		return Outcome{}, errors.New("the server was started without --pg-addr")
	}
	code, body, err := p.Get(ctx, "/v1/models/"+url.PathEscape(c.ModelName))
	if err != nil {
		return Outcome{}, err
	}
	if code != http.StatusOK {
		return refusal(fmt.Sprintf("HTTP %d: %s", code, body)), nil
	}
	var detail server.ModelDetail
	if err := json.Unmarshal(body, &detail); err != nil {
		return Outcome{}, fmt.Errorf("model detail: %w\nbody: %.2000s", err, body)
	}
	query, err := withoutTotal(c.Query)
	if err != nil {
		return Outcome{}, err
	}
	if q, probs := plan.ParseQuery(query); !probs.HasErrors() {
		if _, _, err := pgwire.SQLFor(&detail, q); err != nil {
			return Outcome{}, fmt.Errorf("%w: %v", ErrNotApplicable, err)
		}
	}
	u := url.URL{Scheme: "postgres", User: url.UserPassword("differential", p.Token), Host: p.PgAddr, Path: "/ossie", RawQuery: "sslmode=disable"}
	res, err := wire.Answer(ctx, u.String(), &detail, query)
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			return refusal(pe.Code + ": " + pe.Message + "\n" + pe.Detail), nil
		}
		return refusal(err.Error()), nil
	}
	if c.Want != nil {
		UntypedAsWant(&res, *c.Want)
	}
	return answer(res), nil
}

// withoutTotal drops the request's "total" (the row count without limit
// and offset, an option of the HTTP API and the MCP tool): a SQL client
// counts rows itself, so the wire carries no total, and Check does not
// ask this cell for one.
func withoutTotal(query []byte) ([]byte, error) {
	var q map[string]json.RawMessage
	if err := json.Unmarshal(query, &q); err != nil {
		return query, nil // plan.ParseQuery reports it
	}
	if _, ok := q["total"]; !ok {
		return query, nil
	}
	delete(q, "total")
	return json.Marshal(q)
}

// UntypedAsWant gives the numbers of the columns the wire leaves untyped
// the kind the expectation has. A metric that declares no datatype is
// announced as numeric before it runs (docs/sql-api.md), so its values
// arrive as numbers without a kind: an integral one is an Integer's
// int64 when the expectation's column is Integer. The value itself is
// still compared; a fractional number stays float64 and fails there.
func UntypedAsWant(got *dcase.Result, want dcase.Result) {
	integer := map[string]bool{}
	for _, c := range want.Columns {
		integer[c.Name] = c.Datatype == "Integer"
	}
	for j, c := range got.Columns {
		if c.Datatype != "" || !integer[c.Name] {
			continue
		}
		for _, row := range got.Rows {
			if f, ok := row[j].(float64); ok && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
				row[j] = int64(f)
			}
		}
	}
}
