package differential

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"strconv"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"           // database/sql driver "pgx"
	_ "github.com/trinodb/trino-go-client/trino" // database/sql driver "trino"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/views"
	"github.com/ossie-dev/ossie/server/load"
	"github.com/ossie-dev/ossie/test/differential/dcase"
)

// ViewRole is the role a governed view of an ungoverned case is planned
// under: a governance with this one role and no restrictions, which reads
// what an ungoverned caller reads.
const ViewRole = "differential_reader"

// ViewSpec is the spec.views entry a case's query stands for, with the
// governance it is planned under, or ErrNotApplicable when the query has
// no view's shape: a view is metrics, dimensions (field, grain,
// week_start), filters (field or metric, grain, op, values) and a
// timezone, planned under one role whose row filters read no caller
// attribute (a via is written field@relationship); limit and offset have
// no view form. An
// order without a limit is dropped: a view's rows have no order, and the
// cell compares them as a multiset.
func ViewSpec(c dcase.Case) (*v1alpha1.SemanticModelSpec, error) {
	var q struct {
		Metrics    []string          `json:"metrics"`
		Dimensions []json.RawMessage `json:"dimensions"`
		Filters    []json.RawMessage `json:"filters"`
		Timezone   string            `json:"timezone"`
		OrderBy    json.RawMessage   `json:"order_by"`
	}
	dec := json.NewDecoder(bytes.NewReader(c.Query))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&q); err != nil {
		return nil, fmt.Errorf("%w: a view has no %v", ErrNotApplicable, err)
	}
	if len(q.Metrics) == 0 {
		return nil, fmt.Errorf("%w: a view needs a metric", ErrNotApplicable)
	}
	v := v1alpha1.View{Name: "differential_view", Model: c.ModelName, Metrics: q.Metrics, Timezone: q.Timezone}
	// A via is written field@relationship in a view (compiler/views).
	for _, d := range q.Dimensions {
		var vd struct {
			v1alpha1.ViewDimension
			Via string `json:"via"`
		}
		if err := json.Unmarshal(d, &vd.Field); err != nil {
			dd := json.NewDecoder(bytes.NewReader(d))
			dd.DisallowUnknownFields()
			if err := dd.Decode(&vd); err != nil {
				return nil, fmt.Errorf("%w: a view dimension has no %v", ErrNotApplicable, err)
			}
		}
		if vd.Via != "" {
			vd.Field += "@" + vd.Via
		}
		v.Dimensions = append(v.Dimensions, vd.ViewDimension)
	}
	for _, f := range q.Filters {
		var raw struct {
			v1alpha1.ViewFilter
			Value json.RawMessage `json:"value"`
			Via   string          `json:"via"`
		}
		fd := json.NewDecoder(bytes.NewReader(f))
		fd.DisallowUnknownFields()
		if err := fd.Decode(&raw); err != nil {
			return nil, fmt.Errorf("%w: a view filter has no %v", ErrNotApplicable, err)
		}
		vf := raw.ViewFilter
		if raw.Via != "" {
			vf.Field += "@" + raw.Via
		}
		if raw.Value != nil {
			vf.Values = append(vf.Values, apiJSON(raw.Value))
		}
		v.Filters = append(v.Filters, vf)
	}
	spec := &v1alpha1.SemanticModelSpec{Views: []v1alpha1.View{v}}
	gov := c.Governance
	switch {
	case c.Caller == nil:
		gov = []byte("roles:\n  - name: " + ViewRole + "\n")
		v.Role = ViewRole
	case len(c.Caller.Roles) != 1:
		return nil, fmt.Errorf("%w: a view is planned under one role, the caller has %d", ErrNotApplicable, len(c.Caller.Roles))
	case len(c.Caller.Attributes) > 0:
		return nil, fmt.Errorf("%w: a view has no caller attributes", ErrNotApplicable)
	default:
		v.Role = c.Caller.Roles[0]
	}
	spec.Views[0] = v
	js, err := yaml.YAMLToJSON(gov)
	if err != nil {
		return nil, err
	}
	spec.Governance = &ossie.Governance{}
	if err := json.Unmarshal(js, spec.Governance); err != nil {
		return nil, err
	}
	for _, r := range spec.Governance.Roles {
		for _, rf := range r.RowFilters {
			if r.Name == v.Role && strings.Contains(rf.Expression, "{{") {
				// Refused as a view (OSS2017) even when the caller has no
				// attribute and the query answers with no rows.
				return nil, fmt.Errorf("%w: the role's row filters read caller attributes, which a view has not", ErrNotApplicable)
			}
		}
	}
	return spec, nil
}

