package httpapi

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ossie-dev/ossie/server/auth"
)

// TestTokensFileDeletedRevokesAll (issue 13 finding 9): deleting the
// tokens file revokes every token at once, loudly (an error log line, the
// refused gauge); putting it back restores them.
func TestTokensFileDeletedRevokesAll(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tokens.yaml")
	writeFile(t, path, tokensYAML())
	f := newAuthFixture(t, auth.Options{TokensFile: path, ReloadInterval: time.Hour})
	f.eventuallyStatus(t, bearer(tokAnalyst), 200, "initial token")
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	f.eventuallyStatus(t, bearer(tokAnalyst), 401, "token after the file was deleted")
	if logs := f.logs.String(); !strings.Contains(logs, "credentials file deleted: every credential it held is revoked") {
		t.Errorf("deletion not logged:\n%s", logs)
	}
	if m := scrape(t, f.ts.URL); !strings.Contains(m, `ossie_server_auth_file_refused{file="tokens"} 1`) {
		t.Errorf("refused gauge not set:\n%s", grepLines(m, "ossie_server_auth"))
	}
	writeFile(t, path, tokensYAML())
	f.eventuallyStatus(t, bearer(tokAnalyst), 200, "token after the file is back")
}

// TestDuplicateQueryKeys (finding 9): a key given twice in the query body,
// at the top or inside a filter, is 400 OSS4001 with its path, as model
// files refuse duplicates; encoding/json alone keeps the last one.
func TestDuplicateQueryKeys(t *testing.T) {
	f := newFixture(t, nil)
	for body, path := range map[string]string{
		`{"metrics":["revenue"],"metrics":["order_count"]}`:                                                 `"path":"metrics"`,
		`{"metrics":["revenue"],"filters":[{"field":"orders.status","op":"eq","op":"neq","values":["x"]}]}`: `"path":"filters[0].op"`,
	} {
		resp, b := f.do(t, "POST", "/v1/models/shop/query", body)
		if resp.StatusCode != 400 || !strings.Contains(string(b), "OSS4001") || !strings.Contains(string(b), path) || !strings.Contains(string(b), "given twice") {
			t.Errorf("%s: %d %s", body, resp.StatusCode, b)
		}
	}
}

// TestUnknownModelEchoBounded (finding 9): a 100 KB model name is quoted
// back cut to 128 bytes.
func TestUnknownModelEchoBounded(t *testing.T) {
	f := newFixture(t, nil)
	name := strings.Repeat("é", 50_000)
	resp, b := f.do(t, "GET", "/v1/models/"+name, "")
	if resp.StatusCode != 404 || len(b) > 2000 || !strings.Contains(string(b), "OSS5003") || !strings.Contains(string(b), "…") {
		t.Errorf("%d, %d bytes: %.300s", resp.StatusCode, len(b), b)
	}
}

// TestNumericFilterOnMaskedField (finding 9): a number compared with a
// hash-masked field is a bad filter (400 OSS4005) planned away, not a 502
// from the engine comparing text with a number.
func TestNumericFilterOnMaskedField(t *testing.T) {
	f := newGovernedFixture(t)
	resp, b := f.call(t, "POST", "/v1/models/shop/query", `{"metrics":["order_count"],"filters":[{"field":"orders.status","op":"eq","values":[5]}]}`,
		http.Header{"Authorization": {"Bearer " + governedToken("auditor")}, "Content-Type": {"application/json"}})
	if resp.StatusCode != 400 || !strings.Contains(string(b), "OSS4005") || !strings.Contains(string(b), "masked") {
		t.Errorf("%d %s", resp.StatusCode, b)
	}
	resp, b = f.call(t, "POST", "/v1/models/shop/query", `{"metrics":["order_count"],"filters":[{"field":"orders.status","op":"eq","values":["x"]}]}`,
		http.Header{"Authorization": {"Bearer " + governedToken("auditor")}, "Content-Type": {"application/json"}})
	if resp.StatusCode != 200 {
		t.Errorf("text value on the masked field: %d %s", resp.StatusCode, b)
	}
}
