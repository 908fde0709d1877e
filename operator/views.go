package operator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler/dialect"
	"github.com/ossie-dev/ossie/compiler/views"
	"github.com/ossie-dev/ossie/engine"
)

// views owns ViewsReady and status.views: it makes the engine's view
// schema hold exactly the views of the published spec (DESIGN.md section
// 4, docs/operator.md "Governed views").
//
// Each spec.views entry, planned under its role on the published bundle
// (validate plans them first on the document alone, for its problems;
// here the fields that declare no datatype have the engine's type),
// becomes
// `CREATE VIEW` (the name is free) or `CREATE OR REPLACE VIEW` (the view is
// ours and its definition changed) in Options.ViewSchema, commented with
// its owner (namespace/name/uid of this SemanticModel) and a digest of its
// SQL; a view whose comment already carries this owner and digest is left
// alone, so an unchanged model runs no DDL, unless the engine reports the
// view unguarded (created before views were security barriers): it is
// replaced so its readers' predicates cannot see past its row filter. A
// name held by a table, by another model's view or by any view without our comment is never
// touched: ViewsReady=False, NameConflict. Views this model owns that left
// the spec (recorded in AnnotationViews, or found in the schema with our
// uid) are dropped. A DDL failure is ViewsReady=False, ViewFailed, with the
// engine's message; publication is not affected.
//
// Views follow the published version: while the current spec is not
// published (invalid, drifted, engine unavailable) the views of the last
// published one are left as they are (ViewsReady=Unknown, Blocked).
func (r *Reconciler) views(ctx context.Context, p *pass) {
	recorded := recordedViews(p.sm)
	policy := p.sm.Spec.ViewReclaimPolicy
	if len(p.sm.Spec.Views) == 0 && len(recorded) == 0 && !controllerutil.ContainsFinalizer(p.sm, v1alpha1.FinalizerViews) {
		p.status.Views = nil
		p.setCondition(v1alpha1.ConditionViewsReady, metav1.ConditionTrue, v1alpha1.ReasonNoViews, "the spec declares no views")
		return
	}
	switch {
	case p.engineErr != nil:
		p.setCondition(v1alpha1.ConditionViewsReady, metav1.ConditionUnknown, v1alpha1.ReasonEngineUnavailable,
			"views not checked: the engine is unavailable (retrying with backoff)")
		return
	case !p.published:
		p.setCondition(v1alpha1.ConditionViewsReady, metav1.ConditionUnknown, v1alpha1.ReasonBlocked,
			fmt.Sprintf("views follow the published version and the current spec is not published (%s); existing views are left as they are", firstFailure(p)))
		return
	}
	viewer, ok := r.Engine.(engine.Viewer)
	if !ok {
		p.setCondition(v1alpha1.ConditionViewsReady, metav1.ConditionFalse, v1alpha1.ReasonViewsNotSupported,
			fmt.Sprintf("the spec declares %d view(s); the %s engine cannot hold views", len(p.sm.Spec.Views), r.Engine.Dialect().Name()))
		return
	}
	schema, err := engine.ViewSchemaPath(r.Options.ViewSchema)
	if err != nil {
		p.setCondition(v1alpha1.ConditionViewsReady, metav1.ConditionFalse, v1alpha1.ReasonViewFailed, err.Error()+" (--view-schema)")
		return
	}
	// Planned again on the published bundle, whose fields that declare no
	// datatype carry the engine's type (bind): validate planned the views
	// before the engine was asked, so a time field left to the engine was
	// neither DateTime nor DateTimeTz there and the view's time zone would
	// not apply (docs/query-semantics.md, "A field without datatype").
	plans, probs := views.PlanSpec(&p.sm.Spec, p.bundle.Artifacts, r.dialect())
	if probs.HasErrors() {
		p.setCondition(v1alpha1.ConditionViewsReady, metav1.ConditionFalse, v1alpha1.ReasonViewFailed,
			"with the types the engine gives the fields that declare none, the views cannot be planned (existing views are left as they are): "+problemsMessage(forStatus(probs)))
		return
	}
	p.viewPlans = plans
	vs := &viewSync{r: r, p: p, viewer: viewer, schema: schema, q: r.Engine.Dialect()}
	rels, err := vs.relations(ctx, schema)
	if err != nil {
		vs.engineFailure(err, "cannot list the views of "+vs.schemaName())
		return
	}

	// Decide, for every view of the spec, what to do.
	type action struct {
		vp      *views.Plan
		replace bool
	}
	var actions []action
	desired := map[string]bool{}
	for i := range p.viewPlans {
		vp := &p.viewPlans[i]
		desired[vp.View.Name] = true
		rel, exists := rels[vp.View.Name]
		switch {
		case !exists:
			actions = append(actions, action{vp, false})
		case !rel.View:
			vs.conflicts = append(vs.conflicts, fmt.Sprintf("%s is a table or another relation that is not a view", vs.rel(vp.View.Name)))
		default:
			o, ours := parseOwner(rel.Comment)
			switch {
			case !ours || !o.owns(p.sm):
				vs.conflicts = append(vs.conflicts, fmt.Sprintf("%s exists and %s", vs.rel(vp.View.Name), o.describe(ours)))
			case o.digest == vp.Digest && !rel.Unguarded:
				vs.ready(vp)
			default:
				actions = append(actions, action{vp, true})
			}
		}
	}

	// The finalizer must be in place before a view exists that it drops.
	wantFinalizer := policy != v1alpha1.ViewReclaimRetain
	if len(actions) > 0 && wantFinalizer && !controllerutil.ContainsFinalizer(p.sm, v1alpha1.FinalizerViews) {
		claim := slices.Clone(recorded)
		for _, a := range actions {
			claim = addRef(claim, viewRef{Schema: r.Options.ViewSchema, Name: a.vp.View.Name})
		}
		if err := r.setViewMetadata(ctx, p.sm, claim, true); err != nil {
			p.apiErr = err
			p.setCondition(v1alpha1.ConditionViewsReady, metav1.ConditionUnknown, v1alpha1.ReasonViewFailed, "cannot record the views on the SemanticModel: "+err.Error())
			return
		}
		recorded = claim
	}

	for _, a := range actions {
		err := viewer.ApplyView(vs.timeout(ctx), engine.ViewDef{
			Schema: schema, Name: a.vp.View.Name, Query: a.vp.SQL,
			Comment: ownerComment(p.sm, a.vp.Digest), Replace: a.replace,
		})
		vs.cancel()
		switch {
		case err == nil:
			vs.ready(a.vp)
			vs.changed = append(vs.changed, "applied "+vs.rel(a.vp.View.Name))
		case !a.replace && vs.takenMeanwhile(ctx, a.vp.View.Name):
			// Another writer created the name between the listing and our
			// CREATE VIEW (which refuses to overwrite).
		default:
			if a.replace {
				vs.keep = addRef(vs.keep, viewRef{Schema: r.Options.ViewSchema, Name: a.vp.View.Name}) // still ours, still there
			}
			vs.fail(err, fmt.Sprintf("view %s: %s", vs.rel(a.vp.View.Name), engineMessage(err)))
		}
	}

	if g, ok := r.Engine.(engine.Granter); ok && len(r.Options.ViewGrants) > 0 {
		for _, st := range vs.status {
			vs.grant(ctx, g, st.Name, st.Role)
		}
	}

	// Drop what this model owns and no longer declares: the recorded views
	// and any view of the schema carrying our uid (a view created in a
	// pass that ended before recording it).
	var stale []viewRef
	for _, ref := range recorded {
		if ref.Schema != r.Options.ViewSchema || !desired[ref.Name] {
			stale = addRef(stale, ref)
		}
	}
	for name, rel := range rels {
		if o, ours := parseOwner(rel.Comment); rel.View && ours && o.owns(p.sm) && !desired[name] {
			stale = addRef(stale, viewRef{Schema: r.Options.ViewSchema, Name: name})
		}
	}
	for _, ref := range stale {
		vs.drop(ctx, ref, rels)
	}

	// Record what exists now; hold the finalizer only while views exist.
	hasFinalizer := controllerutil.ContainsFinalizer(p.sm, v1alpha1.FinalizerViews)
	needFinalizer := wantFinalizer && len(vs.keep) > 0
	if !sameRefs(vs.keep, recordedViews(p.sm)) || hasFinalizer != needFinalizer {
		if err := r.setViewMetadata(ctx, p.sm, vs.keep, needFinalizer); err != nil {
			p.apiErr = err
			vs.failures = append(vs.failures, "cannot record the views on the SemanticModel: "+err.Error())
		}
	}
	// Spec order, however the views got ready in this pass, so the next
	// (no-op) pass computes the same status and writes nothing.
	order := map[string]int{}
	for i, vp := range p.viewPlans {
		order[vp.View.Name] = i
	}
	slices.SortStableFunc(vs.status, func(a, b v1alpha1.ViewStatus) int { return order[a.Name] - order[b.Name] })
	p.status.Views = vs.status
	p.viewsChanged = vs.changed
	vs.setCondition()
}

