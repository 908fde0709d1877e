// Package localcluster runs the whole product on one machine, on loopback
// only: etcd and kube-apiserver (the binaries scripts/kube-tools.sh builds
// into bin/k8s, started the way controller-runtime's envtest does), a
// PostgreSQL server in a temporary directory (test/pgtest) loaded with the
// flights data, the SemanticModel CRD and a namespace applied with
// kubectl, and bin/operator and bin/server (Kubernetes mode) as child
// processes with the flags a user would type. `make cluster-demo`
// (examples/flights/cluster) and the end-to-end test of this package run
// the same code, so the demo cannot rot.
//
// Every kubectl step is run through the kubectl binary and echoed as the
// command line it is, so what the demo prints is what README's "On
// Kubernetes" section tells a user to type.
package localcluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/ossie-dev/ossie/test/kubetest"
	"github.com/ossie-dev/ossie/test/localproc"
	"github.com/ossie-dev/ossie/test/pgtest"
)

// Options configure Start. Zero values take the defaults noted.
type Options struct {
	// Root is the repository root (default kubetest.Root()).
	Root string
	// DataDir holds airports.csv and flights-3m.parquet or
	// flights-sample.parquet (default: examples/flights/data/full when the
	// full data is there, else the committed sample).
	DataDir string
	// Namespace the model is applied to (default "analytics").
	Namespace string
	// ServerAddr is the server's --addr (default: a free loopback port).
	ServerAddr string
	// BinDir receives bin/operator and bin/server (default Root/bin). A
	// build that is up to date is a no-op.
	BinDir string
	// Log receives one line per step (default io.Discard).
	Log io.Writer
}

// Cluster is a running local cluster. Stop ends everything it started.
type Cluster struct {
	// Dir holds kubeconfig, dsn (the PostgreSQL connection string, mode
	// 0600), operator.log and server.log; removed by Stop.
	Dir string
	// Kubeconfig is a cluster-admin kubeconfig file for kube-apiserver.
	Kubeconfig string
	// KubeBin is the directory of kube-apiserver, etcd and kubectl.
	KubeBin string
	// DSNFile holds the connection string of the flights database.
	DSNFile string
	// ServerURL is the semantic server's base URL (http://127.0.0.1:PORT).
	ServerURL string
	// Namespace holds the SemanticModel "flights".
	Namespace string
	// FlightRows is how many flights were loaded.
	FlightRows int64
	// Timings of the start-up steps, in order.
	Timings []Timing

	opts    Options
	pg      *pgtest.Server
	env     *envtest.Environment
	procs   []*process
	stopped bool
}

// Timing is how long one start-up step took.
type Timing struct {
	Step string
	Took time.Duration
}

// ModelName is the SemanticModel (and semantic_model) the cluster serves.
const ModelName = "flights"

// Start brings the cluster up and returns once the SemanticModel is Ready
// and the server serves it. On error everything started so far is stopped.
// ctx bounds the start only; the cluster runs until Stop.
func Start(ctx context.Context, o Options) (c *Cluster, err error) {
	if o.Root == "" {
		o.Root = kubetest.Root()
	}
	if o.Namespace == "" {
		o.Namespace = "analytics"
	}
	if o.BinDir == "" {
		o.BinDir = filepath.Join(o.Root, "bin")
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	setEnvtestLogger(o.Log)
	if o.DataDir == "" {
		o.DataDir = DefaultDataDir(o.Root)
	}
	if o.ServerAddr == "" {
		port, err := localproc.FreePort()
		if err != nil {
			return nil, err
		}
		o.ServerAddr = "127.0.0.1:" + strconv.Itoa(port)
	}
	dir, err := os.MkdirTemp("", "ossie-cluster-")
	if err != nil {
		return nil, err
	}
	c = &Cluster{Dir: dir, Namespace: o.Namespace, ServerURL: "http://" + o.ServerAddr, opts: o,
		Kubeconfig: filepath.Join(dir, "kubeconfig"), DSNFile: filepath.Join(dir, "dsn")}
	defer func() {
		if err != nil {
			c.Stop()
			c = nil
		}
	}()
	for _, s := range []struct {
		name string
		run  func(context.Context) error
	}{
		{"control-plane binaries (scripts/kube-tools.sh)", c.kubeTools},
		{"bin/operator and bin/server (go build)", c.buildBinaries},
		{"PostgreSQL with the flights data", c.startPostgres},
		{"etcd and kube-apiserver", c.startControlPlane},
		{"CRD and namespace", c.install},
		{"operator and server", c.startProcesses},
		{"SemanticModel Ready and served", c.applyModel},
	} {
		c.logf("== %s", s.name)
		begin := time.Now()
		if err := s.run(ctx); err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
		c.Timings = append(c.Timings, Timing{Step: s.name, Took: time.Since(begin)})
		c.logf("   done in %s", time.Since(begin).Round(100*time.Millisecond))
	}
	return c, nil
}

// DefaultDataDir is examples/flights/data/full when `make fetch-flights`
// put the 3 M-row data there, else the committed sample's directory.
func DefaultDataDir(root string) string {
	sample := filepath.Join(root, "examples", "flights", "data")
	full := filepath.Join(sample, "full")
	if isFile(filepath.Join(full, "flights-3m.parquet")) && isFile(filepath.Join(full, "airports.csv")) {
		return full
	}
	return sample
}

func (c *Cluster) logf(format string, args ...any) {
	fmt.Fprintf(c.opts.Log, format+"\n", args...)
}

func (c *Cluster) kubeTools(context.Context) error {
	dir, err := kubetest.Assets()
	if err != nil {
		return err
	}
	c.KubeBin = dir
	return nil
}

func (c *Cluster) buildBinaries(ctx context.Context) error {
	for _, name := range []string{"operator", "server"} {
		cmd := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(c.opts.BinDir, name), "./cmd/"+name)
		cmd.Dir = c.opts.Root
		c.logf("   $ %s", strings.Join(cmd.Args, " "))
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%v\n%s", err, out)
		}
	}
	return nil
}

