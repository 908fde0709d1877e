package differential

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/ossie-dev/ossie/test/differential/dcase"
)

// RunLocalRollup is the rollup cell through the server in local mode:
// the rollup RunRollup finds covering c's query is declared in c's model,
// `server --models --rollups` builds it in the engine's ossie_rollups at
// start, and c's query is asked over HTTP as JSON, with its total if it
// has one. The server's log must say it built the rollup and, for an
// ungoverned caller (a governed one may not see plans), EXPLAIN (POST
// /sql) must name it as the answer's source. bin is cmd/server; dir holds
// the model, tokens and log. The caller stops nothing: the server is
// stopped before it returns (the DuckDB file's one writer).
func RunLocalRollup(ctx context.Context, bin, dir string, c dcase.Case, files Files, p Place) (Outcome, error) {
	r, _, refused, err := coveringRollup(c, files, p)
	if err != nil {
		return Outcome{}, err
	}
	model, err := WithRollup(c.Model, r)
	if err != nil {
		return Outcome{}, err
	}
	rf := files
	rf.Model = filepath.Join(dir, "model.rollup.yaml")
	if err := os.WriteFile(rf.Model, model, 0o600); err != nil {
		return Outcome{}, err
	}
	tokens, token := "", ""
	if c.Caller != nil {
		if tokens, token, err = TokensFile(dir, c.Caller); err != nil {
			return Outcome{}, err
		}
	}
	srv, err := StartServer(ctx, bin, dir, append(LocalServerArgs(c, rf, p, tokens), "--rollups"), nil)
	if err != nil {
		return refusal(err.Error()), nil
	}
	defer srv.Stop()
	srv.Token = token
	path := "/v1/models/" + c.ModelName
	if refused == nil {
		if !strings.Contains(srv.Log(), `"msg":"rollup built"`) {
			return Outcome{}, fmt.Errorf("the server did not build the rollup:\n%s", srv.Log())
		}
		if c.Caller == nil {
			if err := explainsRollup(ctx, srv, path, c.Query); err != nil {
				return Outcome{}, err
			}
		}
	}
	return RunHTTP(ctx, srv, c, path, "json")
}

// explainsRollup checks that the server's EXPLAIN of query names the
// rollup as the answer's source.
func explainsRollup(ctx context.Context, srv *Proc, path string, query []byte) error {
	q, err := withoutKey(query, "total") // /sql plans without running: no total
	if err != nil {
		return err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(q, &m); err != nil {
		return err
	}
	m["explain"] = json.RawMessage("true")
	body, _ := json.Marshal(m)
	code, resp, _, err := srv.Do(ctx, http.MethodPost, path+"/sql", "", body)
	if err != nil {
		return err
	}
	var plan struct {
		Explain string `json:"explain"`
	}
	if code != http.StatusOK || json.Unmarshal(resp, &plan) != nil {
		return fmt.Errorf("EXPLAIN: %d %s", code, resp)
	}
	if !strings.Contains(plan.Explain, "from rollup "+RollupName) && !strings.Contains(plan.Explain, "scan rollup "+RollupName) {
		return fmt.Errorf("the server's EXPLAIN does not answer from the rollup:\n%s", plan.Explain)
	}
	return nil
}