// viewSync is the state of one views step.
type viewSync struct {
	r      *Reconciler
	p      *pass
	viewer engine.Viewer
	schema []string
	q      dialect.Dialect
	cancel context.CancelFunc

	status    []v1alpha1.ViewStatus
	keep      []viewRef // views that exist and are ours, for AnnotationViews
	conflicts []string
	failures  []string
	changed   []string // DDL run, for the event
}

func (vs *viewSync) timeout(ctx context.Context) context.Context {
	ctx, vs.cancel = context.WithTimeout(ctx, vs.r.Options.EngineTimeout)
	return ctx
}

func (vs *viewSync) relations(ctx context.Context, schema []string) (map[string]engine.Relation, error) {
	rels, err := vs.viewer.Relations(vs.timeout(ctx), schema)
	vs.cancel()
	return rels, err
}

func (vs *viewSync) schemaName() string { return engine.QuotePath(vs.q.QuoteIdent, vs.schema...) }

// rel is the quoted, schema-qualified name of view name.
func (vs *viewSync) rel(name string) string {
	return engine.QuotePath(vs.q.QuoteIdent, append(slices.Clone(vs.schema), name)...)
}

func (vs *viewSync) ready(vp *views.Plan) {
	vs.status = append(vs.status, v1alpha1.ViewStatus{Name: vp.View.Name, Relation: vs.rel(vp.View.Name), Role: vp.View.Role, Columns: vp.Columns})
	vs.keep = addRef(vs.keep, viewRef{Schema: vs.r.Options.ViewSchema, Name: vp.View.Name})
}

