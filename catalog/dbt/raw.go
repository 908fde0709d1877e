package dbt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// The raw types read one spelling that covers both forms: the project's
// YAML (converted to JSON) and semantic_manifest.json. Where the two
// differ (a filter is a string or list in YAML and {where_filters: [...]}
// in the manifest; a window "7 days" or {count, granularity}; an input a
// name or an object), the flex types accept both. Every key not listed in
// a raw type is kept in its unknown list and reported, never dropped.

type rawFile struct {
	SemanticModels []rawSemanticModel `json:"semantic_models"`
	Metrics        []rawMetric        `json:"metrics"`
	SavedQueries   []struct {
		Name string `json:"name"`
	} `json:"saved_queries"`
}

type rawSemanticModel struct {
	Name          string         `json:"name"`
	Description   flexString     `json:"description"`
	Label         flexString     `json:"label"`
	Model         flexString     `json:"model"`
	NodeRelation  *rawRelation   `json:"node_relation"`
	Defaults      *rawDefaults   `json:"defaults"`
	PrimaryEntity flexString     `json:"primary_entity"`
	Entities      []rawEntity    `json:"entities"`
	Dimensions    []rawDimension `json:"dimensions"`
	Measures      []rawMeasure   `json:"measures"`
	rawMeta
	unknown []string
}

// rawMeta are dbt's own keys: config and meta (reported when set) and
// metadata (the manifest's file location, not needed).
type rawMeta struct {
	Config   json.RawMessage `json:"config"`
	Meta     json.RawMessage `json:"meta"`
	Metadata json.RawMessage `json:"metadata"`
}

// set names the keys of m that carry something.
func (m rawMeta) set() []string { return nonEmpty("config", m.Config, "meta", m.Meta) }

type rawRelation struct {
	Alias        string     `json:"alias"`
	SchemaName   string     `json:"schema_name"`
	Database     flexString `json:"database"`
	RelationName flexString `json:"relation_name"`
}

type rawDefaults struct {
	AggTime flexString `json:"agg_time_dimension"`
}

type rawEntity struct {
	Name        string     `json:"name"`
	Type        string     `json:"type"`
	Expr        flexString `json:"expr"`
	Description flexString `json:"description"`
	Label       flexString `json:"label"`
	Role        flexString `json:"role"`
	rawMeta
	unknown []string
}

type rawDimension struct {
	Name        string        `json:"name"`
	Type        string        `json:"type"`
	Expr        flexString    `json:"expr"`
	Description flexString    `json:"description"`
	Label       flexString    `json:"label"`
	IsPartition bool          `json:"is_partition"`
	TypeParams  *rawDimParams `json:"type_params"`
	rawMeta
	unknown []string
}

type rawDimParams struct {
	TimeGranularity flexString      `json:"time_granularity"`
	ValidityParams  json.RawMessage `json:"validity_params"`
	unknown         []string
}

type rawMeasure struct {
	Name         string          `json:"name"`
	Agg          string          `json:"agg"`
	Expr         flexString      `json:"expr"`
	Description  flexString      `json:"description"`
	Label        flexString      `json:"label"`
	CreateMetric bool            `json:"create_metric"`
	AggTime      flexString      `json:"agg_time_dimension"`
	AggParams    *rawAggParams   `json:"agg_params"`
	NonAdditive  *rawNonAdditive `json:"non_additive_dimension"`
	rawMeta
	unknown []string
}

type rawAggParams struct {
	Percentile  *float64 `json:"percentile"`
	Discrete    bool     `json:"use_discrete_percentile"`
	Approximate bool     `json:"use_approximate_percentile"`
	unknown     []string
}

type rawNonAdditive struct {
	Name            string   `json:"name"`
	WindowChoice    string   `json:"window_choice"`
	WindowGroupings []string `json:"window_groupings"`
	unknown         []string
}

type rawMetric struct {
	Name            string        `json:"name"`
	Type            string        `json:"type"`
	Description     flexString    `json:"description"`
	Label           flexString    `json:"label"`
	Filter          flexFilter    `json:"filter"`
	TypeParams      rawTypeParams `json:"type_params"`
	TimeGranularity flexString    `json:"time_granularity"`
	rawMeta
	unknown []string
}

