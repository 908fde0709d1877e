package dbt

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/ossie-dev/ossie/api/ossie"
)

// allMetrics maps every dbt metric, then every measure whose name no dbt
// metric takes, onto Ossie metrics (docs/dbt.md, "Metrics").
func (im *importer) allMetrics() []ossie.Metric {
	var out []ossie.Metric
	taken := map[string]bool{}
	for i := range im.p.Metrics {
		m := &im.p.Metrics[i]
		for _, k := range m.Unread {
			im.skip(m.Path, "%s is not mapped", k)
		}
		if taken[m.Name] {
			im.skip(m.Path, "a second metric named %q is not imported", m.Name)
			continue
		}
		om, err := im.metric(m)
		if err != nil {
			im.skip(m.Path, "%v", err)
			continue
		}
		taken[m.Name] = true
		im.origin[m.Name] = m.Path
		out = append(out, om...)
		for _, x := range om[1:] {
			taken[x.Name] = true
			im.origin[x.Name] = m.Path
		}
	}
	for _, mi := range im.models {
		for j := range mi.sm.Measures {
			ms := &mi.sm.Measures[j]
			info := im.measures[ms.Name]
			if info == nil || info.model != mi || taken[ms.Name] {
				continue
			}
			expr, ext, err := im.measureAggregate(info, nil)
			if err != nil {
				im.skip(info.path, "%v", err)
				continue
			}
			taken[ms.Name] = true
			im.origin[ms.Name] = info.path
			om := ossie.Metric{Name: ms.Name, Expression: plain(expr), Description: ms.Description, AIContext: labelContext(ms.Label)}
			if ext != nil {
				om.CustomExtensions = []ossie.CustomExtension{typed(ext)}
			}
			out = append(out, om)
		}
	}
	return out
}

// typed is the OSSIE extension carrying a metric type (docs/metrics.md).
func typed(params map[string]any) ossie.CustomExtension {
	params["version"] = 1
	data, _ := json.Marshal(map[string]any{"metric": params})
	return ossie.CustomExtension{VendorName: "OSSIE", Data: string(data)}
}

// metric maps one dbt metric. It returns the metric and any helper
// metrics it needs (a derived metric's offset inputs).
func (im *importer) metric(m *Metric) ([]ossie.Metric, error) {
	om := ossie.Metric{Name: m.Name, Description: m.Description, AIContext: labelContext(m.Label)}
	var extra []ossie.Metric
	switch m.Type {
	case "simple":
		_, expr, ext, err := im.measureOf(m, nil)
		if err != nil {
			return nil, err
		}
		om.Expression = plain(expr)
		if ext != nil {
			om.CustomExtensions = []ossie.CustomExtension{typed(ext)}
		}
	case "ratio":
		if m.Numerator == nil || m.Denominator == nil {
			return nil, fmt.Errorf("a ratio metric needs numerator and denominator")
		}
		num, err := im.ref(*m.Numerator, m.Filter)
		if err != nil {
			return nil, fmt.Errorf("numerator: %v", err)
		}
		den, err := im.ref(*m.Denominator, m.Filter)
		if err != nil {
			return nil, fmt.Errorf("denominator: %v", err)
		}
		om.Expression, om.Datatype = plain(num+" / "+den), ossie.TypeFloat
	case "derived":
		expr, helpers, err := im.derived(m, nil)
		if err != nil {
			return nil, err
		}
		om.Expression, extra = plain(expr), helpers
	case "cumulative":
		info, expr, ext, err := im.measureOf(m, nil)
		if err != nil {
			return nil, err
		}
		if ext != nil {
			return nil, fmt.Errorf("a cumulative metric over the non-additive measure %s cannot be expressed (a window over a semi-additive value)", info.m.Name)
		}
		params, err := cumulativeParams(m)
		if err != nil {
			return nil, err
		}
		om.Expression, om.CustomExtensions = plain(expr), []ossie.CustomExtension{typed(params)}
	case "conversion":
		expr, params, err := im.conversion(m)
		if err != nil {
			return nil, err
		}
		// A rate is a Float, a count of converted entities an Integer
		// (docs/metrics.md, "Conversion metrics").
		dt := ossie.TypeFloat
		if params["calculation"] == "conversions" {
			dt = ossie.TypeInteger
		}
		om.Expression, om.Datatype, om.CustomExtensions = plain(expr), dt, []ossie.CustomExtension{typed(params)}
	default:
		return nil, fmt.Errorf("metric type %q is not one of simple, ratio, derived, cumulative, conversion", m.Type)
	}
	return append([]ossie.Metric{om}, extra...), nil
}

