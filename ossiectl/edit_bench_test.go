package ossiectl

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	graphql "github.com/graph-gophers/graphql-go"

	"github.com/ossie-dev/ossie/compiler"
)

// editDoc writes an Ossie document of n fields, 500 to a dataset, in
// the layout `ossiectl init` drafts (block style, one flow expression a
// field) or as one line of JSON; each field has a description of pad
// characters when pad > 0, and each dataset a {kind: table} source when
// tableSources. head is written before semantic_model.
func editDoc(n, pad int, asJSON, tableSources bool, head string) []byte {
	var b strings.Builder
	if asJSON {
		b.WriteString(`{"version": "0.2.0.dev0", "semantic_model": [{"name": "big", "datasets": [`)
	} else {
		b.WriteString("# A large model.\n" + head + "semantic_model:\n  - name: big\n    datasets:\n")
	}
	for i := range n {
		ds := i / 500
		if i%500 == 0 {
			src := fmt.Sprintf(`"db.s.t%d"`, ds)
			if tableSources {
				src = fmt.Sprintf(`{kind: table, object: db.s.t%d}`, ds)
			}
			if asJSON {
				if ds > 0 {
					b.WriteString("]}, ")
				}
				fmt.Fprintf(&b, `{"name": "t%d", "source": %s, "fields": [`, ds, src)
			} else {
				fmt.Fprintf(&b, "      - name: t%d\n        source: %s   # table %d\n        fields:\n", ds, src, ds)
			}
		}
		desc := ""
		if pad > 0 {
			desc = strings.Repeat("d", pad)
		}
		switch {
		case asJSON:
			if i%500 > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, `{"name": "c%d", `, i)
			if pad > 0 {
				fmt.Fprintf(&b, `"description": %q, `, desc)
			}
			fmt.Fprintf(&b, `"expression": {"dialects": [{"dialect": "ANSI_SQL", "expression": "c%d"}]}}`, i)
		default:
			fmt.Fprintf(&b, "          - name: c%d\n", i)
			if pad > 0 {
				fmt.Fprintf(&b, "            description: %s\n", desc)
			}
			fmt.Fprintf(&b, "            expression: {dialects: [{dialect: ANSI_SQL, expression: c%d}]}\n", i)
		}
	}
	if asJSON {
		b.WriteString("]}]}]}\n")
	}
	return []byte(b.String())
}

// atLimit is gen(n) for the largest n that compiler.CheckDocument
// accepts (up to max).
func atLimit(max int, gen func(n int) []byte) []byte {
	n := sort.Search(max, func(n int) bool { return compiler.CheckDocument(gen(n+1)) != nil })
	return gen(n)
}

// editShape is one input of the editing benchmarks.
type editShape struct {
	name string
	data []byte
	args []string
}

// enrichShapes: a 5,000-column draft, and documents at the limits
// (100,000 values) with a description added (and a synonym) to every
// field, which takes the result over the limits, or replaced
// (--overwrite) in a document of about 1 MB, which keeps it within.
func enrichShapes() []editShape {
	const pad = 80
	return []editShape{
		{"draft-5000-columns", editDoc(5000, 0, false, false, "version: \"0.2.0.dev0\"\n"), nil},
		{"fields-at-limit", atLimit(20000, func(n int) []byte { return editDoc(n, 0, false, false, "version: \"0.2.0.dev0\"\n") }), nil},
		{"described-at-limit-1MB", atLimit(20000, func(n int) []byte { return editDoc(n, pad, false, false, "version: \"0.2.0.dev0\"\n") }), []string{"--overwrite"}},
		{"json-fields-at-limit", atLimit(20000, func(n int) []byte { return editDoc(n, 0, true, false, "") }), nil},
		{"json-described-at-limit-1MB", atLimit(20000, func(n int) []byte { return editDoc(n, pad, true, false, "") }), []string{"--overwrite"}},
	}
}