type rawTypeParams struct {
	Measure       *flexInput      `json:"measure"`
	Numerator     *flexInput      `json:"numerator"`
	Denominator   *flexInput      `json:"denominator"`
	Expr          flexString      `json:"expr"`
	Metrics       []flexInput     `json:"metrics"`
	Window        *flexWindow     `json:"window"`
	GrainToDate   flexString      `json:"grain_to_date"`
	Cumulative    *rawCumulative  `json:"cumulative_type_params"`
	Conversion    *rawConversion  `json:"conversion_type_params"`
	InputMeasures json.RawMessage `json:"input_measures"` // derived by dbt from the rest
	unknown       []string
}

type rawCumulative struct {
	Window      *flexWindow `json:"window"`
	GrainToDate flexString  `json:"grain_to_date"`
	PeriodAgg   flexString  `json:"period_agg"`
	unknown     []string
}

type rawConversion struct {
	Entity             string            `json:"entity"`
	Calculation        flexString        `json:"calculation"`
	BaseMeasure        *flexInput        `json:"base_measure"`
	ConversionMeasure  *flexInput        `json:"conversion_measure"`
	Window             *flexWindow       `json:"window"`
	ConstantProperties []json.RawMessage `json:"constant_properties"`
	unknown            []string
}

// Each raw type collects the keys it does not know.
func (r *rawSemanticModel) UnmarshalJSON(b []byte) error {
	type plain rawSemanticModel
	return decodeKnown(b, (*plain)(r), &r.unknown)
}
func (r *rawEntity) UnmarshalJSON(b []byte) error {
	type plain rawEntity
	return decodeKnown(b, (*plain)(r), &r.unknown)
}
func (r *rawDimension) UnmarshalJSON(b []byte) error {
	type plain rawDimension
	return decodeKnown(b, (*plain)(r), &r.unknown)
}
func (r *rawDimParams) UnmarshalJSON(b []byte) error {
	type plain rawDimParams
	return decodeKnown(b, (*plain)(r), &r.unknown)
}
func (r *rawMeasure) UnmarshalJSON(b []byte) error {
	type plain rawMeasure
	return decodeKnown(b, (*plain)(r), &r.unknown)
}
func (r *rawAggParams) UnmarshalJSON(b []byte) error {
	type plain rawAggParams
	return decodeKnown(b, (*plain)(r), &r.unknown)
}
func (r *rawNonAdditive) UnmarshalJSON(b []byte) error {
	type plain rawNonAdditive
	return decodeKnown(b, (*plain)(r), &r.unknown)
}
func (r *rawMetric) UnmarshalJSON(b []byte) error {
	type plain rawMetric
	return decodeKnown(b, (*plain)(r), &r.unknown)
}
func (r *rawTypeParams) UnmarshalJSON(b []byte) error {
	type plain rawTypeParams
	return decodeKnown(b, (*plain)(r), &r.unknown)
}
func (r *rawCumulative) UnmarshalJSON(b []byte) error {
	type plain rawCumulative
	return decodeKnown(b, (*plain)(r), &r.unknown)
}
func (r *rawConversion) UnmarshalJSON(b []byte) error {
	type plain rawConversion
	return decodeKnown(b, (*plain)(r), &r.unknown)
}

// decodeKnown decodes b into v (a pointer to a struct) and sets *unknown
// to the sorted keys of b that no json tag of v names. null decodes to
// the zero value.
func decodeKnown(b []byte, v any, unknown *[]string) error {
	if string(bytes.TrimSpace(b)) == "null" {
		return nil
	}
	if err := json.Unmarshal(b, v); err != nil {
		return err
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return err
	}
	known := map[string]bool{}
	t := reflect.TypeOf(v).Elem()
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous { // rawMeta
			for j := range f.Type.NumField() {
				name, _, _ := strings.Cut(f.Type.Field(j).Tag.Get("json"), ",")
				known[name] = true
			}
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		known[name] = true
	}
	for k := range keys {
		if !known[k] {
			*unknown = append(*unknown, k)
		}
	}
	slices.Sort(*unknown)
	return nil
}

