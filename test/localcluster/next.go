package localcluster

import (
	"fmt"
	"strings"
)

// Env is the shell set-up the next commands assume: the cluster's
// kubeconfig and the directory of kubectl first on PATH.
func (c *Cluster) Env() string {
	return fmt.Sprintf("export KUBECONFIG=%s PATH=%s:$PATH", c.Kubeconfig, c.KubeBin)
}

// Next are three commands to try once the cluster runs, each a shell
// line for bash after Env (the end-to-end test runs them as printed).
type Next struct {
	// Get lists the SemanticModels with their READY and DRIFT columns.
	Get string
	// Break renames a column the model uses behind the operator's back
	// and asks for a reconcile now; Get then shows the drift.
	Break string
	// Curl asks the server a question.
	Curl string
}

// BrokenColumn is the column Next.Break renames (flights.delay, used by
// the delay metrics and on_time_rate) and what it renames it to.
const BrokenColumn, BrokenTo = "delay", "arrival_delay"

// Next returns the commands for this cluster.
func (c *Cluster) Next() Next {
	return Next{
		Get: "kubectl -n " + c.Namespace + " get sm",
		Break: fmt.Sprintf(`psql "$(cat %s)" -c 'ALTER TABLE flights RENAME COLUMN %s TO %s' && kubectl -n %s annotate sm %s ossie.dev/reconcile-request="$(date +%%s)" --overwrite`,
			c.DSNFile, BrokenColumn, BrokenTo, c.Namespace, ModelName),
		Curl: fmt.Sprintf(`curl -s -X POST %s/v1/models/%s/query -H 'Content-Type: application/json' -d '%s'`, c.ServerURL, ModelName, Question),
	}
}

// Summary is what the demo prints once the cluster is up.
func (c *Cluster) Summary() string {
	n := c.Next()
	var b strings.Builder
	fmt.Fprintf(&b, "KUBECONFIG  %s\n", c.Kubeconfig)
	fmt.Fprintf(&b, "server      %s  (log: %s)\n", c.ServerURL, c.LogPath("server"))
	fmt.Fprintf(&b, "operator    log: %s\n", c.LogPath("operator"))
	fmt.Fprintf(&b, "PostgreSQL  connection string in %s\n", c.DSNFile)
	fmt.Fprintf(&b, "\nIn another shell:\n\n  %s\n\n", c.Env())
	fmt.Fprintf(&b, "  # 1. the model, its readiness and drift\n  %s\n\n", n.Get)
	fmt.Fprintf(&b, "  # 2. break a column behind the operator's back, then run 1 again: DRIFT turns True (describe sm %s says which column)\n  %s\n\n", ModelName, n.Break)
	fmt.Fprintf(&b, "  # 3. ask the server\n  %s\n", n.Curl)
	return b.String()
}
