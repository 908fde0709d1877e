package differential

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/ossie-dev/ossie/ossiectl"
	"github.com/ossie-dev/ossie/test/differential/dcase"
	"sigs.k8s.io/yaml"
)

// RollupName is the rollup the rollup cell declares in a case's model.
const RollupName = "differential_rollup"

// RollupFor is the rollup (docs/rollups.md, version 1) that covers c's
// query: its metrics as measures, its ungrained dimensions and the fields
// its dimension filters read as dimensions (the metrics its metric filters
// and its order_by keys read as measures too: a sort key names a query
// member or a metric, and only metrics have no dot), its one grained
// dimension as the time dimension (by day for weeks from Sunday). A query with two grained dimensions, a
// grained filter or a join-path choice has no such rollup
// (ErrNotApplicable).
func RollupFor(query []byte) (map[string]any, error) {
	var q struct {
		Metrics    []string          `json:"metrics"`
		Dimensions []json.RawMessage `json:"dimensions"`
		Filters    []struct {
			Field, Metric, Grain, Via string
		} `json:"filters"`
		OrderBy []struct{ Key string } `json:"order_by"`
	}
	if err := json.Unmarshal(query, &q); err != nil {
		return nil, err
	}
	if len(q.Metrics) == 0 {
		return nil, fmt.Errorf("%w: a rollup needs a measure", ErrNotApplicable)
	}
	r := map[string]any{"version": 1, "name": RollupName, "measures": q.Metrics}
	dims := []string{}
	seen := map[string]bool{}
	add := func(f string) {
		if !seen[f] {
			seen[f] = true
			dims = append(dims, f)
		}
	}
	for _, raw := range q.Dimensions {
		var d struct {
			Field, Grain, Via string
			WeekStart         string `json:"week_start"`
		}
		if json.Unmarshal(raw, &d.Field) != nil {
			if err := json.Unmarshal(raw, &d); err != nil {
				return nil, err
			}
		}
		switch {
		case d.Via != "":
			return nil, fmt.Errorf("%w: a rollup keeps no join-path choice (via)", ErrNotApplicable)
		case d.Grain != "" && r["time_dimension"] != nil:
			return nil, fmt.Errorf("%w: a rollup has one time dimension, the query groups by two grains", ErrNotApplicable)
		case d.Grain == "week" && d.WeekStart != "":
			// A rollup's weeks start on Monday; its days nest in any week.
			r["time_dimension"] = map[string]any{"field": d.Field, "grain": "day"}
		case d.Grain != "":
			r["time_dimension"] = map[string]any{"field": d.Field, "grain": d.Grain}
		default:
			add(d.Field)
		}
	}
	for _, f := range q.Filters {
		switch {
		case f.Grain != "" || f.Via != "":
			return nil, fmt.Errorf("%w: a rollup cannot keep a grained or via filter's member", ErrNotApplicable)
		case f.Field != "":
			add(f.Field)
		case f.Metric != "" && !slices.Contains(q.Metrics, f.Metric):
			q.Metrics = append(q.Metrics, f.Metric)
		}
	}
	for _, o := range q.OrderBy {
		if !strings.Contains(o.Key, ".") && !slices.Contains(q.Metrics, o.Key) {
			q.Metrics = append(q.Metrics, o.Key)
		}
	}
	r["measures"] = q.Metrics
	if len(dims) > 0 {
		r["dimensions"] = dims
	}
	return r, nil
}

// WithRollup is the model document with rollup added to the first
// semantic model's OSSIE extension (appended to the rollups it declares),
// written as JSON (a YAML document too).
func WithRollup(model []byte, rollup map[string]any) ([]byte, error) {
	js, err := yaml.YAMLToJSON(model)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	sms, _ := doc["semantic_model"].([]any)
	if len(sms) == 0 {
		return nil, fmt.Errorf("the document has no semantic_model")
	}
	sm := sms[0].(map[string]any)
	exts, _ := sm["custom_extensions"].([]any)
	var ext map[string]any
	for _, e := range exts {
		if m, ok := e.(map[string]any); ok && m["vendor_name"] == "OSSIE" {
			ext = m
		}
	}
	if ext == nil {
		ext = map[string]any{"vendor_name": "OSSIE", "data": "{}"}
		sm["custom_extensions"] = append(exts, ext)
	}
	data := map[string]any{}
	if s, _ := ext["data"].(string); s != "" {
		if err := json.Unmarshal([]byte(s), &data); err != nil {
			return nil, fmt.Errorf("the OSSIE extension's data: %w", err)
		}
	}
	list, _ := data["rollups"].([]any)
	data["rollups"] = append(list, rollup)
	b, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	ext["data"] = string(b)
	return json.MarshalIndent(doc, "", "  ")
}

// RunRollup declares the rollup covering c's query in its model, runs
// `ossiectl query --rollups --explain` (which builds it in the engine as
// the operator does) and checks that EXPLAIN says the rollup answered; a
// planner that declines it (or a rollup the model cannot hold) makes the
// cell not applicable, with the reason. The answer is decoded as -f json.
// A query's total (an HTTP answer option counting the rows, no member a
// rollup must cover; the HTTP cells check it) is left out when the case
// expects an answer, as ossiectl takes none. A COUNT(DISTINCT f) measure
// the rollup refuses for want of f (OSS2054) gets f as one more rollup
// dimension, and the rollup is declared again; so does a field of the
// measures' dataset that the caller's row filter reads when EXPLAIN says
// the rollup lacks it.
func RunRollup(ctx context.Context, c dcase.Case, files Files, p Place) (Outcome, error) {
	_, out, refused, err := coveringRollup(c, files, p)
	if err != nil || refused != nil {
		return deref(refused), err
	}
	res, err := DecodeJSON(out.Bytes())
	if err != nil {
		return Outcome{}, fmt.Errorf("%w\nstdout:\n%s", err, out.String())
	}
	return answer(res), nil
}