// flexString reads a string, a number or a boolean as text (YAML writes
// `expr: 1` and `expr: true` unquoted); null is "".
type flexString string

func (s *flexString) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch x := v.(type) {
	case nil:
		*s = ""
	case string:
		*s = flexString(x)
	case float64:
		*s = flexString(strconv.FormatFloat(x, 'f', -1, 64))
	case bool:
		*s = flexString(strconv.FormatBool(x))
	default:
		return fmt.Errorf("want a string, got %s", b)
	}
	return nil
}

// flexFilter is a where-clause list: a string or a list of strings (YAML)
// or {where_filters: [{where_sql_template}]} (manifest).
type flexFilter []string

func (f *flexFilter) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch x := v.(type) {
	case nil:
		*f = nil
	case string:
		*f = flexFilter{x}
	case []any:
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return fmt.Errorf("a filter list holds strings, got %v", e)
			}
			*f = append(*f, s)
		}
	case map[string]any:
		var m struct {
			WhereFilters []struct {
				Template string `json:"where_sql_template"`
			} `json:"where_filters"`
		}
		if err := json.Unmarshal(b, &m); err != nil {
			return err
		}
		for _, w := range m.WhereFilters {
			*f = append(*f, w.Template)
		}
	default:
		return fmt.Errorf("a filter is a string, a list or {where_filters: [...]}, got %s", b)
	}
	return nil
}

// flexWindow is "7 days" (YAML) or {count, granularity} (manifest).
type flexWindow struct{ Window }

func (w *flexWindow) UnmarshalJSON(b []byte) error {
	var text string
	if err := json.Unmarshal(b, &text); err == nil {
		win, err := parseWindow(text)
		if err != nil {
			return err
		}
		w.Window = win
		return nil
	}
	var m struct {
		Count       int    `json:"count"`
		Granularity string `json:"granularity"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("a window is \"<count> <unit>\" or {count, granularity}, got %s", b)
	}
	w.Window = Window{Count: m.Count, Unit: singularUnit(m.Granularity)}
	return nil
}

// parseWindow reads "7 days", "1 month", "2 weeks".
func parseWindow(text string) (Window, error) {
	parts := strings.Fields(text)
	if len(parts) != 2 {
		return Window{}, fmt.Errorf("window %q is not \"<count> <unit>\"", text)
	}
	n, err := strconv.Atoi(parts[0])
	if err != nil || n < 1 {
		return Window{}, fmt.Errorf("window %q: count must be a positive integer", text)
	}
	return Window{Count: n, Unit: singularUnit(parts[1])}, nil
}

func singularUnit(u string) string {
	u = strings.ToLower(strings.TrimSpace(u))
	return strings.TrimSuffix(u, "s")
}

// flexInput is an input measure or metric: a name, or an object.
type flexInput struct {
	Name            string      `json:"name"`
	Alias           flexString  `json:"alias"`
	Filter          flexFilter  `json:"filter"`
	OffsetWindow    *flexWindow `json:"offset_window"`
	OffsetToGrain   flexString  `json:"offset_to_grain"`
	JoinToTimespine bool        `json:"join_to_timespine"`
	FillNullsWith   *float64    `json:"fill_nulls_with"`
	unknown         []string
}

func (in *flexInput) UnmarshalJSON(b []byte) error {
	var name string
	if err := json.Unmarshal(b, &name); err == nil {
		*in = flexInput{Name: name}
		return nil
	}
	type plain flexInput
	return decodeKnown(b, (*plain)(in), &in.unknown)
}

func (in *flexInput) input() *Input {
	if in == nil {
		return nil
	}
	out := &Input{Name: in.Name, Alias: string(in.Alias), Filter: in.Filter, OffsetToGrain: string(in.OffsetToGrain), Unread: in.unknown}
	if in.OffsetWindow != nil {
		w := in.OffsetWindow.Window
		out.OffsetWindow = &w
	}
	if in.JoinToTimespine {
		out.Unread = append(out.Unread, "join_to_timespine")
	}
	if in.FillNullsWith != nil {
		out.Unread = append(out.Unread, "fill_nulls_with")
	}
	return out
}
