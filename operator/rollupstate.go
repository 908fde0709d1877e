package operator

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/ossie-dev/ossie/api/v1alpha1"
)

// publishRollupStates stores states in the artifact ConfigMap (data key
// v1alpha1.RollupsKey; removed when there are none) when it differs; the
// ConfigMap must be ours. A failure is an API error retried with backoff.
func (r *Reconciler) publishRollupStates(ctx context.Context, p *pass, states []v1alpha1.RollupState) {
	cm, owned, err := r.loadConfigMap(ctx, p)
	if err != nil || cm == nil || !owned {
		if err != nil && p.apiErr == nil {
			p.apiErr = err
		}
		return
	}
	var data string
	if len(states) > 0 {
		b, err := json.Marshal(states)
		if err != nil {
			return
		}
		data = string(b)
	}
	if cm.Data[v1alpha1.RollupsKey] == data {
		return
	}
	if data == "" {
		delete(cm.Data, v1alpha1.RollupsKey)
	} else {
		if cm.Data == nil {
			cm.Data = map[string]string{}
		}
		cm.Data[v1alpha1.RollupsKey] = data
	}
	// An Update carries the resourceVersion read: a concurrent write fails
	// it and the pass is retried.
	if err := r.Client.Update(ctx, cm, client.FieldOwner(FieldManager)); err != nil && p.apiErr == nil {
		p.apiErr = err
	}
}

// rollupData is the part of an existing ConfigMap's data the rollups step
// owns, kept by publish when it writes a new bundle.
func rollupData(cm *corev1.ConfigMap) map[string]string {
	if cm == nil || cm.Data[v1alpha1.RollupsKey] == "" {
		return nil
	}
	return map[string]string{v1alpha1.RollupsKey: cm.Data[v1alpha1.RollupsKey]}
}

// setFinalizer adds or removes finalizer with one optimistic-locked merge
// patch of sm's metadata (sm is updated from the answer; its status is
// kept for the pass's own status write).
func (r *Reconciler) setFinalizer(ctx context.Context, sm *v1alpha1.SemanticModel, finalizer string, present bool) error {
	before := sm.DeepCopy()
	if present {
		controllerutil.AddFinalizer(sm, finalizer)
	} else {
		controllerutil.RemoveFinalizer(sm, finalizer)
	}
	status := sm.Status
	err := r.Client.Patch(ctx, sm, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{}), client.FieldOwner(FieldManager))
	sm.Status = status
	if err != nil {
		*sm = *before
	}
	return err
}

// now is the reconciler's clock.
func (r *Reconciler) now() time.Time {
	if r.Clock != nil {
		return r.Clock()
	}
	return time.Now()
}

// Rollup table comments carry the view ownership marks (owner, uid,
// definition digest of the build SQL) and three more:
//
//	ossie.dev/rollup=<model>/<name> ossie.dev/source=<fingerprint> ossie.dev/built=<RFC 3339 UTC>
const (
	commentRollup = "ossie.dev/rollup="
	commentSource = "ossie.dev/source="
	commentBuilt  = "ossie.dev/built="
)

// rollupComment is what a rollup table's comment says.
type rollupComment struct {
	owner  viewOwner
	rollup string // model/name
	source string // fingerprint; "" when not tracked
	built  time.Time
}

func (c rollupComment) String() string {
	var b bytes.Buffer
	b.WriteString(commentOwner + c.owner.namespace + "/" + c.owner.name + " " + commentUID + c.owner.uid + " " + commentDefinition + c.owner.digest)
	b.WriteString(" " + commentRollup + c.rollup)
	if c.source != "" {
		b.WriteString(" " + commentSource + c.source)
	}
	b.WriteString(" " + commentBuilt + c.built.UTC().Format(time.RFC3339))
	b.WriteString(" (rollup table managed by ossie-operator; do not edit)")
	return b.String()
}

// parseRollupComment reads a rollup table's comment; ok is false for any
// comment without the owner and rollup marks.
func parseRollupComment(comment string) (rollupComment, bool) {
	o, ok := parseOwner(comment)
	c := rollupComment{owner: o}
	for _, f := range strings.Fields(comment) {
		switch {
		case strings.HasPrefix(f, commentRollup):
			c.rollup = strings.TrimPrefix(f, commentRollup)
		case strings.HasPrefix(f, commentSource):
			c.source = strings.TrimPrefix(f, commentSource)
		case strings.HasPrefix(f, commentBuilt):
			c.built, _ = time.Parse(time.RFC3339, strings.TrimPrefix(f, commentBuilt))
		}
	}
	return c, ok && c.rollup != ""
}

// shortDigest is "sha256:" and the first 16 hex digits of s's SHA-256.
func shortDigest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:8])
}
