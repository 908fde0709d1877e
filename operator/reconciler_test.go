package operator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/engine/postgres"
	"github.com/ossie-dev/ossie/operator"
)

// publishFlights creates the flights model and reconciles it to Ready,
// returning the published version.
func publishFlights(t *testing.T, f *fixture) string {
	t.Helper()
	f.create("flights", flightsSpec(t))
	f.mustReconcile("flights")
	sm := f.get("flights")
	wantCond(t, sm, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady)
	return sm.Status.PublishedVersion
}

func TestValidModelIsPublished(t *testing.T) {
	f := newFixture(t, operator.Options{})
	sm := f.create("flights", flightsSpec(t))
	res := f.mustReconcile("flights")
	if res.RequeueAfter != 0 {
		t.Errorf("a ready model asks for a requeue after %s", res.RequeueAfter)
	}
	sm = f.get("flights")

	for typ, want := range map[string]struct {
		status metav1.ConditionStatus
		reason string
	}{
		v1alpha1.ConditionValidated:     {metav1.ConditionTrue, v1alpha1.ReasonValid},
		v1alpha1.ConditionCompiled:      {metav1.ConditionTrue, v1alpha1.ReasonCompiled},
		v1alpha1.ConditionDriftDetected: {metav1.ConditionFalse, v1alpha1.ReasonNoDrift},
		v1alpha1.ConditionPublished:     {metav1.ConditionTrue, v1alpha1.ReasonPublished},
		v1alpha1.ConditionViewsReady:    {metav1.ConditionTrue, v1alpha1.ReasonNoViews},
		v1alpha1.ConditionReady:         {metav1.ConditionTrue, v1alpha1.ReasonReady},
	} {
		wantCond(t, sm, typ, want.status, want.reason)
	}
	if sm.Status.ObservedGeneration != sm.Generation {
		t.Errorf("observedGeneration %d, generation %d", sm.Status.ObservedGeneration, sm.Generation)
	}
	v := sm.Status.PublishedVersion
	if !strings.HasPrefix(v, "sha256:") || sm.Status.AttemptedVersion != v {
		t.Errorf("publishedVersion %q, attemptedVersion %q", v, sm.Status.AttemptedVersion)
	}

	// The bindings name the physical tables and count their columns.
	if len(sm.Status.Bindings) != 3 {
		t.Fatalf("bindings: %+v", sm.Status.Bindings)
	}
	for _, b := range sm.Status.Bindings {
		wantTable := "airports"
		if b.Dataset == "flights" {
			wantTable = "flights"
		}
		if b.Table != wantTable || b.Columns == 0 || len(b.Missing) != 0 || b.Model != "flights" {
			t.Errorf("binding %+v", b)
		}
	}

	// The ConfigMap follows the contract.
	cm := f.configMap("flights")
	if cm == nil {
		t.Fatal("no ConfigMap published")
	}
	wantLabels := map[string]string{
		v1alpha1.LabelManagedBy: v1alpha1.ManagedByOperator,
		v1alpha1.LabelArtifact:  "true",
		v1alpha1.LabelModel:     "flights",
		v1alpha1.LabelVersion:   "sha256-" + strings.TrimPrefix(v, "sha256:")[:32],
	}
	for k, want := range wantLabels {
		if cm.Labels[k] != want {
			t.Errorf("label %s = %q, want %q", k, cm.Labels[k], want)
		}
	}
	if cm.Annotations[v1alpha1.AnnotationVersion] != v {
		t.Errorf("annotation %s = %q, want %q", v1alpha1.AnnotationVersion, cm.Annotations[v1alpha1.AnnotationVersion], v)
	}
	if len(cm.Data) != 0 || len(cm.BinaryData) != 1 {
		t.Errorf("data keys %v, binaryData keys %d", cm.Data, len(cm.BinaryData))
	}
	b := bundleOf(t, cm)
	if b.Version != v || len(b.Artifacts) != 1 || b.Artifacts[0].Name != "flights" {
		t.Errorf("bundle version %s, %d artifacts", b.Version, len(b.Artifacts))
	}

	// Exactly one controller reference, to this SemanticModel, so that the
	// garbage collector deletes the ConfigMap with the model.
	if len(cm.OwnerReferences) != 1 {
		t.Fatalf("ownerReferences %+v", cm.OwnerReferences)
	}
	ref := cm.OwnerReferences[0]
	if ref.UID != sm.UID || ref.Name != sm.Name || ref.Kind != "SemanticModel" || ref.APIVersion != "ossie.dev/v1alpha1" ||
		ref.Controller == nil || !*ref.Controller || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
		t.Errorf("ownerReference %+v", ref)
	}

	if seen := f.eventReasons("flights", operator.EventPublished); !contains(seen, operator.EventPublished) {
		t.Errorf("events %v, want %s", seen, operator.EventPublished)
	}
	if got := metricValue(t, f, "ossie_operator_published_version_info", "namespace", f.ns, "name", "flights", "version", v); got != 1 {
		t.Errorf("published_version_info = %v", got)
	}
}