// fakeDataHub serves DataHub's answers for the datasets t0, t1, ...
// (db.s.tN on trino) of editDoc: a description and a tag for every
// field, computed once by the GraphQL schema of enrich_test.go and then
// served as bytes, so that the benchmark counts enrich's work only.
func fakeDataHub(b *testing.B, datasets, fields int) string {
	root := &dhtRoot{datasets: map[string]*dhtDataset{}}
	answers := map[string][]byte{}
	schema := graphql.MustParseSchema(dataHubSchema, root, graphql.UseFieldResolvers())
	for ds := range datasets {
		urn := fmt.Sprintf("urn:li:dataset:(urn:li:dataPlatform:trino,db.s.t%d,PROD)", ds)
		d := &dhtDataset{Urn: urn, Properties: &dhtProps{Name: "t", Description: str("Table from DataHub.")}, Tags: tags("sales"), SchemaMetadata: &dhtSchema{}}
		for i := ds * 500; i < min(fields, (ds+1)*500); i++ {
			d.SchemaMetadata.Fields = append(d.SchemaMetadata.Fields, dhtField{FieldPath: fmt.Sprintf("c%d", i), Description: str(fmt.Sprintf("Column c%d, as DataHub describes it.", i)), GlobalTags: tags("metric")})
		}
		root.datasets[urn] = d
		resp := schema.Exec(context.Background(), datahubQuery, "", map[string]any{"urn": urn})
		if len(resp.Errors) > 0 {
			b.Fatal(resp.Errors)
		}
		answers[urn], _ = json.Marshal(resp)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Variables struct{ Urn string } `json:"variables"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answers[req.Variables.Urn])
	}))
	b.Cleanup(srv.Close)
	return srv.URL
}

// BenchmarkEnrich: `ossiectl enrich -o -` as a whole (reading, DataHub's
// answers decoded, the edits, the check of the result) over each
// enrichShapes input. Budget (issue 25): under 1 s and 100 MB each.
func BenchmarkEnrich(b *testing.B) {
	url := fakeDataHub(b, 40, 20000)
	b.Setenv("DATAHUB_TOKEN", "t")
	dir := b.TempDir()
	for _, s := range enrichShapes() {
		file := filepath.Join(dir, s.name+".yaml")
		if err := os.WriteFile(file, s.data, 0o600); err != nil {
			b.Fatal(err)
		}
		args := append([]string{"enrich", "--datahub", url, "--platform", "trino", "-o", "-", file}, s.args...)
		b.Run(s.name, func(b *testing.B) {
			b.ReportAllocs()
			b.ReportMetric(float64(len(s.data)), "input-bytes")
			for b.Loop() {
				Do(args, strings.NewReader(""), discard{}, discard{})
			}
		})
	}
}

// migrateShapes: valid documents at the limits whose migration edits
// more than `version`: {kind: table} sources to strings (to 0.1.1), and
// 0.1.1's top-level dialects and vendors lists removed (to 0.2.0.dev0).
func migrateShapes() []editShape {
	return []editShape{
		{"table-sources-at-limit", atLimit(20000, func(n int) []byte {
			return editDoc(n, 0, false, true, "version: \"0.2.0.dev0\"\n")
		}), []string{"0.1.1"}},
		{"lists-at-limit", atLimit(20000, func(n int) []byte {
			return editDoc(n, 0, false, false, "version: \"0.1.1\"\ndialects: [ANSI_SQL, SNOWFLAKE]\nvendors: [x]\n")
		}), []string{"0.2.0.dev0"}},
		{"version-at-limit-1MB", atLimit(20000, func(n int) []byte {
			return editDoc(n, 80, false, false, "version: \"0.1.1\"\n")
		}), []string{"0.2.0.dev0"}},
	}
}

// BenchmarkMigrateEdits: migrateData over each migrateShapes input.
// Budget (issue 25): under 1 s and 100 MB each.
func BenchmarkMigrateEdits(b *testing.B) {
	for _, s := range migrateShapes() {
		b.Run(s.name, func(b *testing.B) {
			b.ReportAllocs()
			b.ReportMetric(float64(len(s.data)), "input-bytes")
			for b.Loop() {
				if m := migrateData("m.yaml", s.data, s.args[0]); !m.changed {
					b.Fatalf("not migrated: %v %v", m.err, m.human)
				}
			}
		})
	}
}
