package soak

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/ossie-dev/ossie/api/ossie"
	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/test/differential"
	"github.com/ossie-dev/ossie/test/kubetest"
	"github.com/ossie-dev/ossie/test/localproc"
)

// The operator in the loop. One more generated case is not published by
// the soak but applied as a SemanticModel and reconciled by the real
// operator process (cmd/operator) on the same PostgreSQL and
// kube-apiserver; the server serves the ConfigMap the operator writes,
// and the load asks it like every other case. After every fault the
// operator's status must tell the truth within one reconcile (one is
// requested with the ossie.dev/reconcile-request annotation): Ready
// True for the current generation, neither Stalled nor Reconciling, and
// publishedVersion the version the server serves. Two faults are its
// own: its ConfigMap corrupted and then deleted (the operator writes it
// back), and its table renamed away and back (the status says drift,
// the server keeps the last good version; healed, Ready again).

// opNamespace holds the operator's case.
const opNamespace = "soak-op"

// reconcileWithin is how long a requested reconcile may take to show in
// the status: the drift check asks the engine once per dataset, and the
// machine may be loaded.
const reconcileWithin = 30 * time.Second

// operatorRun is the operator process and what talks to its resources.
type operatorRun struct {
	cmd    *exec.Cmd
	exited chan struct{}
	log    string
	kc     client.Client
	c      *soakCase
}

// startOperator starts the operator for case c (its tables in c's
// schema, which the operator is given as --default-schema), applies c's
// SemanticModel and waits until it is Ready and served.
func (w *world) startOperator(ctx context.Context, c *soakCase) error {
	bin, err := differential.Binary(kubetest.Root(), "operator")
	if err != nil {
		return err
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", w.kcfg)
	if err != nil {
		return err
	}
	scheme := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return err
	}
	if err := corev1.AddToScheme(scheme); err != nil {
		return err
	}
	kc, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	port, err := localproc.FreePort()
	if err != nil {
		return err
	}
	op := &operatorRun{kc: kc, c: c, log: filepath.Join(w.dir, "operator.log")}
	logf, err := os.Create(op.log)
	if err != nil {
		return err
	}
	// The engine connection string comes from the environment the soak
	// set (pgDSNEnv), as a Secret would give it.
	op.cmd = exec.Command(bin, "--engine=postgres", "--dsn-env="+pgDSNEnv, "--default-schema="+c.Place.Schema,
		"--namespaces="+opNamespace, "--kubeconfig="+w.kcfg, "--resync=20s", "--drift-recheck=2s",
		"--metrics-bind-address=0", "--health-probe-bind-address=127.0.0.1:"+strconv.Itoa(port), "--verbose")
	op.cmd.Stdout, op.cmd.Stderr = logf, logf
	if op.exited, err = localproc.Spawn(op.cmd, logf); err != nil {
		return err
	}
	w.op = op
	if err := kc.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: opNamespace}}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	sm, err := semanticModel(c)
	if err != nil {
		return err
	}
	if err := kc.Create(ctx, sm); err != nil {
		return err
	}
	if why := w.operatorTruth(ctx, false); why != "" {
		return fmt.Errorf("the operator's model never became Ready: %s\n%s", why, tail(w.operatorLog()))
	}
	return nil
}

// semanticModel is c's documents as a SemanticModel in opNamespace.
func semanticModel(c *soakCase) (*v1alpha1.SemanticModel, error) {
	sm := &v1alpha1.SemanticModel{ObjectMeta: metav1.ObjectMeta{Name: c.ModelName, Namespace: opNamespace}}
	doc, err := os.ReadFile(c.Files.Model)
	if err != nil {
		return nil, err
	}
	if err := yaml.Unmarshal(doc, &sm.Spec.Document); err != nil {
		return nil, fmt.Errorf("%s as a SemanticModel: %w", c.Files.Model, err)
	}
	if c.Files.Governance != "" {
		g, err := os.ReadFile(c.Files.Governance)
		if err != nil {
			return nil, err
		}
		sm.Spec.Governance = &ossie.Governance{}
		if err := yaml.Unmarshal(g, sm.Spec.Governance); err != nil {
			return nil, fmt.Errorf("%s as spec.governance: %w", c.Files.Governance, err)
		}
	}
	return sm, nil
}