// grant makes the logins of role (Options.ViewGrants) exactly those
// holding SELECT on view name: missing grants are added, any other
// login's revoked. An unchanged view costs one catalog query and no DDL.
func (vs *viewSync) grant(ctx context.Context, g engine.Granter, name, role string) {
	want := vs.r.Options.ViewGrants[role]
	have, err := g.Grantees(vs.timeout(ctx), vs.schema, name)
	vs.cancel()
	if err != nil {
		vs.fail(err, fmt.Sprintf("grants of %s: %s", vs.rel(name), engineMessage(err)))
		return
	}
	var add, revoke []string
	for _, l := range want {
		if !slices.Contains(have, l) {
			add = append(add, l)
		}
	}
	for _, l := range have {
		if !slices.Contains(want, l) {
			revoke = append(revoke, l)
		}
	}
	if len(add)+len(revoke) == 0 {
		return
	}
	err = g.SetGrants(vs.timeout(ctx), vs.schema, name, add, revoke)
	vs.cancel()
	if err != nil {
		vs.fail(err, fmt.Sprintf("grants of %s: %s", vs.rel(name), engineMessage(err)))
		return
	}
	if len(add) > 0 {
		vs.changed = append(vs.changed, fmt.Sprintf("granted SELECT on %s to %s", vs.rel(name), strings.Join(add, ", ")))
	}
	if len(revoke) > 0 {
		vs.changed = append(vs.changed, fmt.Sprintf("revoked SELECT on %s from %s", vs.rel(name), strings.Join(revoke, ", ")))
	}
}

// fail records a DDL failure; an unavailable engine also asks for a retry
// with backoff.
func (vs *viewSync) fail(err error, msg string) {
	if errors.Is(err, engine.ErrUnavailable) && vs.p.engineErr == nil {
		vs.p.engineErr = err
	}
	vs.failures = append(vs.failures, msg)
}