func (c *Cluster) startPostgres(ctx context.Context) error {
	pg, err := pgtest.Start()
	if err != nil {
		return err
	}
	c.pg = pg
	const db = "flights"
	if err := pg.Exec(ctx, "postgres", "CREATE DATABASE "+db); err != nil {
		return err
	}
	dsn := pg.DSN(db)
	if err := os.WriteFile(c.DSNFile, []byte(dsn+"\n"), 0o600); err != nil {
		return err
	}
	c.logf("   PostgreSQL on 127.0.0.1:%d, database %s (connection string in %s)", pg.Port(), db, c.DSNFile)
	n, err := LoadFlights(ctx, dsn, c.opts.DataDir)
	if err != nil {
		return err
	}
	c.FlightRows = n
	c.logf("   loaded %d flights and the airports from %s", n, c.opts.DataDir)
	return nil
}

func (c *Cluster) startControlPlane(context.Context) error {
	c.env = &envtest.Environment{BinaryAssetsDirectory: c.KubeBin}
	if _, err := c.env.Start(); err != nil {
		c.env = nil
		return err
	}
	user, err := c.env.ControlPlane.AddUser(envtest.User{Name: "ossie-admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return err
	}
	kc, err := user.KubeConfig()
	if err != nil {
		return err
	}
	if err := os.WriteFile(c.Kubeconfig, kc, 0o600); err != nil {
		return err
	}
	c.logf("   kube-apiserver %s, etcd %s", c.env.ControlPlane.APIServer.SecureServing.URL("https", "/"), c.env.ControlPlane.Etcd.URL)
	return nil
}

func (c *Cluster) install(ctx context.Context) error {
	if _, err := c.Kubectl(ctx, "apply", "-f", "config/crd/bases/ossie.dev_semanticmodels.yaml"); err != nil {
		return err
	}
	if _, err := c.Kubectl(ctx, "wait", "--for=condition=Established", "crd/semanticmodels.ossie.dev", "--timeout=60s"); err != nil {
		return err
	}
	_, err := c.Kubectl(ctx, "create", "namespace", c.Namespace)
	return err
}

// OperatorArgs and ServerArgs are the command lines the cluster runs,
// relative to the repository root.
func (c *Cluster) OperatorArgs(probeAddr string) []string {
	return []string{filepath.Join(c.opts.BinDir, "operator"), "--engine=postgres", "--dsn-file=" + c.DSNFile,
		"--default-schema=public", "--namespaces=" + c.Namespace, "--kubeconfig=" + c.Kubeconfig,
		"--metrics-bind-address=0", "--health-probe-bind-address=" + probeAddr}
}

// ServerArgs: see OperatorArgs.
func (c *Cluster) ServerArgs() []string {
	return []string{filepath.Join(c.opts.BinDir, "server"), "--kube", "--namespaces=" + c.Namespace,
		"--kubeconfig=" + c.Kubeconfig, "--engine=postgres", "--dsn-file=" + c.DSNFile,
		"--default-schema=public", "--addr=" + c.opts.ServerAddr}
}

func (c *Cluster) startProcesses(ctx context.Context) error {
	port, err := localproc.FreePort()
	if err != nil {
		return err
	}
	probe := "127.0.0.1:" + strconv.Itoa(port)
	op, err := c.start("operator", c.OperatorArgs(probe))
	if err != nil {
		return err
	}
	if err := waitHTTP(ctx, "http://"+probe+"/readyz", op, nil); err != nil {
		return err
	}
	srv, err := c.start("server", c.ServerArgs())
	if err != nil {
		return err
	}
	return waitHTTP(ctx, c.ServerURL+"/healthz", srv, nil)
}

func (c *Cluster) applyModel(ctx context.Context) error {
	if _, err := c.Kubectl(ctx, "-n", c.Namespace, "apply", "-f", "examples/flights/semanticmodel.yaml"); err != nil {
		return err
	}
	if _, err := c.Kubectl(ctx, "-n", c.Namespace, "wait", "--for=condition=Ready", "sm/"+ModelName, "--timeout=120s"); err != nil {
		out, _ := c.Kubectl(ctx, "-n", c.Namespace, "describe", "sm", ModelName)
		return fmt.Errorf("%w\n%s", err, out)
	}
	srv := c.procs[len(c.procs)-1]
	return waitHTTP(ctx, c.ServerURL+"/readyz", srv, func(body []byte) bool {
		// /readyz keys a namespace's model as namespace/name.
		return bytes.Contains(body, []byte(`"`+c.Namespace+"/"+ModelName+`":`))
	})
}

// setEnvtestLogger gives controller-runtime (whose envtest starts etcd and
// kube-apiserver here) a logger writing its warnings and errors to w.
// Without one, the first envtest line logged 30 s or more after the
// process started — after the binaries are built — prints
// controller-runtime's "log.SetLogger(...) was never called" warning with
// a stack trace on stderr (issue 25 item 4).
func setEnvtestLogger(w io.Writer) {
	ctrllog.SetLogger(logr.FromSlogHandler(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelWarn})))
}