func TestUnchangedModelCausesNoWrites(t *testing.T) {
	f := newFixture(t, operator.Options{})
	v := publishFlights(t, f)
	cmBefore := f.configMap("flights")
	smBefore := f.get("flights")

	// kubectl apply of the same manifest: the API server keeps the
	// generation, the operator still runs on resync.
	f.update("flights", func(*v1alpha1.SemanticModelSpec) {})
	f.writes.Reset()
	for range 3 {
		if res := f.mustReconcile("flights"); res.RequeueAfter != 0 {
			t.Errorf("requeue after %s", res.RequeueAfter)
		}
	}
	if n := f.writes.Load(); n != 0 {
		t.Errorf("%d API writes for an unchanged model, want 0", n)
	}
	sm := f.get("flights")
	cm := f.configMap("flights")
	if sm.Status.PublishedVersion != v || cm.ResourceVersion != cmBefore.ResourceVersion || sm.ResourceVersion != smBefore.ResourceVersion {
		t.Errorf("version %s→%s, ConfigMap rv %s→%s, model rv %s→%s", v, sm.Status.PublishedVersion,
			cmBefore.ResourceVersion, cm.ResourceVersion, smBefore.ResourceVersion, sm.ResourceVersion)
	}
	if c := cond(t, sm, v1alpha1.ConditionReady); !c.LastTransitionTime.Equal(&metav1.Time{Time: cond(t, smBefore, v1alpha1.ConditionReady).LastTransitionTime.Time}) {
		t.Errorf("Ready lastTransitionTime moved")
	}
}

func TestInvalidSpecKeepsLastGood(t *testing.T) {
	f := newFixture(t, operator.Options{})
	v := publishFlights(t, f)
	cmBefore := f.configMap("flights")

	// Two independent mistakes: both must be reported at once.
	f.update("flights", func(s *v1alpha1.SemanticModelSpec) {
		m := &s.SemanticModel[0]
		m.Metrics[0].Expression.Dialects[0].Expression = "SUM(no_such_dataset.distance)"
		m.Relationships[0].To = "nowhere"
	})
	res, err := f.reconcile("flights")
	if err != nil || res.RequeueAfter != 0 {
		t.Errorf("an invalid spec is retried: result %+v, err %v (want none until the spec changes)", res, err)
	}
	sm := f.get("flights")
	c := wantCond(t, sm, v1alpha1.ConditionValidated, metav1.ConditionFalse, v1alpha1.ReasonValidationFailed)
	for _, code := range []string{"OSS2002", "OSS2009"} {
		if !strings.Contains(c.Message, code) {
			t.Errorf("Validated message lacks %s: %s", code, c.Message)
		}
	}
	var codes []string
	for _, p := range sm.Status.Problems {
		codes = append(codes, p.Code+" "+p.Path)
	}
	if len(sm.Status.Problems) < 2 || !strings.Contains(strings.Join(codes, ","), "OSS2009 semantic_model[0].metrics[0]") {
		t.Errorf("status.problems: %v", codes)
	}
	wantCond(t, sm, v1alpha1.ConditionCompiled, metav1.ConditionUnknown, v1alpha1.ReasonBlocked)
	// kstatus: stalled on the spec (the first failing step's reason), not
	// in progress.
	wantCond(t, sm, v1alpha1.ConditionStalled, metav1.ConditionTrue, v1alpha1.ReasonValidationFailed)
	if c := meta.FindStatusCondition(sm.Status.Conditions, v1alpha1.ConditionReconciling); c != nil {
		t.Errorf("Reconciling on an invalid spec: %+v", c)
	}
	wantCond(t, sm, v1alpha1.ConditionPublished, metav1.ConditionFalse, v1alpha1.ReasonBlocked)
	ready := wantCond(t, sm, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonLastGoodServing)
	if !strings.Contains(ready.Message, v) {
		t.Errorf("Ready message does not name the serving version: %s", ready.Message)
	}
	if sm.Status.PublishedVersion != v || sm.Status.AttemptedVersion != "" {
		t.Errorf("publishedVersion %s (want %s), attemptedVersion %q", sm.Status.PublishedVersion, v, sm.Status.AttemptedVersion)
	}
	cm := f.configMap("flights")
	if cm.ResourceVersion != cmBefore.ResourceVersion || !bytes.Equal(cm.BinaryData[v1alpha1.ArtifactKey], cmBefore.BinaryData[v1alpha1.ArtifactKey]) {
		t.Error("the ConfigMap changed for an invalid spec")
	}
	if seen := f.eventReasons("flights", operator.EventValidationFailed); !contains(seen, operator.EventValidationFailed) {
		t.Errorf("events %v, want %s", seen, operator.EventValidationFailed)
	}

	// Fixing the spec publishes again.
	f.update("flights", func(s *v1alpha1.SemanticModelSpec) { *s = flightsSpec(t) })
	f.mustReconcile("flights")
	sm = f.get("flights")
	wantCond(t, sm, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady)
	if sm.Status.PublishedVersion != v || len(sm.Status.Problems) != 0 {
		t.Errorf("after the fix: version %s, problems %v", sm.Status.PublishedVersion, sm.Status.Problems)
	}
}