// engineFailure ends the step when the schema cannot even be listed.
func (vs *viewSync) engineFailure(err error, what string) {
	if errors.Is(err, engine.ErrUnavailable) {
		vs.p.engineErr = err
		vs.p.setCondition(v1alpha1.ConditionViewsReady, metav1.ConditionUnknown, v1alpha1.ReasonEngineUnavailable,
			what+", the engine is unavailable (retrying with backoff): "+engineMessage(err))
		return
	}
	vs.p.setCondition(v1alpha1.ConditionViewsReady, metav1.ConditionFalse, v1alpha1.ReasonViewFailed, what+": "+engineMessage(err))
}

// takenMeanwhile reports whether name, which our CREATE VIEW could not
// create, is now held by something that is not ours; it is then a
// conflict, not a failure.
func (vs *viewSync) takenMeanwhile(ctx context.Context, name string) bool {
	rels, err := vs.relations(ctx, vs.schema)
	if err != nil {
		return false
	}
	rel, ok := rels[name]
	if !ok {
		return false
	}
	o, ours := parseOwner(rel.Comment)
	if rel.View && ours && o.owns(vs.p.sm) {
		return false
	}
	vs.conflicts = append(vs.conflicts, fmt.Sprintf("%s was created by someone else meanwhile and %s", vs.rel(name), o.describe(ours)))
	return true
}

// drop drops ref when it is a view this model owns; a name now held by
// anything else is forgotten, never touched. A failed drop keeps ref
// recorded so a later pass retries.
func (vs *viewSync) drop(ctx context.Context, ref viewRef, current map[string]engine.Relation) {
	schema, err := engine.ViewSchemaPath(ref.Schema)
	if err != nil {
		return // not a schema we could have written to
	}
	rels := current
	if ref.Schema != vs.r.Options.ViewSchema {
		if rels, err = vs.relations(ctx, schema); err != nil {
			vs.keep = addRef(vs.keep, ref)
			vs.fail(err, fmt.Sprintf("cannot check view %s.%s before dropping it: %s", ref.Schema, ref.Name, engineMessage(err)))
			return
		}
	}
	rel, ok := rels[ref.Name]
	if !ok || !rel.View {
		return
	}
	if o, ours := parseOwner(rel.Comment); !ours || !o.owns(vs.p.sm) {
		return
	}
	err = vs.viewer.DropView(vs.timeout(ctx), schema, ref.Name)
	vs.cancel()
	name := engine.QuotePath(vs.q.QuoteIdent, append(slices.Clone(schema), ref.Name)...)
	if err != nil {
		vs.keep = addRef(vs.keep, ref)
		vs.fail(err, fmt.Sprintf("cannot drop view %s: %s", name, engineMessage(err)))
		return
	}
	vs.changed = append(vs.changed, "dropped "+name)
}

func (vs *viewSync) setCondition() {
	p := vs.p
	switch {
	case len(vs.conflicts) > 0:
		msg := fmt.Sprintf("%d view name(s) taken, left untouched: %s", len(vs.conflicts), strings.Join(vs.conflicts, "; "))
		if len(vs.failures) > 0 {
			msg += "; " + strings.Join(vs.failures, "; ")
		}
		p.setCondition(v1alpha1.ConditionViewsReady, metav1.ConditionFalse, v1alpha1.ReasonNameConflict, msg)
	case len(vs.failures) > 0:
		p.setCondition(v1alpha1.ConditionViewsReady, metav1.ConditionFalse, v1alpha1.ReasonViewFailed,
			fmt.Sprintf("%d of %d view(s) in place; %s", len(vs.status), len(p.viewPlans), strings.Join(vs.failures, "; ")))
	case len(p.viewPlans) == 0:
		p.setCondition(v1alpha1.ConditionViewsReady, metav1.ConditionTrue, v1alpha1.ReasonNoViews, "the spec declares no views")
	default:
		names := make([]string, len(vs.status))
		for i, s := range vs.status {
			names[i] = s.Relation
		}
		p.setCondition(v1alpha1.ConditionViewsReady, metav1.ConditionTrue, v1alpha1.ReasonViewsApplied,
			fmt.Sprintf("%d view(s) in place for version %s: %s", len(names), p.status.PublishedVersion, strings.Join(names, ", ")))
	}
}

// viewRef names a view in AnnotationViews.
type viewRef struct {
	Schema string `json:"schema"` // as --view-schema: schema or catalog.schema
	Name   string `json:"name"`
}