// coveringRollup finds the rollup RunRollup declares for c (its loop of
// `ossiectl query --rollups --explain`) and returns it with ossiectl's
// answer, or the refusal of a case that is refused (the rollup is then
// the first one tried).
func coveringRollup(c dcase.Case, files Files, p Place) (map[string]any, bytes.Buffer, *Outcome, error) {
	var out bytes.Buffer
	if hasKey(c.Query, "total") {
		if c.WantCode != "" {
			return nil, out, nil, errNoTotal
		}
		q, err := withoutKey(c.Query, "total")
		if err != nil {
			return nil, out, nil, err
		}
		c.Query = q
	}
	r, err := RollupFor(c.Query)
	if err != nil {
		return nil, out, nil, err
	}
	var stderr string
	for {
		var code int
		if code, out, stderr, err = runWithRollup(c, files, p, r); err != nil {
			return nil, out, nil, err
		}
		if code != ossiectl.ExitOK {
			if strings.Contains(stderr, "OSS205") || strings.Contains(stderr, "--rollups") {
				if f := countedField(stderr); f != "" && addDimension(r, f) {
					continue // the partials of COUNT(DISTINCT f) are f's members
				}
				return nil, out, nil, fmt.Errorf("%w: the rollup is refused: %s", ErrNotApplicable, strings.TrimSpace(stderr))
			}
			o := refusal(stderr)
			return r, out, &o, nil
		}
		if strings.Contains(stderr, "from rollup "+RollupName) || strings.Contains(stderr, "scan rollup "+RollupName) {
			return r, out, nil, nil
		}
		if f := rowFilterField(stderr); f != "" && addDimension(r, f) {
			continue // the caller's row filter then reads the rollup's column
		}
		var why []string
		for _, l := range strings.Split(stderr, "\n") {
			if strings.Contains(l, RollupName) {
				why = append(why, strings.TrimSpace(l))
			}
		}
		return nil, out, nil, fmt.Errorf("%w: the planner did not answer from the rollup: %s", ErrNotApplicable, strings.Join(why, "; "))
	}
}

func deref(o *Outcome) Outcome {
	if o == nil {
		return Outcome{}
	}
	return *o
}

// withoutKey is the query JSON without its top-level key.
func withoutKey(query []byte, key string) ([]byte, error) {
	var q map[string]json.RawMessage
	if err := json.Unmarshal(query, &q); err != nil {
		return nil, err
	}
	delete(q, key)
	return json.Marshal(q)
}

// runWithRollup runs `ossiectl query --rollups --explain` for c with r
// declared in its model: the exit code, stdout and stderr.
func runWithRollup(c dcase.Case, files Files, p Place, r map[string]any) (int, bytes.Buffer, string, error) {
	var out, errb bytes.Buffer
	model, err := WithRollup(c.Model, r)
	if err != nil {
		return 0, out, "", err
	}
	rf := files
	rf.Model = filepath.Join(filepath.Dir(files.Model), "model.rollup.yaml")
	if err := os.WriteFile(rf.Model, model, 0o600); err != nil {
		return 0, out, "", err
	}
	args := append(OssiectlArgs(c, rf, p, "json"), "--rollups", "--explain")
	code := ossiectl.Do(args, strings.NewReader(""), &out, &errb)
	return code, out, errb.String(), nil
}

// countDistinctRe finds the field of a COUNT(DISTINCT field) measure a
// rollup refuses (OSS2054) because it does not keep that field.
var countDistinctRe = regexp.MustCompile(`COUNT\(DISTINCT ([A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*)\) is re-aggregatable only when it counts a field`)

// countedField is the field of the first such refusal in stderr, or "".
func countedField(stderr string) string {
	if m := countDistinctRe.FindStringSubmatch(stderr); m != nil {
		return m[1]
	}
	return ""
}

// rowFilterRe finds, in EXPLAIN, a field of the measures' dataset that the
// caller's row filter reads and the rollup does not keep.
var rowFilterRe = regexp.MustCompile(`the caller's row filter on ([A-Za-z_][A-Za-z0-9_]*) cannot be applied on the rollup's columns \(it reads ([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*), which the rollup does not keep as it is\)`)

// rowFilterField is that field, "" when there is none or it belongs to
// another dataset (which no rollup dimension makes applicable).
func rowFilterField(explain string) string {
	if m := rowFilterRe.FindStringSubmatch(explain); m != nil && m[1] == m[2] {
		return m[2] + "." + m[3]
	}
	return ""
}

// addDimension adds field to r's dimensions; false when r has it
// already (the refusal has another cause, such as a FILTER).
func addDimension(r map[string]any, field string) bool {
	dims, _ := r["dimensions"].([]string)
	if slices.Contains(dims, field) {
		return false
	}
	r["dimensions"] = append(dims, field)
	return true
}