func TestDriftBlocksPublicationAndRecovers(t *testing.T) {
	f := newFixture(t, operator.Options{})
	v1 := publishFlights(t, f)

	// A new spec version arrives while a column it reads is gone.
	f.exec("ALTER TABLE flights DROP COLUMN distance")
	f.update("flights", func(s *v1alpha1.SemanticModelSpec) { s.SemanticModel[0].Description = "changed" })
	res, err := f.reconcile("flights")
	if err != nil {
		t.Fatalf("drift is not an error to retry: %v", err)
	}
	if res.RequeueAfter != operator.DefaultDriftRecheck {
		t.Errorf("requeue after %s, want the drift recheck %s", res.RequeueAfter, operator.DefaultDriftRecheck)
	}
	sm := f.get("flights")
	d := wantCond(t, sm, v1alpha1.ConditionDriftDetected, metav1.ConditionTrue, v1alpha1.ReasonDrift)
	if !strings.Contains(d.Message, `"distance"`) || !strings.Contains(d.Message, "flights") {
		t.Errorf("drift message does not name the column: %s", d.Message)
	}
	var missing []string
	for _, b := range sm.Status.Bindings {
		missing = append(missing, b.Missing...)
	}
	if strings.Join(missing, ",") != "flights.distance" {
		t.Errorf("missing %v, want [flights.distance]", missing)
	}
	wantCond(t, sm, v1alpha1.ConditionPublished, metav1.ConditionFalse, v1alpha1.ReasonBlocked)
	wantCond(t, sm, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonLastGoodServing)
	v2 := sm.Status.AttemptedVersion
	if sm.Status.PublishedVersion != v1 || v2 == v1 || v2 == "" {
		t.Errorf("published %s (want %s), attempted %s", sm.Status.PublishedVersion, v1, v2)
	}
	if got := bundleOf(t, f.configMap("flights")).Version; got != v1 {
		t.Errorf("ConfigMap holds %s, want the last good %s", got, v1)
	}
	if got := metricValue(t, f, "ossie_operator_drift", "namespace", f.ns, "name", "flights"); got != 1 {
		t.Errorf("drift gauge %v", got)
	}

	// A missing table is drift too, named as such.
	f.exec("ALTER TABLE airports RENAME TO airports_old")
	f.mustReconcile("flights")
	sm = f.get("flights")
	d = wantCond(t, sm, v1alpha1.ConditionDriftDetected, metav1.ConditionTrue, v1alpha1.ReasonDrift)
	if !strings.Contains(d.Message, "airports does not exist") {
		t.Errorf("drift message does not name the table: %s", d.Message)
	}

	// Restoring the engine's objects recovers without any change to the
	// resource: the new version is published.
	f.exec("ALTER TABLE airports_old RENAME TO airports")
	f.exec("ALTER TABLE flights ADD COLUMN distance INTEGER")
	gen := sm.Generation
	if res := f.mustReconcile("flights"); res.RequeueAfter != 0 {
		t.Errorf("requeue after %s once recovered", res.RequeueAfter)
	}
	sm = f.get("flights")
	if sm.Generation != gen {
		t.Fatal("the test changed the resource")
	}
	wantCond(t, sm, v1alpha1.ConditionDriftDetected, metav1.ConditionFalse, v1alpha1.ReasonNoDrift)
	wantCond(t, sm, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady)
	if sm.Status.PublishedVersion != v2 || bundleOf(t, f.configMap("flights")).Version != v2 {
		t.Errorf("published %s, want %s", sm.Status.PublishedVersion, v2)
	}
	seen := f.eventReasons("flights", operator.EventDriftDetected, operator.EventRecovered)
	for _, want := range []string{operator.EventDriftDetected, operator.EventRecovered} {
		if !contains(seen, want) {
			t.Errorf("events %v, want %s", seen, want)
		}
	}
	if got := metricValue(t, f, "ossie_operator_drift", "namespace", f.ns, "name", "flights"); got != 0 {
		t.Errorf("drift gauge %v after recovery", got)
	}
}