// RunView plans c's query as a governed view under the caller's role with
// the operator's planner (compiler/views.PlanSpec, on the artifacts the
// operator publishes: bound to the engine, bindAsOperator), creates it in the case's schema on the engine, and
// reads SELECT * FROM it through the engine's own database/sql driver;
// values are typed by want's columns (the driver's types are the
// engine's, not Ossie's).
func RunView(ctx context.Context, c dcase.Case, files Files, p Place) (Outcome, error) {
	spec, err := ViewSpec(c)
	if err != nil {
		return Outcome{}, err
	}
	gov := files.Governance
	if c.Caller == nil {
		gov = files.Model + ".view-governance.yaml"
		if err := os.WriteFile(gov, []byte("roles:\n  - name: "+ViewRole+"\n"), 0o600); err != nil {
			return Outcome{}, err
		}
	}
	arts, err := load.GovernedModels([]string{files.Model}, gov, compiler.CompileOptions{DefaultSchema: p.Schema, DefaultCatalog: p.Catalog})
	if err != nil {
		return refusal(err.Error()), nil
	}
	arts, o, err := bindAsOperator(ctx, p, arts)
	if err != nil {
		return Outcome{}, err
	}
	if o != nil {
		return *o, nil
	}
	d := map[string]dialect.Dialect{DuckDB: dialect.DuckDB, Postgres: dialect.Postgres, Trino: dialect.Trino}[p.Engine]
	plans, probs := views.PlanSpec(spec, arts, d)
	if probs.HasErrors() {
		return refusal(probs.Error()), nil
	}
	db, err := openDB(p)
	if err != nil {
		return Outcome{}, err
	}
	defer db.Close()
	name := qualified(p.Catalog, p.Schema, "differential_view")
	if _, err := db.ExecContext(ctx, "CREATE VIEW "+name+" AS "+plans[0].SQL); err != nil {
		return Outcome{}, fmt.Errorf("creating the view: %w\n%s", err, plans[0].SQL)
	}
	defer db.ExecContext(context.WithoutCancel(ctx), "DROP VIEW "+name)
	rows, err := db.QueryContext(ctx, "SELECT * FROM "+name)
	if err != nil {
		return refusal(err.Error()), nil
	}
	defer rows.Close()
	return scanRows(rows, c.Want)
}

// openDB opens p's engine with its database/sql driver.
func openDB(p Place) (*sql.DB, error) {
	switch p.Engine {
	case DuckDB:
		return sql.Open("duckdb", p.DuckDBPath)
	case Postgres:
		return sql.Open("pgx", p.DSN)
	case Trino:
		return sql.Open("trino", p.DSN)
	}
	return nil, fmt.Errorf("no engine %q", p.Engine)
}

// scanRows reads rows as dcase values typed by want's columns (by name).
func scanRows(rows *sql.Rows, want *dcase.Result) (Outcome, error) {
	names, err := rows.Columns()
	if err != nil {
		return Outcome{}, err
	}
	types := wantTypes(want)
	var res dcase.Result
	for _, n := range names {
		res.Columns = append(res.Columns, dcase.ResultColumn{Name: n})
	}
	for rows.Next() {
		vals := make([]any, len(names))
		ptrs := make([]any, len(names))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return Outcome{}, err
		}
		row := make([]any, len(names))
		for i, v := range vals {
			if row[i], err = driverValue(types[names[i]], v); err != nil {
				return Outcome{}, fmt.Errorf("column %s: %w", names[i], err)
			}
		}
		res.Rows = append(res.Rows, row)
	}
	if err := rows.Err(); err != nil {
		return refusal(err.Error()), nil
	}
	return answer(res), nil
}

// driverValue converts a database/sql driver's value to a dcase value of
// datatype: the drivers hand numbers as int64, float64, text or their own
// decimal type, temporal values as time.Time.
func driverValue(datatype string, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	if b, ok := v.([]byte); ok {
		v = string(b)
	}
	text := func() string {
		if s, ok := v.(fmt.Stringer); ok {
			return s.String()
		}
		return fmt.Sprint(v)
	}
	switch datatype {
	case "Integer":
		switch x := v.(type) {
		case int64:
			return x, nil
		case int32:
			return int64(x), nil
		case *big.Int:
			if x.IsInt64() {
				return x.Int64(), nil
			}
		}
		return strconv.ParseInt(text(), 10, 64)
	case "Float", "Decimal":
		switch x := v.(type) {
		case float64:
			return x, nil
		case float32:
			return float64(x), nil
		case int64:
			return float64(x), nil
		case interface{ Float64() float64 }:
			return x.Float64(), nil
		}
		return strconv.ParseFloat(text(), 64)
	case "Boolean":
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case "String":
		if s, ok := v.(string); ok {
			return s, nil
		}
	case "Date", "DateTime":
		if t, ok := v.(time.Time); ok {
			return wall(t), nil
		}
		if s, ok := v.(string); ok {
			return parseTime(datatype, s)
		}
	case "DateTimeTz":
		if t, ok := v.(time.Time); ok {
			return t.UTC(), nil
		}
	case "": // no expected type (the case wants a refusal): shown as read
		return v, nil
	}
	return nil, fmt.Errorf("%s value %T %v", datatype, v, v)
}

func apiJSON(raw json.RawMessage) apiextensionsv1.JSON { return apiextensionsv1.JSON{Raw: raw} }