// operatorLog is what the operator has logged so far.
func (w *world) operatorLog() string {
	b, _ := os.ReadFile(w.op.log)
	return string(b)
}

// stopOperator ends the operator process.
func (w *world) stopOperator() {
	if w.op != nil && w.op.cmd.Process != nil {
		localproc.Kill(w.op.cmd, w.op.exited)
	}
}

// requestReconcile sets the reconcile-request annotation to a new value:
// the operator reconciles the model once more.
func (w *world) requestReconcile(ctx context.Context) error {
	sm, err := w.operatorStatus(ctx)
	if err != nil {
		return err
	}
	patch := client.MergeFrom(sm.DeepCopy())
	if sm.Annotations == nil {
		sm.Annotations = map[string]string{}
	}
	sm.Annotations[v1alpha1.AnnotationReconcileRequest] = strconv.FormatInt(time.Now().UnixNano(), 10)
	return w.op.kc.Patch(ctx, sm, patch)
}

// operatorTruth waits up to reconcileWithin for the status to say what
// is true once the operator has reconciled (after a requested reconcile
// when request is set): Ready for the current generation, not Stalled
// or Reconciling, publishedVersion the version the server serves. It
// returns "" or what the status said last.
func (w *world) operatorTruth(ctx context.Context, request bool) string {
	if request {
		if err := w.requestReconcile(ctx); err != nil {
			return "requesting a reconcile: " + err.Error()
		}
	}
	var why string
	waitFor(reconcileWithin, func() bool {
		why = w.operatorReady(ctx)
		return why == ""
	})
	return why
}

// operatorReady is "" when the status is Ready and true now.
func (w *world) operatorReady(ctx context.Context) string {
	sm, err := w.operatorStatus(ctx)
	if err != nil {
		return err.Error()
	}
	st := sm.Status
	ready := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionReady)
	switch {
	case st.ObservedGeneration != sm.Generation:
		return fmt.Sprintf("observedGeneration %d, generation %d", st.ObservedGeneration, sm.Generation)
	case ready == nil || ready.Status != metav1.ConditionTrue:
		return "not Ready: " + conditionsText(st.Conditions)
	case meta.IsStatusConditionTrue(st.Conditions, v1alpha1.ConditionStalled), meta.IsStatusConditionTrue(st.Conditions, v1alpha1.ConditionReconciling):
		return "Ready but also " + conditionsText(st.Conditions)
	}
	if w.server() == nil {
		return "" // not started yet: Ready is all there is to check
	}
	served, err := w.served(ctx)
	if err != nil {
		return "the server's /readyz: " + err.Error()
	}
	if v := versionOf(served[opNamespace+"/"+w.op.c.ModelName]); v != st.PublishedVersion {
		return fmt.Sprintf("publishedVersion %s, the server serves %q", st.PublishedVersion, v)
	}
	return ""
}

func conditionsText(cs []metav1.Condition) string {
	var parts []string
	for _, c := range cs {
		parts = append(parts, fmt.Sprintf("%s=%s (%s)", c.Type, c.Status, c.Reason))
	}
	return strings.Join(parts, ", ")
}

// checkOperator is the check after every fault: a requested reconcile
// shows the truth.
func (w *world) checkOperator(ctx context.Context, rec *recorder) {
	if w.op == nil {
		return
	}
	if why := w.operatorTruth(ctx, true); why != "" {
		rec.fail("the operator's status %s after a reconcile was requested: %s; its log ends:\n%s", reconcileWithin, why, tail(w.operatorLog()))
	}
}