// Kubectl runs the kubectl of KubeBin against the cluster from the
// repository root, echoing the command line to Log, and returns its
// stdout; an exit status other than 0 is an error carrying its stderr.
func (c *Cluster) Kubectl(ctx context.Context, args ...string) (string, error) {
	c.logf("   $ kubectl %s", strings.Join(args, " "))
	cmd := exec.CommandContext(ctx, filepath.Join(c.KubeBin, "kubectl"), args...)
	cmd.Dir = c.opts.Root
	cmd.Env = append(os.Environ(), "KUBECONFIG="+c.Kubeconfig)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("kubectl %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// LogPath is the file a child process ("operator", "server") logs to.
func (c *Cluster) LogPath(name string) string { return filepath.Join(c.Dir, name+".log") }

// Stop ends the server, the operator, kube-apiserver, etcd and PostgreSQL
// and removes Dir. It is safe to call twice.
func (c *Cluster) Stop() error {
	if c.stopped {
		return nil
	}
	c.stopped = true
	var errs []error
	for i := len(c.procs) - 1; i >= 0; i-- {
		errs = append(errs, c.procs[i].stop())
	}
	if c.env != nil {
		errs = append(errs, c.env.Stop())
	}
	if c.pg != nil {
		errs = append(errs, c.pg.Stop())
	}
	errs = append(errs, os.RemoveAll(c.Dir))
	return errors.Join(errs...)
}

// process is a child started by the cluster.
type process struct {
	name   string
	cmd    *exec.Cmd
	log    *os.File
	exited chan struct{}
	err    error
}

func (c *Cluster) start(name string, args []string) (*process, error) {
	f, err := os.Create(c.LogPath(name))
	if err != nil {
		return nil, err
	}
	c.logf("   $ %s  (log: %s)", strings.Join(args, " "), f.Name())
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = c.opts.Root
	cmd.Stdout, cmd.Stderr = f, f
	// A process group of its own: Ctrl-C in the terminal reaches the demo
	// only, which then stops the children in order. A demo killed without
	// its cleanup still takes them with it (parent-death signal).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, err
	}
	p := &process{name: name, cmd: cmd, log: f, exited: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.exited) }()
	c.procs = append(c.procs, p)
	return p, nil
}

// stop sends SIGTERM (both binaries drain and exit 0), then SIGKILL after
// 15 s; an exit status other than 0 is an error.
func (p *process) stop() error {
	defer p.log.Close()
	select {
	case <-p.exited:
		return fmt.Errorf("%s had exited: %v", p.name, p.err)
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(15 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
		return fmt.Errorf("%s did not stop within 15s of SIGTERM", p.name)
	}
	if p.err != nil {
		return fmt.Errorf("%s: %v", p.name, p.err)
	}
	return nil
}

// waitHTTP polls url until it answers 200 (and ok accepts the body, when
// given), failing early when p exits or ctx ends.
func waitHTTP(ctx context.Context, url string, p *process, ok func([]byte) bool) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var last string
	for {
		code, body, err := get(ctx, url)
		if err == nil && code == 200 && (ok == nil || ok(body)) {
			return nil
		}
		if err != nil {
			last = err.Error()
		} else {
			last = fmt.Sprintf("%d %s", code, body)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s (last: %s): %w", url, last, ctx.Err())
		case <-p.exited:
			return fmt.Errorf("%s exited (%v) before %s answered; its log: %s", p.name, p.err, url, p.log.Name())
		case <-tick.C:
		}
	}
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
