package differential

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ossie-dev/ossie/api/v1alpha1"
	"github.com/ossie-dev/ossie/compiler"
	"github.com/ossie-dev/ossie/engine"
	"github.com/ossie-dev/ossie/server/load"
)

// Kube publishes cases' artifacts on a real kube-apiserver the way the
// operator does: one namespace per case and place, holding the artifact
// ConfigMap (labels ossie.dev/artifact and ossie.dev/model, the bundle
// under v1alpha1.ArtifactKey).
type Kube struct {
	Kubeconfig string
	// Engine, when set, binds each artifact before it is published, as
	// the operator does: fields without datatype take the engine's type.
	// Nil publishes unbound artifacts.
	Engine engine.Engine
	cs     kubernetes.Interface
}

// NewKube connects to the API server of kubeconfig.
func NewKube(kubeconfig string) (*Kube, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &Kube{Kubeconfig: kubeconfig, cs: cs}, nil
}

// Clientset is the client Publish writes with (for tests that break what
// was published).
func (k *Kube) Clientset() kubernetes.Interface { return k.cs }

// Publish compiles c's documents for place p (its schema, and catalog on
// Trino, as the compile defaults; governance attached, as spec.governance
// is), binds it to the engine as the operator does (bindAsOperator) and
// publishes the bundle in namespace ns. A case whose documents do not
// compile or bind is returned as a refusal: the operator would publish
// nothing.
func (k *Kube) Publish(ctx context.Context, ns string, files Files, p Place) (*Outcome, error) {
	opts := compiler.CompileOptions{DefaultSchema: p.Schema, DefaultCatalog: p.Catalog}
	arts, err := load.ModelFiles{Paths: []string{files.Model}, Governance: files.Governance, Options: opts, Engine: k.Engine}.Load(ctx)
	if err != nil {
		o := refusal(err.Error())
		return &o, nil
	}
	arts, o, err := bindAsOperator(ctx, p, arts)
	if err != nil || o != nil {
		return o, err
	}
	bundle, err := compiler.EncodeBundle(compiler.NewBundle(arts))
	if err != nil {
		return nil, err
	}
	// An existing namespace is reused: publishing again after a
	// ConfigMap was deleted is what the operator does.
	if _, err := k.cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, err
	}
	for _, a := range arts {
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "ossie-" + a.Name,
				Labels: map[string]string{v1alpha1.LabelArtifact: "true", v1alpha1.LabelModel: a.Name}},
			BinaryData: map[string][]byte{v1alpha1.ArtifactKey: bundle},
		}
		if _, err := k.cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// KubeServerArgs are the flags of `server --kube` watching namespace ns
// for place p (engine flags; the compile defaults are in the artifact, so
// only Trino's session catalog and schema are given).
func KubeServerArgs(kubeconfig, ns string, p Place, tokens string) []string {
	args := []string{"--kube", "--kubeconfig", kubeconfig, "--namespaces", ns, "--cache-bytes", "0"}
	switch p.Engine {
	case DuckDB:
		args = append(args, "--duckdb", p.DuckDBPath)
	case Postgres:
		args = append(args, "--engine", "postgres", "--dsn-env", PostgresDSNEnv)
	case Trino:
		args = append(args, "--engine", "trino", "--dsn-env", TrinoDSNEnv, "--default-catalog", p.Catalog, "--default-schema", p.Schema)
	}
	if tokens != "" {
		args = append(args, "--tokens-file", tokens)
	}
	return args
}

// ServesModel is a readiness check: /readyz is 200 and lists ns/model.
func ServesModel(ns, model string) func(ctx context.Context, p *Proc) bool {
	return func(ctx context.Context, p *Proc) bool {
		code, body, err := p.Get(ctx, "/readyz")
		if err != nil || code != http.StatusOK {
			return false
		}
		var ready struct {
			Models map[string]json.RawMessage `json:"models"`
		}
		if json.Unmarshal(body, &ready) != nil {
			return false
		}
		_, ok := ready.Models[ns+"/"+model]
		return ok
	}
}

// KubePath is the namespaced query path of a published model.
func KubePath(ns, model string) string {
	return fmt.Sprintf("/v1/namespaces/%s/models/%s", ns, model)
}