// measureOf is the aggregate of the measure of a simple or cumulative
// metric under the metric's filter, the measure's input filter and extra.
func (im *importer) measureOf(m *Metric, extra []string) (*measureInfo, string, map[string]any, error) {
	info, err := im.inputMeasure(m.Measure)
	if err != nil {
		return nil, "", nil, err
	}
	expr, ext, err := im.measureAggregate(info, concat(concat(m.Filter, m.Measure.Filter), extra))
	return info, expr, ext, err
}

func concat(a, b []string) []string { return append(slices.Clone(a), b...) }

func (im *importer) inputMeasure(in *Input) (*measureInfo, error) {
	if in == nil || in.Name == "" {
		return nil, fmt.Errorf("type_params.measure is missing")
	}
	if len(in.Unread) > 0 {
		return nil, fmt.Errorf("measure %s: %s not mapped", in.Name, strings.Join(in.Unread, ", "))
	}
	info := im.measures[in.Name]
	if info == nil {
		return nil, fmt.Errorf("measure %q is not defined by any imported semantic model", in.Name)
	}
	return info, nil
}

// aggTime is the time dimension of a measure: its own agg_time_dimension,
// else its semantic model's default.
func (info *measureInfo) aggTime() string {
	if info.m.AggTime != "" {
		return info.m.AggTime
	}
	return info.model.sm.AggTime
}

// measureAggregate is the aggregate of a measure under the given filters
// (an aggregate FILTER (WHERE ...)), and the metric type parameters when
// the measure is non-additive (a semi_additive metric).
func (im *importer) measureAggregate(info *measureInfo, filters []string) (string, map[string]any, error) {
	ms, ref := info.m, info.model.name+"."+info.field
	var agg string
	switch ms.Agg {
	case "sum":
		agg = "SUM(" + ref + ")"
	case "sum_boolean":
		agg = "SUM(CASE WHEN " + ref + " THEN 1 ELSE 0 END)"
	case "count":
		agg = "COUNT(" + ref + ")"
	case "count_distinct":
		agg = "COUNT(DISTINCT " + ref + ")"
	case "max":
		agg = "MAX(" + ref + ")"
	case "min":
		agg = "MIN(" + ref + ")"
	case "average", "avg":
		agg = "AVG(" + ref + ")"
	case "median":
		agg = "MEDIAN(" + ref + ")"
	case "percentile":
		if ms.Approximate {
			agg = fmt.Sprintf("APPROX_PERCENTILE(%s, %g)", ref, ms.Percentile)
		} else if ms.Discrete {
			agg = fmt.Sprintf("PERCENTILE_DISC(%g) WITHIN GROUP (ORDER BY %s)", ms.Percentile, ref)
		} else {
			agg = fmt.Sprintf("PERCENTILE_CONT(%g) WITHIN GROUP (ORDER BY %s)", ms.Percentile, ref)
		}
	default:
		return "", nil, fmt.Errorf("measure %s: agg %q has no Ossie aggregate", ms.Name, ms.Agg)
	}
	if len(filters) > 0 {
		cond, err := im.translateFilter(filters, info.model, info.aggTime())
		if err != nil {
			return "", nil, err
		}
		if strings.HasPrefix(agg, "PERCENTILE_") {
			return "", nil, fmt.Errorf("a filter on the percentile measure %s cannot be expressed (FILTER applies to plain aggregates)", ms.Name)
		}
		agg += " FILTER (WHERE " + cond + ")"
	}
	na := ms.NonAdditive
	if na == nil {
		return agg, nil, nil
	}
	if len(na.WindowGroupings) > 0 {
		return "", nil, fmt.Errorf("measure %s: non_additive_dimension.window_groupings (%s) have no Ossie equivalent (a semi-additive metric picks per group of the query, not per entity)", ms.Name, strings.Join(na.WindowGroupings, ", "))
	}
	d, ok := info.model.dims[na.Name]
	if !ok || d.grain == "" {
		return "", nil, fmt.Errorf("measure %s: non_additive_dimension %q is not a time dimension of %s", ms.Name, na.Name, info.model.name)
	}
	pick := map[string]string{"min": "first", "max": "last", "": "last"}[na.WindowChoice]
	if pick == "" {
		return "", nil, fmt.Errorf("measure %s: window_choice %q is not min or max", ms.Name, na.WindowChoice)
	}
	return agg, map[string]any{"type": "semi_additive", "along": info.model.name + "." + d.field, "pick": pick}, nil
}

