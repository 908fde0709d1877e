package ossiectl

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ossie-dev/ossie/api/ossie"
)

// Reasons a change breaks consumers, shown with the change.
const (
	reasonMetricGone    = "queries and views naming this metric fail"
	reasonFieldGone     = "queries, filters and views using this dimension fail"
	reasonDatasetGone   = "every dimension of this dataset is gone"
	reasonModelGone     = "every query against this model fails"
	reasonMetricChanged = "the same query returns different numbers"
	reasonJoinGone      = "dimensions reached through this join are no longer reachable"
	reasonJoinChanged   = "dimensions reached through this join group rows differently"
	reasonJoinRenamed   = "queries and views naming it (a via, field@relationship) fail, and answer columns named by it change"
)

// diffDocuments lists the changes from old to new, models and their
// members matched by name, in document order (removals before additions).
func diffDocuments(old, new *ossie.Document) []change {
	var out []change
	newModels := map[string]*ossie.SemanticModel{}
	for i := range new.SemanticModel {
		newModels[new.SemanticModel[i].Name] = &new.SemanticModel[i]
	}
	seen := map[string]bool{}
	for i := range old.SemanticModel {
		om := &old.SemanticModel[i]
		seen[om.Name] = true
		nm, ok := newModels[om.Name]
		if !ok {
			out = append(out, change{Kind: "removed", Object: "model", Model: om.Name, Name: om.Name, Breaking: true, Reason: reasonModelGone})
			continue
		}
		out = append(out, diffModel(om, nm)...)
	}
	for _, nm := range new.SemanticModel {
		if !seen[nm.Name] {
			out = append(out, change{Kind: "added", Object: "model", Model: nm.Name, Name: nm.Name})
		}
	}
	return out
}

func diffModel(om, nm *ossie.SemanticModel) []change {
	model := om.Name
	var out []change
	var details []string
	if d := docChanges(om.Description, nm.Description, om.AIContext, nm.AIContext); d != "" {
		details = append(details, d)
	}
	ext, breaking, reason := extensionChanges(om.CustomExtensions, nm.CustomExtensions)
	if details = append(details, ext...); len(details) > 0 {
		out = append(out, change{Kind: "changed", Object: "model", Model: model, Name: model, Detail: strings.Join(details, "; "),
			Breaking: breaking, Reason: reason})
	}
	// Datasets, then the fields of datasets present in both.
	out = append(out, diffNamed(model, "dataset", om.Datasets, nm.Datasets,
		func(d ossie.Dataset) string { return d.Name },
		nil,
		func(o, n ossie.Dataset) []change { return diffDataset(model, o, n) },
		func(d ossie.Dataset) change {
			return change{Breaking: true, Reason: reasonDatasetGone}
		})...)
	out = append(out, diffNamed(model, "metric", om.Metrics, nm.Metrics,
		func(m ossie.Metric) string { return m.Name },
		func(m ossie.Metric) string { return exprKey(m.Expression) },
		func(o, n ossie.Metric) []change {
			var details []string
			c := change{Kind: "changed", Object: "metric", Model: model, Name: o.Name}
			if exprKey(o.Expression) != exprKey(n.Expression) {
				details = append(details, fmt.Sprintf("expression %q -> %q", exprText(o.Expression), exprText(n.Expression)))
				c.Breaking, c.Reason = true, reasonMetricChanged
			}
			if o.Datatype != n.Datatype {
				details = append(details, fmt.Sprintf("datatype %q -> %q", o.Datatype, n.Datatype))
			}
			if d := docChanges(o.Description, n.Description, o.AIContext, n.AIContext); d != "" {
				details = append(details, d)
			}
			ext, breaking, _ := extensionChanges(o.CustomExtensions, n.CustomExtensions)
			details = append(details, ext...)
			if breaking && !c.Breaking {
				c.Breaking, c.Reason = true, reasonMetricChanged
			}
			if len(details) == 0 {
				return nil
			}
			c.Detail = strings.Join(details, "; ")
			return []change{c}
		},
		func(ossie.Metric) change { return change{Breaking: true, Reason: reasonMetricGone} })...)
	out = append(out, diffNamed(model, "relationship", om.Relationships, nm.Relationships,
		func(r ossie.Relationship) string { return r.Name },
		joinKey,
		func(o, n ossie.Relationship) []change {
			ext, breaking, reason := extensionChanges(o.CustomExtensions, n.CustomExtensions)
			if joinKey(o) != joinKey(n) {
				details := append([]string{fmt.Sprintf("join %s -> %s", joinText(o), joinText(n))}, ext...)
				return []change{{Kind: "changed", Object: "relationship", Model: model, Name: o.Name,
					Detail: strings.Join(details, "; "), Breaking: true, Reason: reasonJoinChanged}}
			}
			if len(ext) == 0 {
				return nil
			}
			return []change{{Kind: "changed", Object: "relationship", Model: model, Name: o.Name,
				Detail: strings.Join(ext, "; "), Breaking: breaking, Reason: reason}}
		},
		func(ossie.Relationship) change { return change{Breaking: true, Reason: reasonJoinGone} })...)
	// A renamed relationship keeps every join, but consumers name
	// relationships: a query's via, a view's field@relationship, the
	// answer columns of a dimension along a chosen path.
	for i := range out {
		if out[i].Object == "relationship" && out[i].Kind == "renamed" {
			out[i].Breaking, out[i].Reason = true, reasonJoinRenamed
		}
	}
	return flagDependents(model, nm, out)
}

