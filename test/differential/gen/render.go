package gen

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/ossie-dev/ossie/test/reference"
)

// q is a YAML double-quoted scalar (JSON string syntax, which YAML reads
// the same).
func q(s string) string { return strconv.Quote(s) }

// renderModel writes m as an Ossie document (docs/authoring.md): fields
// read their column, time fields are dimensions with is_time, metric
// types and stored zones go in the OSSIE custom extension.
func renderModel(m *reference.Model) []byte {
	var b strings.Builder
	b.WriteString("version: \"0.2.0.dev0\"\nsemantic_model:\n")
	fmt.Fprintf(&b, "  - name: %s\n", m.Name)
	if m.Timezone != "" {
		fmt.Fprintf(&b, "    custom_extensions:\n      - {vendor_name: OSSIE, data: %s}\n", q(`{"timezone": "`+m.Timezone+`"}`))
	}
	b.WriteString("    datasets:\n")
	for _, d := range m.Datasets {
		fmt.Fprintf(&b, "      - name: %s\n        source: %s\n", d.Name, d.Table)
		if len(d.PrimaryKey) > 0 {
			fmt.Fprintf(&b, "        primary_key: [%s]\n", strings.Join(d.PrimaryKey, ", "))
		}
		if d.Timezone != "" {
			fmt.Fprintf(&b, "        custom_extensions:\n          - {vendor_name: OSSIE, data: %s}\n", q(`{"timezone": "`+d.Timezone+`"}`))
		}
		b.WriteString("        fields:\n")
		for _, f := range d.Fields {
			fmt.Fprintf(&b, "          - name: %s\n", f.Name)
			if f.Datatype != "" {
				fmt.Fprintf(&b, "            datatype: %s\n", f.Datatype)
			}
			if f.IsTime {
				b.WriteString("            dimension: {is_time: true}\n")
			}
			fmt.Fprintf(&b, "            expression: {dialects: [{dialect: ANSI_SQL, expression: %s}]}\n", q(f.Column))
			if f.Timezone != "" {
				fmt.Fprintf(&b, "            custom_extensions:\n              - {vendor_name: OSSIE, data: %s}\n", q(`{"timezone": "`+f.Timezone+`"}`))
			}
		}
	}
	if len(m.Relationships) > 0 {
		b.WriteString("    relationships:\n")
		for _, r := range m.Relationships {
			fmt.Fprintf(&b, "      - name: %s\n        from: %s\n        to: %s\n        from_columns: [%s]\n        to_columns: [%s]\n",
				r.Name, r.From, r.To, strings.Join(r.FromColumns, ", "), strings.Join(r.ToColumns, ", "))
		}
	}
	if len(m.Metrics) > 0 {
		b.WriteString("    metrics:\n")
		for _, mt := range m.Metrics {
			fmt.Fprintf(&b, "      - name: %s\n", mt.Name)
			if mt.Datatype != "" {
				fmt.Fprintf(&b, "        datatype: %s\n", mt.Datatype)
			}
			fmt.Fprintf(&b, "        expression: {dialects: [{dialect: ANSI_SQL, expression: %s}]}\n", q(renderExpr(mt.Expr)))
			if mt.Type != nil {
				fmt.Fprintf(&b, "        custom_extensions:\n          - {vendor_name: OSSIE, data: %s}\n", q(typeJSON(mt.Type)))
			}
		}
	}
	return []byte(b.String())
}

// renderExpr writes a metric expression in the bounded SQL grammar.
func renderExpr(x reference.Expr) string {
	switch v := x.(type) {
	case *reference.Agg:
		arg := v.Dataset + "." + v.Field
		if v.Bare {
			arg = v.Field
		}
		if v.Func == "COUNT_STAR" {
			if v.When == nil {
				return "COUNT(*)"
			}
			arg = "1"
		}
		if v.When != nil {
			arg = "CASE WHEN " + v.Dataset + "." + v.When.Field + " " + v.When.Op + " " + literal(v.When.Value) + " THEN " + arg + " END"
		}
		switch v.Func {
		case "COUNT_STAR":
			return "COUNT(" + arg + ")"
		case "COUNT_DISTINCT":
			return "COUNT(DISTINCT " + arg + ")"
		}
		return v.Func + "(" + arg + ")"
	case reference.Ref:
		return v.Metric
	case reference.Const:
		return literal(v.Value)
	case *reference.Bin:
		return "(" + renderExpr(v.L) + ") " + v.Op + " (" + renderExpr(v.R) + ")"
	}
	return ""
}

// literal is a SQL literal: a number, or a string with doubled quotes.
func literal(v any) string {
	switch x := v.(type) {
	case string:
		return "'" + strings.ReplaceAll(x, "'", "''") + "'"
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// typeJSON is the extension data of a metric type (metric-type.v1).
func typeJSON(t *reference.MetricType) string {
	p := map[string]any{"version": 1, "type": t.Type}
	set := func(k, v string) {
		if v != "" {
			p[k] = v
		}
	}
	set("window", t.Window)
	set("grain", t.Grain)
	if t.Count > 0 {
		p["count"] = t.Count
	}
	set("unit", t.Unit)
	set("offset", t.Offset)
	set("output", t.Output)
	set("along", t.Along)
	set("pick", t.Pick)
	switch len(t.Per) {
	case 0:
	case 1:
		p["per"] = t.Per[0] // the one-field form
	default:
		p["per"] = t.Per
	}
	set("entity", t.Entity)
	set("at", t.At)
	set("to_entity", t.ToEntity)
	set("to_at", t.ToAt)
	set("calculation", t.Calculation)
	if c := t.ToFilter; c != nil {
		p["to_filter"] = strings.SplitN(t.ToEntity, ".", 2)[0] + "." + c.Field + " " + c.Op + " " + literal(c.Value)
	}
	b, _ := json.Marshal(map[string]any{"metric": p})
	return string(b)
}