// ref is an input metric of a ratio or derived metric under extra
// filters: its name when nothing filters it, else its definition inlined
// with the filters applied to every aggregate in it.
func (im *importer) ref(in Input, filters []string) (string, error) {
	if len(in.Unread) > 0 {
		return "", fmt.Errorf("input %s: %s not mapped", in.Name, strings.Join(in.Unread, ", "))
	}
	if in.OffsetWindow != nil || in.OffsetToGrain != "" {
		return "", fmt.Errorf("input %s: offset_window and offset_to_grain are mapped only on derived metric inputs", in.Name)
	}
	all := concat(filters, in.Filter)
	if len(all) == 0 {
		if im.metrics[in.Name] == nil {
			return "", fmt.Errorf("metric %q is not defined", in.Name)
		}
		return in.Name, nil
	}
	s, err := im.inline(in.Name, all, 0)
	if err != nil {
		return "", err
	}
	return "(" + s + ")", nil
}

// inline is the definition of metric name with filters applied to each of
// its aggregates: possible for simple metrics and for ratio and derived
// metrics over them, not for cumulative or conversion metrics (typed
// metrics cannot be inlined into another metric).
func (im *importer) inline(name string, filters []string, depth int) (string, error) {
	m := im.metrics[name]
	if m == nil {
		return "", fmt.Errorf("metric %q is not defined", name)
	}
	if depth > 20 {
		return "", fmt.Errorf("metric %q: inputs nested too deeply (a cycle?)", name)
	}
	switch m.Type {
	case "simple":
		_, expr, ext, err := im.measureOf(m, filters)
		if err != nil {
			return "", err
		}
		if ext != nil {
			return "", fmt.Errorf("metric %s is semi-additive and cannot be filtered inside another metric", name)
		}
		return expr, nil
	case "ratio":
		num, err := im.inline(m.Numerator.Name, concat(concat(m.Filter, m.Numerator.Filter), filters), depth+1)
		if err != nil {
			return "", err
		}
		den, err := im.inline(m.Denominator.Name, concat(concat(m.Filter, m.Denominator.Filter), filters), depth+1)
		if err != nil {
			return "", err
		}
		return "(" + num + ") / (" + den + ")", nil
	case "derived":
		expr, helpers, err := im.derived(m, filters)
		if err != nil {
			return "", err
		}
		if len(helpers) > 0 {
			return "", fmt.Errorf("metric %s uses an offset and cannot be filtered inside another metric", name)
		}
		return expr, nil
	}
	return "", fmt.Errorf("a filter on the %s metric %s used inside another metric cannot be expressed (a typed metric is referenced by name only)", m.Type, name)
}

// identifier matches names in a derived expression; quoted strings are
// skipped by substitute.
var identifier = regexp.MustCompile(`'(?:[^']|'')*'|"[^"]*"|[A-Za-z_][A-Za-z0-9_]*`)