func TestEngineGoneIsNotDrift(t *testing.T) {
	f := newFixture(t, operator.Options{})
	v := publishFlights(t, f)
	cmBefore := f.configMap("flights")

	// The engine goes away (closed pool).
	if err := f.eng.Close(); err != nil {
		t.Fatal(err)
	}
	f.writes.Reset()
	_, err := f.reconcile("flights")
	if !errors.Is(err, operator.ErrEngineUnavailable) {
		t.Fatalf("error %v: the request would not be retried with backoff", err)
	}
	sm := f.get("flights")
	wantCond(t, sm, v1alpha1.ConditionDriftDetected, metav1.ConditionUnknown, v1alpha1.ReasonEngineUnavailable)
	wantCond(t, sm, v1alpha1.ConditionReconciling, metav1.ConditionTrue, v1alpha1.ReasonEngineUnavailable)
	if c := meta.FindStatusCondition(sm.Status.Conditions, v1alpha1.ConditionStalled); c != nil {
		t.Errorf("Stalled while the engine is retried: %+v", c)
	}
	// The current version is published; it keeps serving, but Ready says
	// the engine cannot be reached.
	wantCond(t, sm, v1alpha1.ConditionPublished, metav1.ConditionTrue, v1alpha1.ReasonPublished)
	wantCond(t, sm, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonEngineUnavailable)
	if n := f.writes.Load(); n != 1 {
		t.Errorf("%d writes, want the one status update", n)
	}
	if cm := f.configMap("flights"); cm.ResourceVersion != cmBefore.ResourceVersion {
		t.Error("the ConfigMap was rewritten while the engine was away")
	}
	if len(sm.Status.Bindings) != 3 {
		t.Errorf("bindings were dropped: %+v", sm.Status.Bindings)
	}
	if seen := f.eventReasons("flights", operator.EventEngineUnavailable); contains(seen, operator.EventDriftDetected) || !contains(seen, operator.EventEngineUnavailable) {
		t.Errorf("events %v: want EngineUnavailable and no DriftDetected", seen)
	}
	// A second failing pass writes nothing: the status did not change.
	f.writes.Reset()
	if _, err := f.reconcile("flights"); err == nil {
		t.Error("no error on the second pass")
	}
	if n := f.writes.Load(); n != 0 {
		t.Errorf("%d writes on a repeated engine failure", n)
	}

	// The engine comes back: recovery without a change to the resource.
	f.setEngine(openFlights(t, f.dbPath, false))
	if _, err := f.reconcile("flights"); err != nil {
		t.Fatal(err)
	}
	sm = f.get("flights")
	wantCond(t, sm, v1alpha1.ConditionDriftDetected, metav1.ConditionFalse, v1alpha1.ReasonNoDrift)
	wantCond(t, sm, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady)
	if sm.Status.PublishedVersion != v {
		t.Errorf("version %s, want %s", sm.Status.PublishedVersion, v)
	}
	if seen := f.eventReasons("flights", operator.EventRecovered); !contains(seen, operator.EventRecovered) {
		t.Errorf("events %v, want Recovered", seen)
	}
}