// operatorConfigMap corrupts the operator's ConfigMap and then deletes
// it: the operator, which owns and watches it, writes its artifact back
// each time; the server keeps serving the same version (and, while the
// ConfigMap is missing, answers 404).
func (w *world) operatorConfigMap(ctx context.Context, rec *recorder) {
	c := w.op.c
	cms := w.kube.Clientset().CoreV1().ConfigMaps(opNamespace)
	cm, err := cms.Get(ctx, configMapName(c), metav1.GetOptions{})
	if err != nil {
		rec.fail("reading the operator's ConfigMap: %v", err)
		return
	}
	good := string(cm.BinaryData[v1alpha1.ArtifactKey])
	cm.BinaryData[v1alpha1.ArtifactKey] = []byte("\x1f\x8b not a bundle")
	if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		rec.fail("corrupting the operator's ConfigMap: %v", err)
		return
	}
	restored := func() bool {
		cm, err := cms.Get(ctx, configMapName(c), metav1.GetOptions{})
		return err == nil && string(cm.BinaryData[v1alpha1.ArtifactKey]) == good
	}
	if !waitFor(reconcileWithin, restored) {
		rec.fail("the operator did not write its corrupted ConfigMap back within %s; its log ends:\n%s", reconcileWithin, tail(w.operatorLog()))
	}
	gone := rec.open(winModelGone, c.Name)
	err = cms.Delete(ctx, configMapName(c), metav1.DeleteOptions{})
	if err != nil {
		rec.fail("deleting the operator's ConfigMap: %v", err)
	}
	if !waitFor(reconcileWithin, restored) {
		rec.fail("the operator did not write its deleted ConfigMap back within %s", reconcileWithin)
	}
	if !waitFor(reconcileWithin, func() bool { return differential.ServesModel(opNamespace, c.ModelName)(ctx, w.server()) }) {
		rec.fail("%s not served again within %s of the operator writing its ConfigMap back", c.Name, reconcileWithin)
	}
	rec.close(gone)
}

// operatorDrift renames the operator's case's first table away: a
// requested reconcile must say DriftDetected=True and Stalled, not
// Ready, while publishedVersion stays and the server keeps serving it
// (its queries fail at the engine meanwhile: excused). Renamed back, the
// next reconcile is Ready again.
func (w *world) operatorDrift(ctx context.Context, rec *recorder) {
	c := w.op.c
	if len(c.Tables) == 0 {
		return
	}
	table := pgx.Identifier{c.Place.Schema, c.Tables[0].Name}.Sanitize()
	away := pgx.Identifier{c.Tables[0].Name + "_away"}.Sanitize()
	back := pgx.Identifier{c.Tables[0].Name}.Sanitize()
	before, _ := w.operatorStatus(ctx)
	win := rec.open(winDrift, c.Name)
	defer rec.close(win)
	if err := w.pg.Exec(ctx, "soak", "ALTER TABLE "+table+" RENAME TO "+away); err != nil {
		rec.fail("renaming %s away: %v", table, err)
		return
	}
	if err := w.requestReconcile(ctx); err != nil {
		rec.fail("requesting a reconcile: %v", err)
	}
	var last string
	if !waitFor(reconcileWithin, func() bool {
		sm, err := w.operatorStatus(ctx)
		if err != nil {
			return false
		}
		cs := sm.Status.Conditions
		last = conditionsText(cs)
		return meta.IsStatusConditionTrue(cs, v1alpha1.ConditionDriftDetected) && meta.IsStatusConditionTrue(cs, v1alpha1.ConditionStalled) &&
			!meta.IsStatusConditionTrue(cs, v1alpha1.ConditionReady) && before != nil && sm.Status.PublishedVersion == before.Status.PublishedVersion
	}) {
		rec.fail("with %s renamed away the status did not say drift within %s: %s", table, reconcileWithin, last)
	}
	served, _ := w.served(ctx)
	if before != nil && versionOf(served[opNamespace+"/"+c.ModelName]) != before.Status.PublishedVersion {
		rec.fail("during the drift the server serves %s, not the last good version %s", served[opNamespace+"/"+c.ModelName], before.Status.PublishedVersion)
	}
	moved := pgx.Identifier{c.Place.Schema, c.Tables[0].Name + "_away"}.Sanitize()
	if err := w.pg.Exec(ctx, "soak", "ALTER TABLE "+moved+" RENAME TO "+back); err != nil {
		rec.fail("renaming %s back: %v", moved, err)
	}
}

// operatorStatus is the operator's SemanticModel now.
func (w *world) operatorStatus(ctx context.Context) (*v1alpha1.SemanticModel, error) {
	sm := &v1alpha1.SemanticModel{}
	if err := w.op.kc.Get(ctx, client.ObjectKey{Namespace: opNamespace, Name: w.op.c.ModelName}, sm); err != nil {
		return nil, err
	}
	return sm, nil
}