func diffDataset(model string, o, n ossie.Dataset) []change {
	var out []change
	var details []string
	if a, b := sourceText(o.Source), sourceText(n.Source); a != b {
		details = append(details, fmt.Sprintf("source %s -> %s", a, b))
	}
	if a, b := strings.Join(o.PrimaryKey, ","), strings.Join(n.PrimaryKey, ","); a != b {
		details = append(details, fmt.Sprintf("primary_key [%s] -> [%s]", a, b))
	}
	if a, b := fmt.Sprint(o.UniqueKeys), fmt.Sprint(n.UniqueKeys); a != b {
		details = append(details, fmt.Sprintf("unique_keys %s -> %s", a, b))
	}
	if d := docChanges(o.Description, n.Description, o.AIContext, n.AIContext); d != "" {
		details = append(details, d)
	}
	ext, breaking, reason := extensionChanges(o.CustomExtensions, n.CustomExtensions)
	if details = append(details, ext...); len(details) > 0 {
		out = append(out, change{Kind: "changed", Object: "dataset", Model: model, Name: o.Name, Detail: strings.Join(details, "; "),
			Breaking: breaking, Reason: reason})
	}
	fields := diffNamed(model, "field", o.Fields, n.Fields,
		func(f ossie.Field) string { return f.Name },
		func(f ossie.Field) string { return exprKey(f.Expression) },
		func(of, nf ossie.Field) []change {
			var details []string
			if exprKey(of.Expression) != exprKey(nf.Expression) {
				details = append(details, fmt.Sprintf("expression %q -> %q", exprText(of.Expression), exprText(nf.Expression)))
			}
			if of.Datatype != nf.Datatype {
				details = append(details, fmt.Sprintf("datatype %q -> %q", of.Datatype, nf.Datatype))
			}
			if of.IsTime() != nf.IsTime() {
				details = append(details, fmt.Sprintf("is_time %t -> %t", of.IsTime(), nf.IsTime()))
			}
			if of.Label != nf.Label {
				details = append(details, "label")
			}
			if d := docChanges(of.Description, nf.Description, of.AIContext, nf.AIContext); d != "" {
				details = append(details, d)
			}
			ext, breaking, reason := extensionChanges(of.CustomExtensions, nf.CustomExtensions)
			if details = append(details, ext...); len(details) == 0 {
				return nil
			}
			return []change{{Kind: "changed", Object: "field", Model: model, Name: of.Name, Detail: strings.Join(details, "; "),
				Breaking: breaking, Reason: reason}}
		},
		func(ossie.Field) change { return change{Breaking: true, Reason: reasonFieldGone} })
	for _, c := range fields {
		c.Name = o.Name + "." + c.Name
		if c.NewName != "" {
			c.NewName = o.Name + "." + c.NewName
		}
		out = append(out, c)
	}
	return out
}