// An unreachable PostgreSQL server (nothing listens on the port) is an
// outage, not drift, and its credentials appear nowhere.
func TestUnreachablePostgresIsNotDriftAndLeaksNoSecret(t *testing.T) {
	f := newFixture(t, operator.Options{})
	f.create("flights", flightsSpec(t))
	const secret = "s3cr3t-pw-never-shown"
	t.Setenv("OSSIE_TEST_DSN", "postgres://ossie:"+secret+"@127.0.0.1:1/ossie?connect_timeout=2&sslmode=disable")
	pg, err := postgres.Open(context.Background(), postgres.Config{DSNEnv: "OSSIE_TEST_DSN"})
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	f.setEngine(pg)

	_, err = f.reconcile("flights")
	if err == nil {
		t.Fatal("no error returned for an unreachable engine")
	}
	if strings.Contains(err.Error(), secret) {
		t.Errorf("the returned (logged) error holds the password: %v", err)
	}
	sm := f.get("flights")
	wantCond(t, sm, v1alpha1.ConditionDriftDetected, metav1.ConditionUnknown, v1alpha1.ReasonEngineUnavailable)
	wantCond(t, sm, v1alpha1.ConditionPublished, metav1.ConditionFalse, v1alpha1.ReasonBlocked)
	wantCond(t, sm, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonNotPublished)
	if f.configMap("flights") != nil {
		t.Error("published without a bind check")
	}
	f.eventReasons("flights", operator.EventEngineUnavailable)
	if strings.Contains(f.eventNotes(), secret) {
		t.Error("an event holds the password")
	}
	if b, _ := jsonOf(sm.Status); strings.Contains(b, secret) {
		t.Error("the status holds the password")
	}
}

func TestArtifactTooLargeKeepsLastGood(t *testing.T) {
	f := newFixture(t, operator.Options{})
	v := publishFlights(t, f)
	cmBefore := f.configMap("flights")

	small := operator.New(f.r.Client, nil, suite.scheme, f.eng, nil, nil, operator.Options{MaxArtifactBytes: 512})
	f.update("flights", func(s *v1alpha1.SemanticModelSpec) { s.SemanticModel[0].Description = "a new version" })
	if _, err := small.Reconcile(f.ctx, requestFor(f, "flights")); err != nil {
		t.Fatal(err)
	}
	sm := f.get("flights")
	c := wantCond(t, sm, v1alpha1.ConditionPublished, metav1.ConditionFalse, v1alpha1.ReasonArtifactTooLarge)
	if !strings.Contains(c.Message, "512") {
		t.Errorf("message does not give the limit: %s", c.Message)
	}
	wantCond(t, sm, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonLastGoodServing)
	if sm.Status.PublishedVersion != v {
		t.Errorf("publishedVersion %s, want the last good %s", sm.Status.PublishedVersion, v)
	}
	if cm := f.configMap("flights"); cm.ResourceVersion != cmBefore.ResourceVersion {
		t.Error("the ConfigMap changed")
	}
}

func TestForeignConfigMapIsNeverOverwritten(t *testing.T) {
	f := newFixture(t, operator.Options{})
	foreign := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: v1alpha1.ConfigMapName("flights"), Namespace: f.ns, Labels: map[string]string{"owner": "someone-else"}},
		Data:       map[string]string{"keep": "me"},
	}
	if err := f.api.Create(f.ctx, foreign); err != nil {
		t.Fatal(err)
	}
	f.create("flights", flightsSpec(t))
	f.mustReconcile("flights")
	sm := f.get("flights")
	wantCond(t, sm, v1alpha1.ConditionPublished, metav1.ConditionFalse, v1alpha1.ReasonNameConflict)
	wantCond(t, sm, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonNotPublished)
	if sm.Status.PublishedVersion != "" {
		t.Errorf("publishedVersion %q for a foreign ConfigMap", sm.Status.PublishedVersion)
	}
	cm := f.configMap("flights")
	if cm.ResourceVersion != foreign.ResourceVersion || cm.Data["keep"] != "me" || len(cm.OwnerReferences) != 0 {
		t.Errorf("the foreign ConfigMap was touched: %+v", cm.ObjectMeta)
	}
	if seen := f.eventReasons("flights", operator.EventNameConflict); !contains(seen, operator.EventNameConflict) {
		t.Errorf("events %v", seen)
	}

	// Once the name is free, the model publishes.
	if err := f.api.Delete(f.ctx, cm); err != nil {
		t.Fatal(err)
	}
	f.mustReconcile("flights")
	wantCond(t, f.get("flights"), v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady)
}

