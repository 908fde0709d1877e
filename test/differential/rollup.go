package differential

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
// read as measures too), its one grained dimension as
// the time dimension. A query with two grained dimensions, a grained
// filter or a join-path choice has no such rollup (ErrNotApplicable).
func RollupFor(query []byte) (map[string]any, error) {
	var q struct {
		Metrics    []string          `json:"metrics"`
		Dimensions []json.RawMessage `json:"dimensions"`
		Filters    []struct {
			Field, Metric, Grain, Via string
		} `json:"filters"`
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
		var d struct{ Field, Grain, Via, WeekStart string }
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
// cell not applicable, with the reason. A governed caller is refused the
// plan (OSS5007): its answer is checked without --explain. The answer is
// decoded as -f json.
func RunRollup(ctx context.Context, c dcase.Case, files Files, p Place) (Outcome, error) {
	if hasKey(c.Query, "total") {
		return Outcome{}, errNoTotal
	}
	r, err := RollupFor(c.Query)
	if err != nil {
		return Outcome{}, err
	}
	model, err := WithRollup(c.Model, r)
	if err != nil {
		return Outcome{}, err
	}
	rf := files
	rf.Model = filepath.Join(filepath.Dir(files.Model), "model.rollup.yaml")
	if err := os.WriteFile(rf.Model, model, 0o600); err != nil {
		return Outcome{}, err
	}
	args := append(OssiectlArgs(c, rf, p, "json"), "--rollups", "--explain")
	var out, errb bytes.Buffer
	code := ossiectl.Do(args, strings.NewReader(""), &out, &errb)
	stderr := errb.String()
	if code != ossiectl.ExitOK && c.Caller != nil && strings.Contains(stderr, "OSS5007") {
		// A governed caller is never shown the plan (it names the row
		// filters and masks): the answer with the rollup built is still
		// checked, though nothing proves the rollup answered it.
		out.Reset()
		errb.Reset()
		if code = ossiectl.Do(args[:len(args)-1], strings.NewReader(""), &out, &errb); code != ossiectl.ExitOK {
			return refusal(errb.String()), nil
		}
		res, err := DecodeJSON(out.Bytes())
		if err != nil {
			return Outcome{}, fmt.Errorf("%w\nstdout:\n%s", err, out.String())
		}
		return answer(res), nil
	}
	if code != ossiectl.ExitOK {
		if strings.Contains(stderr, "OSS205") || strings.Contains(stderr, "--rollups") {
			return Outcome{}, fmt.Errorf("%w: the rollup is refused: %s", ErrNotApplicable, strings.TrimSpace(stderr))
		}
		return refusal(stderr), nil
	}
	if !strings.Contains(stderr, "from rollup "+RollupName) && !strings.Contains(stderr, "scan rollup "+RollupName) {
		var why []string
		for _, l := range strings.Split(stderr, "\n") {
			if strings.Contains(l, RollupName) {
				why = append(why, strings.TrimSpace(l))
			}
		}
		return Outcome{}, fmt.Errorf("%w: the planner did not answer from the rollup: %s", ErrNotApplicable, strings.Join(why, "; "))
	}
	res, err := DecodeJSON(out.Bytes())
	if err != nil {
		return Outcome{}, fmt.Errorf("%w\nstdout:\n%s", err, out.String())
	}
	return answer(res), nil
}