// derived is the expression of a derived metric: its inputs (by alias or
// name) replaced by their references, under extra filters when inlined.
// An input with offset_window "1 year" becomes a helper metric
// <input>_prior_year of type period_over_period (prior_year, value);
// other offsets cannot be mapped.
func (im *importer) derived(m *Metric, filters []string) (string, []ossie.Metric, error) {
	if m.Expr == "" {
		return "", nil, fmt.Errorf("a derived metric needs type_params.expr")
	}
	subst := map[string]string{}
	var helpers []ossie.Metric
	for _, in := range m.Inputs {
		key := in.Name
		if in.Alias != "" {
			key = in.Alias
		}
		if in.OffsetToGrain != "" {
			return "", nil, fmt.Errorf("input %s: offset_to_grain (%s) has no Ossie equivalent", in.Name, in.OffsetToGrain)
		}
		if w := in.OffsetWindow; w != nil {
			if w.Count != 1 || w.Unit != "year" {
				return "", nil, fmt.Errorf("input %s: offset_window %d %s has no Ossie equivalent (only 1 year maps, to period_over_period prior_year)", in.Name, w.Count, w.Unit)
			}
			if len(filters) > 0 || len(in.Filter) > 0 || len(m.Filter) > 0 {
				return "", nil, fmt.Errorf("input %s: a filter on an offset input cannot be expressed", in.Name)
			}
			if im.metrics[in.Name] == nil {
				return "", nil, fmt.Errorf("metric %q is not defined", in.Name)
			}
			name := in.Name + "_prior_year"
			helpers = append(helpers, ossie.Metric{Name: name, Expression: plain(in.Name),
				Description:      "The value of " + in.Name + " in the same period a year earlier (dbt offset_window 1 year in metric " + m.Name + ").",
				CustomExtensions: []ossie.CustomExtension{typed(map[string]any{"type": "period_over_period", "offset": "prior_year", "output": "value"})}})
			subst[key] = name
			continue
		}
		in.OffsetWindow = nil
		r, err := im.ref(in, concat(m.Filter, filters))
		if err != nil {
			return "", nil, err
		}
		subst[key] = r
	}
	var missing []string
	out := identifier.ReplaceAllStringFunc(m.Expr, func(tok string) string {
		if tok[0] == '\'' || tok[0] == '"' {
			return tok
		}
		if r, ok := subst[tok]; ok {
			return r
		}
		if im.metrics[tok] != nil {
			missing = append(missing, tok)
		}
		return tok
	})
	if len(missing) > 0 {
		return "", nil, fmt.Errorf("expr names %s, which type_params.metrics does not list", strings.Join(missing, ", "))
	}
	if len(filters) > 0 {
		out = "(" + out + ")"
	}
	return out, helpers, nil
}

// ossieUnits are the window units Ossie's metric types take.
var ossieUnits = map[string]bool{"hour": true, "day": true, "week": true, "month": true, "quarter": true, "year": true}

// cumulativeParams maps window / grain_to_date onto Ossie's rolling and
// cumulative types.
func cumulativeParams(m *Metric) (map[string]any, error) {
	// At a grain coarser than the time dimension's own, Ossie's value of a
	// period is the window at the period's end (dbt's period_agg: last);
	// first (dbt's default) agrees at the time dimension's own grain
	// (docs/dbt.md), average has no counterpart.
	if m.PeriodAgg != "" && m.PeriodAgg != "first" && m.PeriodAgg != "last" {
		return nil, fmt.Errorf("period_agg %q has no Ossie equivalent (Ossie's value of a coarser period is the window at its end, period_agg: last)", m.PeriodAgg)
	}
	switch {
	case m.Window != nil && m.GrainToDate != "":
		return nil, fmt.Errorf("window and grain_to_date together are not a cumulative metric dbt or Ossie defines")
	case m.Window != nil:
		if !ossieUnits[m.Window.Unit] || m.Window.Count > 1000 {
			return nil, fmt.Errorf("window %d %s: Ossie rolling windows are 1 to 1000 hours, days, weeks, months, quarters or years", m.Window.Count, m.Window.Unit)
		}
		return map[string]any{"type": "rolling", "count": m.Window.Count, "unit": m.Window.Unit}, nil
	case m.GrainToDate != "":
		if !ossieUnits[m.GrainToDate] || m.GrainToDate == "hour" {
			return nil, fmt.Errorf("grain_to_date %q: Ossie restarts totals at a day, week, month, quarter or year", m.GrainToDate)
		}
		return map[string]any{"type": "cumulative", "window": "to_date", "grain": m.GrainToDate}, nil
	}
	return map[string]any{"type": "cumulative", "window": "all"}, nil
}