// recordedViews reads AnnotationViews; a value that does not parse
// records nothing (views carrying our uid in the current schema are still
// found through their comments).
func recordedViews(sm *v1alpha1.SemanticModel) []viewRef {
	raw, ok := sm.Annotations[v1alpha1.AnnotationViews]
	if !ok {
		return nil
	}
	var refs []viewRef
	if err := json.Unmarshal([]byte(raw), &refs); err != nil {
		return nil
	}
	return refs
}

func addRef(refs []viewRef, ref viewRef) []viewRef {
	if slices.Contains(refs, ref) {
		return refs
	}
	return append(refs, ref)
}

func sameRefs(a, b []viewRef) bool {
	if len(a) != len(b) {
		return false
	}
	for _, r := range a {
		if !slices.Contains(b, r) {
			return false
		}
	}
	return true
}

// setViewMetadata writes AnnotationViews (removed when refs is empty) and
// adds or removes FinalizerViews, with one optimistic-locked merge patch
// of the SemanticModel's metadata; sm is updated from the answer, so the
// status write of the pass does not conflict with it.
func (r *Reconciler) setViewMetadata(ctx context.Context, sm *v1alpha1.SemanticModel, refs []viewRef, finalizer bool) error {
	before := sm.DeepCopy()
	slices.SortFunc(refs, func(a, b viewRef) int {
		return strings.Compare(a.Schema+"\x00"+a.Name, b.Schema+"\x00"+b.Name)
	})
	if len(refs) == 0 {
		delete(sm.Annotations, v1alpha1.AnnotationViews)
	} else {
		data, err := json.Marshal(refs)
		if err != nil {
			return err
		}
		if sm.Annotations == nil {
			sm.Annotations = map[string]string{}
		}
		sm.Annotations[v1alpha1.AnnotationViews] = string(data)
	}
	if finalizer {
		controllerutil.AddFinalizer(sm, v1alpha1.FinalizerViews)
	} else {
		controllerutil.RemoveFinalizer(sm, v1alpha1.FinalizerViews)
	}
	status := sm.Status
	err := r.Client.Patch(ctx, sm, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{}), client.FieldOwner(FieldManager))
	sm.Status = status
	if err != nil {
		*sm = *before
	}
	return err
}

// viewOwner is what an ownership comment says.
type viewOwner struct {
	namespace, name, uid, digest string
}

// Ownership comments read, for example:
//
//	ossie.dev/owner=analytics/flights ossie.dev/uid=0f3c... ossie.dev/definition=sha256:9a1e... (managed by ossie-operator; do not edit)
const (
	commentOwner      = "ossie.dev/owner="
	commentUID        = "ossie.dev/uid="
	commentDefinition = "ossie.dev/definition="
)

// ownerComment is the comment of a view sm owns whose SQL has digest.
func ownerComment(sm *v1alpha1.SemanticModel, digest string) string {
	return commentOwner + sm.Namespace + "/" + sm.Name + " " + commentUID + string(sm.UID) + " " + commentDefinition + digest +
		" (managed by ossie-operator; do not edit)"
}

// parseOwner reads an ownership comment; ok is false for any other text.
func parseOwner(comment string) (viewOwner, bool) {
	var o viewOwner
	for _, f := range strings.Fields(comment) {
		switch {
		case strings.HasPrefix(f, commentOwner):
			o.namespace, o.name, _ = strings.Cut(strings.TrimPrefix(f, commentOwner), "/")
		case strings.HasPrefix(f, commentUID):
			o.uid = strings.TrimPrefix(f, commentUID)
		case strings.HasPrefix(f, commentDefinition):
			o.digest = strings.TrimPrefix(f, commentDefinition)
		}
	}
	return o, o.name != "" && o.uid != ""
}

// owns reports whether the comment names sm itself: namespace, name and
// uid (a model deleted and created again under the same name is another
// object and does not inherit retained views).
func (o viewOwner) owns(sm *v1alpha1.SemanticModel) bool {
	return o.namespace == sm.Namespace && o.name == sm.Name && o.uid == string(sm.UID)
}

func (o viewOwner) describe(ours bool) string {
	if !ours {
		return "was not created by the ossie operator"
	}
	return fmt.Sprintf("belongs to SemanticModel %s/%s (uid %s)", o.namespace, o.name, o.uid)
}
