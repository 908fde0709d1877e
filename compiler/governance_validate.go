package compiler

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ossie-dev/ossie/api/ossie"

	"github.com/ossie-dev/ossie/compiler/expr"
)

// attributeRe is the syntax of a caller attribute name.
var attributeRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// callerRe finds `{{ caller.<attribute> }}` in a row filter.
var callerRe = regexp.MustCompile(`\{\{\s*caller\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)

// callerPlaceholder stands for the caller while the row filter is parsed
// as SQL; it is rewritten to CallerQualifier right after.
const callerPlaceholder = "@caller@"

// govCheck validates one Governance against every model of the document.
type govCheck struct {
	a     *analysis
	g     *Governance
	attrs []string
	seen  map[string]bool // problem keys already reported (models share rules)
}

func (gc *govCheck) add(code string, sev Severity, p, msg string) {
	k := code + "\x00" + p + "\x00" + msg
	if gc.seen[k] {
		return
	}
	gc.seen[k] = true
	pos := gc.g.locate(p)
	gc.a.probs = append(gc.a.probs, Problem{Code: code, Severity: sev, Path: p, Line: pos.Line, Column: pos.Column, Message: msg})
}

func (gc *govCheck) errorf(code, p, format string, args ...any) {
	gc.add(code, SeverityError, p, fmt.Sprintf(format, args...))
}

// checkGovernance validates g (nil: ungoverned, nothing to do) against the
// document's models and, for each model, builds its ArtifactGovernance.
// Rules (docs/governance.md): attribute names are identifiers and unique;
// role names are usable and unique; access patterns are valid globs, a
// pattern without wildcards names an existing member, a wildcard pattern
// matching nothing is a warning; row filters name an existing dataset and
// parse as scalar expressions over its fields and declared attributes;
// masks name an existing field once per role, with parameters that fit
// their kind. Every problem is reported, once, with its path.
func (a *analysis) checkGovernance(g *Governance) {
	if g == nil {
		return
	}
	gc := &govCheck{a: a, g: g, seen: map[string]bool{}}
	for i, at := range g.Attributes {
		p := fmt.Sprintf("%s.attributes[%d].name", governanceRoot, i)
		switch {
		case !attributeRe.MatchString(at.Name):
			gc.errorf(CodeInvalidName, p, "attribute name %q must be an identifier (letters, digits, _; not starting with a digit)", at.Name)
		case slices.Contains(gc.attrs, at.Name):
			gc.errorf(CodeDuplicateName, p, "attribute %q is declared twice", at.Name)
		default:
			gc.attrs = append(gc.attrs, at.Name)
		}
	}
	var metricNames, fieldNames, datasetNames []string
	for _, mc := range a.models {
		metricNames = append(metricNames, mc.metricNames...)
		datasetNames = append(datasetNames, mc.datasetNames...)
		for d := range mc.m.Datasets {
			for _, f := range mc.fieldNames(d) {
				fieldNames = append(fieldNames, mc.m.Datasets[d].Name+"."+f)
			}
		}
		mc.governance = &ArtifactGovernance{Attributes: gc.attrs, Roles: []ArtifactRole{}}
	}
	var roleNames []string
	for i := range g.Roles {
		r := &g.Roles[i]
		base := fmt.Sprintf("%s.roles[%d]", governanceRoot, i)
		switch {
		case strings.TrimSpace(r.Name) == "" || utf8.RuneCountInString(r.Name) > maxNameLen ||
			strings.ContainsFunc(r.Name, func(c rune) bool { return c < 0x20 || c == 0x7f }):
			gc.errorf(CodeInvalidName, base+".name", "role name %q must be 1 to %d characters without control characters", r.Name, maxNameLen)
		case slices.Contains(roleNames, r.Name):
			gc.errorf(CodeDuplicateName, base+".name", "role name %q is already used", r.Name)
		default:
			roleNames = append(roleNames, r.Name)
		}
		gc.checkAccess(base+".metrics", "metric", r.Metrics, metricNames)
		gc.checkAccess(base+".fields", "field", r.Fields, fieldNames)
		masked := map[string]bool{}
		for j, m := range r.Masks {
			mp := fmt.Sprintf("%s.masks[%d]", base, j)
			if !slices.Contains(fieldNames, m.Field) {
				gc.errorf(CodeUnknownReference, mp+".field", "mask names unknown field %q; fields are written dataset.field%s", m.Field, hint(m.Field, fieldNames))
			} else if masked[m.Field] {
				gc.errorf(CodeDuplicateName, mp+".field", "field %s is masked twice in role %q", m.Field, r.Name)
			}
			masked[m.Field] = true
			gc.checkMask(mp, m)
		}
		for j, rf := range r.RowFilters {
			if !slices.Contains(datasetNames, rf.Dataset) {
				gc.errorf(CodeUnknownDataset, fmt.Sprintf("%s.row_filters[%d].dataset", base, j), "row filter names unknown dataset %q%s", rf.Dataset, hint(rf.Dataset, datasetNames))
			}
		}
		for _, mc := range a.models {
			ar := ArtifactRole{Name: r.Name, Description: r.Description, Metrics: r.Metrics, Fields: r.Fields}
			for j, rf := range r.RowFilters {
				if cf, ok := gc.rowFilter(mc, fmt.Sprintf("%s.row_filters[%d]", base, j), rf); ok {
					ar.RowFilters = append(ar.RowFilters, cf)
				}
			}
			for _, m := range r.Masks {
				if i := strings.IndexByte(m.Field, '.'); i > 0 && mc.hasField(m.Field) {
					ar.Masks = append(ar.Masks, m)
				}
			}
			mc.governance.Roles = append(mc.governance.Roles, ar)
			gc.checkCoverage(base, r, mc)
		}
	}
}

// hasField reports whether key ("dataset.field") names a field of the model.
func (mc *modelCheck) hasField(key string) bool {
	for d := range mc.m.Datasets {
		ds := mc.m.Datasets[d].Name
		if strings.HasPrefix(key, ds+".") && slices.Contains(mc.fieldNames(d), key[len(ds)+1:]) {
			return true
		}
	}
	return false
}

// manyToOneFrom lists the datasets reached from ds by following
// relationships from their many side (from) to their one side (to), in
// breadth-first order, ds excluded.
func (mc *modelCheck) manyToOneFrom(ds string) []string {
	var out []string
	queue := []string{ds}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, r := range mc.m.Relationships {
			if r.From == cur && r.To != ds && !slices.Contains(out, r.To) {
				if _, ok := mc.datasets.exact[r.To]; ok {
					out = append(out, r.To)
					queue = append(queue, r.To)
				}
			}
		}
	}
	return out
}

// choiceBetween is the join graph's record of the several many-to-one
// paths from dataset from to dataset to (validate_graph.go), or nil when
// there is at most one.
func (mc *modelCheck) choiceBetween(from, to string) *joinChoice {
	if mc.graph == nil {
		return nil
	}
	for i := range mc.graph.choices {
		c := &mc.graph.choices[i]
		if mc.m.Datasets[c.from].Name == from && mc.m.Datasets[c.to].Name == to {
			return c
		}
	}
	return nil
}

// pathsText writes c's paths by relationship name: "a then b; c".
func (mc *modelCheck) pathsText(c *joinChoice) string {
	parts := make([]string, len(c.paths))
	for i, p := range c.paths {
		names := make([]string, len(p))
		for k, rel := range p {
			names[k] = mc.m.Relationships[rel].Name
		}
		parts[i] = strings.Join(names, " then ")
	}
	return strings.Join(parts, "; ")
}

// checkAccess validates the patterns of one access list.
func (gc *govCheck) checkAccess(base, what string, a *Access, members []string) {
	if a == nil {
		return
	}
	check := func(list string, pats []string) {
		for i, pat := range pats {
			p := fmt.Sprintf("%s.%s[%d]", base, list, i)
			if _, err := path.Match(pat, ""); err != nil || pat == "" {
				gc.errorf(CodeBadPattern, p, "%q is not a valid pattern (use * for any characters, ? for one, [abc] for a class)", pat)
				continue
			}
			if !strings.ContainsAny(pat, `*?[\`) {
				if !slices.Contains(members, pat) {
					gc.errorf(CodeUnknownReference, p, "unknown %s %q%s", what, pat, hint(pat, members))
				}
				continue
			}
			if !slices.ContainsFunc(members, func(m string) bool { ok, _ := path.Match(pat, m); return ok }) {
				gc.add(CodeBadPattern, SeverityWarning, p, fmt.Sprintf("pattern %q matches no %s", pat, what))
			}
		}
	}
	check("allow", a.Allow)
	check("deny", a.Deny)
}

// checkMask checks that a mask's parameters fit its kind.
func (gc *govCheck) checkMask(p string, m Mask) {
	if m.Value != "" && m.Mask != MaskLiteral {
		gc.errorf(CodeBadMask, p+".value", "value applies to mask literal only, not %s", m.Mask)
	}
	if (m.KeepFirst != 0 || m.KeepLast != 0) && m.Mask != MaskPartial {
		gc.errorf(CodeBadMask, p, "keep_first and keep_last apply to mask partial only, not %s", m.Mask)
	}
	if m.Mask == MaskPartial && m.KeepFirst == 0 && m.KeepLast == 0 {
		gc.errorf(CodeBadMask, p, "mask partial needs keep_first or keep_last above 0 (to hide the whole value use literal or null)")
	}
	if m.AllowAggregates && m.Mask == "" {
		gc.errorf(CodeBadMask, p+".mask", "allow_aggregates needs a mask kind")
	}
}

// rowFilter compiles rf for model mc when mc has its dataset; ok is false
// when it does not, or on any problem (reported).
func (gc *govCheck) rowFilter(mc *modelCheck, p string, rf ossie.RowFilter) (ArtifactRowFilter, bool) {
	d, found := mc.datasets.exact[rf.Dataset]
	if !found {
		return ArtifactRowFilter{}, false
	}
	ep := p + ".expression"
	text := callerRe.ReplaceAllString(rf.Expression, `"`+callerPlaceholder+`"."$1"`)
	if strings.Contains(text, "{{") || strings.Contains(text, "}}") {
		gc.errorf(CodeUnknownAttribute, ep, "write caller attributes as {{ caller.<name> }} with <name> an identifier")
		return ArtifactRowFilter{}, false
	}
	node, errs := expr.Parse(text)
	if len(errs) > 0 {
		for _, e := range errs {
			gc.errorf(e.Code, ep, "row filter: %s", e.Message)
		}
		return ArtifactRowFilter{}, false
	}
	ok := true
	expr.Walk(node, func(n expr.Node) bool {
		if f, isFunc := n.(expr.Func); isFunc && isAggregate(f) && ok {
			gc.errorf(CodeBadRowFilter, ep, "a row filter is a condition on one row; it cannot use aggregate %s", f.Name)
			ok = false
		}
		return true
	})
	fields := mc.fieldNames(d)
	reach := mc.manyToOneFrom(rf.Dataset)
	reached := func(r expr.Ref) bool {
		od, found := mc.datasets.find(r.Qualifier, r.Quoted)
		return found && slices.Contains(reach, mc.m.Datasets[od].Name)
	}
	node = expr.Rewrite(node, func(n expr.Node) expr.Node {
		r, isRef := n.(expr.Ref)
		if !isRef {
			return n
		}
		switch {
		case r.Qualifier == callerPlaceholder:
			if !slices.Contains(gc.attrs, r.Name) {
				gc.errorf(CodeUnknownAttribute, ep, "caller attribute %q is not declared under governance.attributes%s", r.Name, hint(r.Name, gc.attrs))
				ok = false
			}
			return expr.Ref{Qualifier: CallerQualifier, Name: r.Name, Quoted: true}
		case r.Qualifier == "" || r.Qualifier == rf.Dataset || (!r.Quoted && strings.EqualFold(r.Qualifier, rf.Dataset)):
			if i, found := mc.fields[d].find(r.Name, r.Quoted); found {
				return expr.Ref{Qualifier: rf.Dataset, Name: mc.m.Datasets[d].Fields[i].Name, Quoted: true}
			}
			gc.errorf(CodeUnknownReference, ep, "row filter of dataset %s reads unknown field %q%s", rf.Dataset, r.Name, hint(r.Name, fields))
		case reached(r):
			// A dataset reached by many-to-one hops has at most one row per
			// row of rf.Dataset, so the filter stays a condition on one row.
			od, _ := mc.datasets.find(r.Qualifier, r.Quoted)
			other := mc.m.Datasets[od].Name
			if c := mc.choiceBetween(rf.Dataset, other); c != nil {
				// The filter would narrow by whichever path the join tree
				// happens to take; a query asks for a via instead (OSS4011),
				// but a row filter has no way to name one.
				gc.errorf(CodeBadRowFilter, ep, "a row filter of dataset %s reads %s.%s, and %s reaches %s by several many-to-one paths (%s): which %s row applies is ambiguous; filter on a field of %s (the key that relationship joins on) or of a dataset it reaches by one path",
					rf.Dataset, other, r.Name, rf.Dataset, other, mc.pathsText(c), other, rf.Dataset)
				break
			}
			if i, found := mc.fields[od].find(r.Name, r.Quoted); found {
				return expr.Ref{Qualifier: other, Name: mc.m.Datasets[od].Fields[i].Name, Quoted: true}
			}
			gc.errorf(CodeUnknownReference, ep, "row filter of dataset %s reads unknown field %s.%s%s", rf.Dataset, other, r.Name, hint(r.Name, mc.fieldNames(od)))
		case len(reach) == 0:
			gc.errorf(CodeBadRowFilter, ep, "a row filter of dataset %s reads only its own fields (it reaches no dataset by many-to-one relationships), not %s.%s", rf.Dataset, r.Qualifier, r.Name)
		default:
			gc.errorf(CodeBadRowFilter, ep, "a row filter of dataset %s reads its own fields and those of datasets it reaches by many-to-one relationships (%s), not %s.%s", rf.Dataset, strings.Join(reach, ", "), r.Qualifier, r.Name)
		}
		ok = false
		return n
	})
	return ArtifactRowFilter{Dataset: rf.Dataset, SQL: rf.Expression, Expr: expr.Expr{Node: node}}, ok
}