// A ConfigMap edited or deleted behind the operator's back is restored.
func TestPublishedConfigMapIsRestored(t *testing.T) {
	f := newFixture(t, operator.Options{})
	v := publishFlights(t, f)
	cm := f.configMap("flights")
	cm.BinaryData[v1alpha1.ArtifactKey] = []byte("garbage")
	cm.Labels["team"] = "analytics" // someone else's label stays
	if err := f.api.Update(f.ctx, cm); err != nil {
		t.Fatal(err)
	}
	f.writes.Reset()
	f.mustReconcile("flights")
	if n := f.writes.Load(); n != 1 {
		t.Errorf("%d writes to restore the ConfigMap, want 1", n)
	}
	cm = f.configMap("flights")
	if bundleOf(t, cm).Version != v || cm.Labels["team"] != "analytics" {
		t.Errorf("not restored: labels %v", cm.Labels)
	}

	if err := f.api.Delete(f.ctx, cm); err != nil {
		t.Fatal(err)
	}
	f.mustReconcile("flights")
	if cm := f.configMap("flights"); cm == nil || bundleOf(t, cm).Version != v {
		t.Error("a deleted ConfigMap was not republished")
	}
}

func TestDeletedModelIsForgotten(t *testing.T) {
	f := newFixture(t, operator.Options{})
	publishFlights(t, f)
	if err := f.api.Delete(f.ctx, f.get("flights")); err != nil {
		t.Fatal(err)
	}
	f.mustReconcile("flights") // the finalizer's pass deletes the ConfigMap
	if cm := f.configMap("flights"); cm != nil {
		t.Errorf("the deleted model's ConfigMap is left (no garbage collector here): %v", cm.OwnerReferences)
	}
	if err := f.api.Get(f.ctx, types.NamespacedName{Namespace: f.ns, Name: "flights"}, &v1alpha1.SemanticModel{}); !apierrors.IsNotFound(err) {
		t.Errorf("the model is still held: %v", err)
	}
	f.writes.Reset()
	res, err := f.reconcile("flights")
	if err != nil || res.RequeueAfter != 0 || f.writes.Load() != 0 {
		t.Errorf("reconcile of a deleted model: %+v, %v, %d writes", res, err, f.writes.Load())
	}
	if n := seriesCount(t, f, "ossie_operator_published_version_info"); n != 0 {
		t.Errorf("%d published_version_info series left for a deleted model", n)
	}
}

// metricValue returns the value of the series name{labels...} of the
// fixture's registry, failing when it does not exist.
func metricValue(t *testing.T, f *fixture, name string, labels ...string) float64 {
	t.Helper()
	families, err := f.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for i := 0; i+1 < len(labels); i += 2 {
		want[labels[i]] = labels[i+1]
	}
	for _, fam := range families {
		if fam.GetName() != name {
			continue
		}
	series:
		for _, m := range fam.GetMetric() {
			if len(m.GetLabel()) != len(want) {
				continue
			}
			for _, l := range m.GetLabel() {
				if want[l.GetName()] != l.GetValue() {
					continue series
				}
			}
			if g := m.GetGauge(); g != nil {
				return g.GetValue()
			}
			return m.GetCounter().GetValue()
		}
	}
	t.Fatalf("no series %s%v", name, want)
	return 0
}

// seriesCount is the number of series of metric name.
func seriesCount(t *testing.T, f *fixture, name string) int {
	t.Helper()
	families, err := f.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, fam := range families {
		if fam.GetName() == name {
			return len(fam.GetMetric())
		}
	}
	return 0
}

func requestFor(f *fixture, name string) reconcile.Request {
	return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: f.ns, Name: name}}
}

func jsonOf(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}
