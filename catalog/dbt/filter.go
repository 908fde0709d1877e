package dbt

import (
	"fmt"
	"regexp"
	"strings"
)

// jinjaCall matches one MetricFlow object in a where-filter template:
// {{ Dimension('customer__region') }}, {{ TimeDimension('metric_time',
// 'month') }}, {{ Entity('customer') }}, {{ Metric('x', group_by=[...]) }},
// optionally followed by methods such as .grain('month').
var jinjaCall = regexp.MustCompile(`\{\{\s*(\w+)\s*\(([^)]*)\)((?:\s*\.\s*\w+\s*\([^)]*\))*)\s*\}\}`)

var jinjaMethod = regexp.MustCompile(`\.\s*(\w+)\s*\(([^)]*)\)`)

// translateFilter turns the where-filter templates of a metric into one
// Ossie boolean expression over dataset.field references: each object
// becomes the field it names, a time dimension at a grain coarser than
// its own becomes DATE_TRUNC('<grain>', dataset.field), and the clauses
// are combined with AND. home is the semantic model of the measure the
// filter applies to (the one `metric_time` and unprefixed names are read
// from) and aggTime its time dimension. The SQL around the objects is
// kept as written; the compiler's bounded grammar checks it later.
func (im *importer) translateFilter(filters []string, home *modelInfo, aggTime string) (string, error) {
	var parts []string
	for _, f := range filters {
		var errs []string
		out := jinjaCall.ReplaceAllStringFunc(f, func(call string) string {
			m := jinjaCall.FindStringSubmatch(call)
			s, err := im.jinjaObject(m[1], m[2], m[3], home, aggTime)
			if err != nil {
				errs = append(errs, err.Error())
				return call
			}
			return s
		})
		if len(errs) > 0 {
			return "", fmt.Errorf("filter %q: %s", f, strings.Join(errs, "; "))
		}
		if strings.Contains(out, "{{") || strings.Contains(out, "{%") {
			return "", fmt.Errorf("filter %q: Jinja other than Dimension, TimeDimension and Entity objects cannot be translated", f)
		}
		parts = append(parts, "("+strings.TrimSpace(out)+")")
	}
	return strings.Join(parts, " AND "), nil
}

func (im *importer) jinjaObject(kind, args, methods string, home *modelInfo, aggTime string) (string, error) {
	pos, kw, err := jinjaArgs(args)
	if err != nil {
		return "", err
	}
	if len(pos) == 0 {
		return "", fmt.Errorf("%s() names nothing", kind)
	}
	grain := ""
	switch kind {
	case "Dimension", "Entity":
		if len(pos) > 1 {
			return "", fmt.Errorf("%s(%s): one name expected", kind, args)
		}
	case "TimeDimension":
		if len(pos) > 1 {
			grain = pos[1]
		}
		if g, ok := kw["time_granularity_name"]; ok {
			grain = g
			delete(kw, "time_granularity_name")
		}
	case "Metric":
		return "", fmt.Errorf("Metric(%s): a filter on another metric's value (grouped by an entity) has no Ossie equivalent", args)
	default:
		return "", fmt.Errorf("%s(...) is not a MetricFlow filter object (Dimension, TimeDimension, Entity)", kind)
	}
	for k := range kw {
		return "", fmt.Errorf("%s(%s): argument %s is not supported", kind, args, k)
	}
	for _, mm := range jinjaMethod.FindAllStringSubmatch(methods, -1) {
		p, _, err := jinjaArgs(mm[2])
		if err != nil {
			return "", err
		}
		if mm[1] != "grain" || len(p) != 1 {
			return "", fmt.Errorf("%s(%s).%s(...) is not supported (only .grain('<grain>'))", kind, args, mm[1])
		}
		grain = p[0]
	}
	name := pos[0]
	var ref, own string
	if kind == "Entity" {
		ref, err = im.resolveEntity(name, home)
	} else {
		ref, own, err = im.resolveDimension(name, home, aggTime)
	}
	if err != nil {
		return "", err
	}
	grain = strings.ToLower(grain)
	if grain == "" || grain == own || (own == "" && kind == "Dimension") {
		return ref, nil
	}
	if !truncGrains[grain] {
		return "", fmt.Errorf("%s(%s): grain %q is not one of day, week, month, quarter, year", kind, args, grain)
	}
	return fmt.Sprintf("DATE_TRUNC('%s', %s)", grain, ref), nil
}