// conversion maps a conversion metric whose base and conversion measures
// both count the distinct values of the entity (the case where dbt's
// conversions / opportunities is Ossie's share of entities that convert;
// calculation: conversions is their count), the conversion measure's
// filter becoming the to_filter.
func (im *importer) conversion(m *Metric) (string, map[string]any, error) {
	c := m.Conversion
	if c == nil {
		return "", nil, fmt.Errorf("a conversion metric needs type_params.conversion_type_params")
	}
	if c.Calculation != "" && c.Calculation != "conversion_rate" && c.Calculation != "conversions" {
		return "", nil, fmt.Errorf("calculation %q is not conversion_rate or conversions", c.Calculation)
	}
	if c.ConstantProperties > 0 {
		return "", nil, fmt.Errorf("constant_properties have no Ossie equivalent")
	}
	base, err := im.inputMeasure(&c.Base)
	if err != nil {
		return "", nil, fmt.Errorf("base_measure: %v", err)
	}
	conv, err := im.inputMeasure(&c.Conversion)
	if err != nil {
		return "", nil, fmt.Errorf("conversion_measure: %v", err)
	}
	at, toAt := base.aggTime(), conv.aggTime()
	bf, cf := base.model.entityFields[c.Entity], conv.model.entityFields[c.Entity]
	if bf == "" || cf == "" {
		return "", nil, fmt.Errorf("entity %q must be an entity of both %s and %s", c.Entity, base.model.name, conv.model.name)
	}
	for _, x := range []*measureInfo{base, conv} {
		if x.m.Agg != "count_distinct" || x.field != x.model.entityFields[c.Entity] {
			return "", nil, fmt.Errorf("measure %s is %s(%s): Ossie's conversion rate is the share of distinct %s values, so both measures must be count_distinct of the entity", x.m.Name, x.m.Agg, orName(x.m.Expr, x.m.Name), c.Entity)
		}
	}
	atDim, okA := base.model.dims[at]
	toDim, okB := conv.model.dims[toAt]
	if !okA || !okB || atDim.grain == "" || toDim.grain == "" {
		return "", nil, fmt.Errorf("both measures need an agg_time_dimension that is a time dimension")
	}
	count, unit := 1000, "year" // no window: any time after (1000 years is the schema's largest)
	if w := c.Window; w != nil {
		if !ossieUnits[w.Unit] || w.Count > 1000 {
			return "", nil, fmt.Errorf("window %d %s: Ossie conversion windows are 1 to 1000 hours, days, weeks, months, quarters or years", w.Count, w.Unit)
		}
		count, unit = w.Count, w.Unit
	}
	expr, _, err := im.measureAggregate(base, concat(m.Filter, c.Base.Filter))
	if err != nil {
		return "", nil, err
	}
	params := map[string]any{"type": "conversion",
		"entity": base.model.name + "." + bf, "at": base.model.name + "." + atDim.field,
		"to_entity": conv.model.name + "." + cf, "to_at": conv.model.name + "." + toDim.field,
		"count": count, "unit": unit}
	if c.Calculation == "conversions" {
		params["calculation"] = "conversions"
	}
	// The conversion measure's filter decides which B rows count: Ossie's
	// to_filter (its fields must be of B's dataset; validation says so,
	// OSS2045, and the metric is then listed as unmapped).
	if len(c.Conversion.Filter) > 0 {
		toFilter, err := im.translateFilter(c.Conversion.Filter, conv.model, toAt)
		if err != nil {
			return "", nil, fmt.Errorf("conversion_measure: %v", err)
		}
		params["to_filter"] = toFilter
	}
	return expr, params, nil
}