// diffNamed matches two lists by name: members only in old are removed
// (breaking as gone says) unless a member only in new has the same
// signature (a rename, breaking likewise); members only in new are added;
// members in both are compared by changed.
func diffNamed[T any](model, object string, old, new []T, name func(T) string, signature func(T) string,
	changed func(o, n T) []change, gone func(T) change) []change {
	var out []change
	newByName := map[string]T{}
	for _, n := range new {
		newByName[name(n)] = n
	}
	oldNames := map[string]bool{}
	for _, o := range old {
		oldNames[name(o)] = true
	}
	var added []T
	for _, n := range new {
		if !oldNames[name(n)] {
			added = append(added, n)
		}
	}
	renamedTo := map[string]bool{}
	for _, o := range old {
		n, ok := newByName[name(o)]
		if ok {
			out = append(out, changed(o, n)...)
			continue
		}
		c := gone(o)
		c.Kind, c.Object, c.Model, c.Name = "removed", object, model, name(o)
		if signature != nil {
			for _, a := range added {
				if !renamedTo[name(a)] && signature(a) == signature(o) {
					renamedTo[name(a)] = true
					c.Kind, c.NewName = "renamed", name(a)
					break
				}
			}
		}
		out = append(out, c)
	}
	for _, a := range added {
		if !renamedTo[name(a)] {
			out = append(out, change{Kind: "added", Object: object, Model: model, Name: name(a)})
		}
	}
	return out
}

// exprKey is what makes two expressions the same: the portable entry
// (OSSIE_SQL_2026, else ANSI_SQL) with runs of white space collapsed, or
// every entry when there is no portable one.
func exprKey(e ossie.Expression) string {
	if p, ok := e.Portable(); ok {
		return squeeze(p.Expression)
	}
	var parts []string
	for _, d := range e.Dialects {
		parts = append(parts, string(d.Dialect)+":"+squeeze(d.Expression))
	}
	return strings.Join(parts, "\n")
}

// exprText is the expression shown to the reader.
func exprText(e ossie.Expression) string {
	if p, ok := e.Portable(); ok {
		return squeeze(p.Expression)
	}
	if len(e.Dialects) > 0 {
		return squeeze(e.Dialects[0].Expression)
	}
	return ""
}

func squeeze(s string) string { return strings.Join(strings.Fields(s), " ") }

// joinKey identifies a join by its ends and column pairs.
func joinKey(r ossie.Relationship) string { return joinText(r) }

func joinText(r ossie.Relationship) string {
	return fmt.Sprintf("%s(%s) -> %s(%s)", r.From, strings.Join(r.FromColumns, ","), r.To, strings.Join(r.ToColumns, ","))
}

func sourceText(s ossie.Source) string {
	if s.Query != nil {
		return "query " + exprText(*s.Query)
	}
	return s.Object
}

// docChanges names the documentation that changed ("description",
// "ai_context"), which never breaks a consumer.
func docChanges(oldDesc, newDesc string, oldCtx, newCtx *ossie.AIContext) string {
	var parts []string
	if oldDesc != newDesc {
		parts = append(parts, "description")
	}
	if !aiContextEqual(oldCtx, newCtx) {
		parts = append(parts, "ai_context")
	}
	return strings.Join(parts, ", ")
}

func aiContextEqual(a, b *ossie.AIContext) bool {
	if a == nil || b == nil {
		return a == b
	}
	ja, _ := a.MarshalJSON()
	jb, _ := b.MarshalJSON()
	return string(ja) == string(jb) && slices.Equal(a.Synonyms, b.Synonyms)
}