// truncGrains are the grains a filter may truncate a time dimension to
// (DATE_TRUNC's portable units).
var truncGrains = map[string]bool{"hour": true, "day": true, "week": true, "month": true, "quarter": true, "year": true}

// jinjaArgs splits a Python argument list of string literals:
// 'a', "b", key='c'. Anything else (lists, numbers) is an error.
func jinjaArgs(s string) (pos []string, kw map[string]string, err error) {
	kw = map[string]string{}
	for _, a := range splitArgs(s) {
		a = strings.TrimSpace(a)
		if a == "" {
			continue
		}
		key := ""
		if k, v, ok := strings.Cut(a, "="); ok && !strings.ContainsAny(k, `'"`) {
			key, a = strings.TrimSpace(k), strings.TrimSpace(v)
		}
		if len(a) < 2 || (a[0] != '\'' && a[0] != '"') || a[len(a)-1] != a[0] {
			if key != "" {
				kw[key] = a
				continue
			}
			return nil, nil, fmt.Errorf("argument %s is not a quoted name", a)
		}
		v := a[1 : len(a)-1]
		if key != "" {
			kw[key] = v
		} else {
			pos = append(pos, v)
		}
	}
	return pos, kw, nil
}

// splitArgs splits on commas outside quotes and brackets.
func splitArgs(s string) []string {
	var out []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '[' || c == '(':
			depth++
		case c == ']' || c == ')':
			depth--
		case c == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// resolveDimension finds the field of a dimension name as MetricFlow
// writes it: "metric_time" (the measure's time dimension), "dim" (a
// dimension of home) or "entity__dim" (a dimension of the semantic model
// whose primary, unique or natural entity is entity, or of home when home
// has that entity), longer entity paths read by their last entity. It
// returns "dataset.field" and the dimension's own granularity ("" for a
// categorical dimension).
func (im *importer) resolveDimension(name string, home *modelInfo, aggTime string) (ref, grain string, err error) {
	parts := strings.Split(name, "__")
	dim := parts[len(parts)-1]
	if dim == "metric_time" {
		if aggTime == "" {
			return "", "", fmt.Errorf("metric_time: the measure has no agg_time_dimension")
		}
		dim, parts = aggTime, []string{aggTime}
	}
	var cands []*modelInfo
	for _, mi := range im.models {
		if _, ok := mi.dims[dim]; !ok {
			continue
		}
		if len(parts) == 1 {
			if mi == home {
				cands = []*modelInfo{mi}
				break
			}
			continue
		}
		ent := parts[len(parts)-2]
		t, has := mi.entityTypes[ent]
		if has && (mi == home || t != "foreign") {
			if mi == home {
				cands = []*modelInfo{mi}
				break
			}
			cands = append(cands, mi)
		}
	}
	switch len(cands) {
	case 1:
		d := cands[0].dims[dim]
		return cands[0].name + "." + d.field, d.grain, nil
	case 0:
		return "", "", fmt.Errorf("dimension %q: no semantic model has it under that entity", name)
	default:
		return "", "", fmt.Errorf("dimension %q is ambiguous: %d semantic models have it", name, len(cands))
	}
}

// resolveEntity finds the field of an entity: "entity" on home, or
// "a__entity" on the model whose primary entity is a.
func (im *importer) resolveEntity(name string, home *modelInfo) (string, error) {
	parts := strings.Split(name, "__")
	ent := parts[len(parts)-1]
	if f, ok := home.entityFields[ent]; ok && len(parts) == 1 {
		return home.name + "." + f, nil
	}
	if len(parts) > 1 {
		via := parts[len(parts)-2]
		for _, mi := range im.models {
			if t := mi.entityTypes[via]; t != "" && t != "foreign" {
				if f, ok := mi.entityFields[ent]; ok {
					return mi.name + "." + f, nil
				}
			}
		}
	}
	return "", fmt.Errorf("entity %q: not an entity of %s", name, home.name)
}
