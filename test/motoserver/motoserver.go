// Package motoserver starts moto's server mode (PyPI moto[server], an AWS
// emulator maintained by the moto project) for tests that need an AWS Glue
// Data Catalog made by others: `moto_server` from the virtual environment
// scripts/moto.sh installs into bin/moto/<Version>/venv, on a free loopback
// port, killed with the test binary.
//
// Start-up takes about 3.5 s on a shared 2-core machine and the process
// holds about 55 MiB resident. A test binary shares one server:
//
//	func TestMain(m *testing.M) { os.Exit(motoserver.Main(m)) }
//
//	func TestX(t *testing.T) {
//		acct := motoserver.Shared(t).NewAccount(t) // an empty AWS account
//		acct.Glue().CreateDatabase(...)
//		acct.SetEnv(t) // the AWS configuration chain now uses its key
//		...
//	}
//
// Accounts isolate tests: moto keeps one Glue catalog per account and
// region, and maps each IAM access key to the account it was created in, so
// a key made by NewAccount sees only that account's databases.
//
// What moto 5.2.5 does and does not do, as the Glue tests found it:
// GetDatabases and GetTables answer every item in one page (MaxResults and
// NextToken are ignored), so paging is proven only against the hand-written
// stand-in catalog/gluetest. IAM is enforced only after EnforceIAM (moto's
// /moto-api/reset-auth), and its refusals are XML bodies with HTTP 403
// (Code InvalidClientTokenId, SignatureDoesNotMatch or AccessDenied), not
// the JSON AccessDeniedException real Glue sends.
//
// When bin/moto is missing the tests skip loudly, unless
// OSSIE_REQUIRE_MOTO=1 (set by `make test`), which makes it a failure.
package motoserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/glue"
	gluetypes "github.com/aws/aws-sdk-go-v2/service/glue/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/ossie-dev/ossie/test/localproc"
)

// Version is the moto release scripts/moto.sh installs by default.
const Version = "5.2.5"

// Environment variables.
const (
	// HomeEnv points at an install made by scripts/moto.sh (the directory
	// it prints); default: bin/moto/<Version> of this repo.
	HomeEnv = "OSSIE_MOTO_HOME"
	// RequireEnv set to "1" turns a missing install into a failure.
	RequireEnv = "OSSIE_REQUIRE_MOTO"
)

// Region is the AWS region every account of this package uses.
const Region = "eu-west-1"

// ErrNotInstalled means no moto install was found (run scripts/moto.sh).
var ErrNotInstalled = errors.New("no moto install (run scripts/moto.sh, or `make test`, which runs it)")

// Server is one moto_server process started by Start. Its methods are safe
// for concurrent use.
type Server struct {
	port int
	log  *os.File

	// StartDuration is how long Start took (process start to the first
	// answer of /moto-api/).
	StartDuration time.Duration

	proc     *exec.Cmd
	exited   chan struct{}
	stopOnce sync.Once
	accounts atomic.Int64
}

// startTimeout bounds a start on a busy shared machine.
const startTimeout = time.Minute

// Home finds the install: $OSSIE_MOTO_HOME, else bin/moto/<Version> of the
// repository holding this file. Error: ErrNotInstalled, wrapped with where
// it looked.
func Home() (string, error) {
	dir := os.Getenv(HomeEnv)
	where := "$" + HomeEnv + "=" + dir
	if dir == "" {
		_, file, _, _ := runtime.Caller(0)
		dir = filepath.Join(filepath.Dir(file), "..", "..", "bin", "moto", Version)
		where = dir
	}
	for _, p := range []string{".complete", "venv/bin/moto_server"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			return "", fmt.Errorf("%w: %s lacks %s", ErrNotInstalled, where, p)
		}
	}
	return filepath.Abs(dir)
}

// Start runs moto_server on a free loopback port and waits until it
// answers (at most startTimeout). The caller must call Stop. Errors:
// ErrNotInstalled, or the failure with the end of the server's output.
func Start() (*Server, error) {
	home, err := Home()
	if err != nil {
		return nil, err
	}
	logf, err := os.CreateTemp("", "ossie-moto-*.log")
	if err != nil {
		return nil, err
	}
	_ = os.Remove(logf.Name()) // kept open for tail; gone with the process
	s := &Server{log: logf}
	// A port picked free can be taken before moto binds it; retry.
	for attempt := 0; ; attempt++ {
		if s.port, err = localproc.FreePort(); err == nil {
			err = s.start(home)
		}
		if err == nil || attempt == 3 || !strings.Contains(err.Error(), "Address already in use") {
			break
		}
	}
	if err != nil {
		logf.Close()
		return nil, err
	}
	return s, nil
}

func (s *Server) start(home string) error {
	begin := time.Now()
	cmd := exec.Command(filepath.Join(home, "venv", "bin", "moto_server"), "-H", "127.0.0.1", "-p", strconv.Itoa(s.port))
	cmd.Stdout, cmd.Stderr = s.log, s.log
	// The server keeps no state on disk; a clean environment keeps the
	// machine's AWS settings (MOTO_ACCOUNT_ID, INITIAL_NO_AUTH_ACTION_COUNT)
	// from changing what the tests see.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.TempDir(), "LANG=C.UTF-8", "PYTHONDONTWRITEBYTECODE=1"}
	// If the test binary dies (timeout panic, kill), the kernel kills the
	// server instead of leaving an orphan on the port.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	exited, err := localproc.Spawn(cmd, nil) // s.log stays open for tail; Stop closes it
	if err != nil {
		return fmt.Errorf("motoserver: start moto_server: %w", err)
	}
	s.proc, s.exited = cmd, exited
	if err := localproc.WaitHTTP(s.URL()+"/moto-api/", exited, startTimeout); err != nil {
		localproc.Kill(cmd, exited)
		return fmt.Errorf("motoserver: moto %s on 127.0.0.1:%d: %w\n--- server output (end) ---\n%s", Version, s.port, err, localproc.Tail(s.log.Name(), 4096))
	}
	s.StartDuration = time.Since(begin)
	return nil
}

// URL is the endpoint of every emulated service, http://127.0.0.1:PORT.
func (s *Server) URL() string { return "http://127.0.0.1:" + strconv.Itoa(s.port) }

// Port is the server's loopback HTTP port.
func (s *Server) Port() int { return s.port }

// RSS is the server's resident memory in bytes (from /proc), 0 if unknown.
func (s *Server) RSS() int64 {
	return localproc.RSS(s.proc.Process.Pid)
}

// Stop kills the server (its state is throw-away). Safe to call more than
// once.
func (s *Server) Stop() {
	s.stopOnce.Do(func() {
		if s.proc != nil {
			_ = s.proc.Process.Kill()
			<-s.exited
		}
		s.log.Close()
	})
}

// enforcing serializes the tests that turn IAM enforcement on.
var enforcing sync.Mutex

// EnforceIAM makes moto authenticate and authorize every request from now
// until t ends (POST /moto-api/reset-auth): unknown access keys, bad
// signatures and actions no IAM policy allows are refused. Keys made by
// NewAccount keep working (their user may do everything); NewUser makes
// narrower ones. Tests calling it run one at a time.
func (s *Server) EnforceIAM(t testing.TB) {
	t.Helper()
	enforcing.Lock()
	t.Cleanup(func() {
		defer enforcing.Unlock()
		if err := s.resetAuth("inf"); err != nil {
			t.Errorf("motoserver: %v", err)
		}
	})
	if err := s.resetAuth("0"); err != nil {
		t.Fatalf("motoserver: %v", err)
	}
}

// resetAuth sets moto's INITIAL_NO_AUTH_ACTION_COUNT: the number of
// requests still served without authentication ("inf": never checked).
func (s *Server) resetAuth(count string) error {
	resp, err := http.Post(s.URL()+"/moto-api/reset-auth", "text/plain", strings.NewReader(count))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("reset-auth %s: %s", count, resp.Status)
	}
	return nil
}

// Account is an AWS account of its own in the server, with an IAM user
// allowed everything and that user's access key.
type Account struct {
	ID                           string
	AccessKeyID, SecretAccessKey string
	srv                          *Server
}

// NewAccount makes a fresh account (a 12-digit id no other test uses) with
// an IAM user whose inline policy allows every action, and returns it. It
// fails t when the server refuses.
func (s *Server) NewAccount(t testing.TB) *Account {
	t.Helper()
	a := &Account{ID: strconv.FormatInt(111100000000+s.accounts.Add(1), 10), srv: s}
	// Made as moto's default identity, addressed to the new account; the
	// key then belongs to that account, and so do its requests.
	boot := iam.NewFromConfig(s.config(credentials.NewStaticCredentialsProvider("AKIDMOTOBOOTSTRAP", "bootstrap", "")), func(o *iam.Options) {
		o.APIOptions = append(o.APIOptions, smithyhttp.AddHeaderValue("x-moto-account-id", a.ID))
	})
	a.AccessKeyID, a.SecretAccessKey = newUser(t, boot, "ossie-test", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}`)
	return a
}

// NewUser makes an IAM user of the account with the inline policy (a
// JSON policy document; "" attaches none) and returns its access key.
func (a *Account) NewUser(t testing.TB, name, policy string) (accessKeyID, secretAccessKey string) {
	t.Helper()
	return newUser(t, a.IAM(), name, policy)
}

func newUser(t testing.TB, client *iam.Client, name, policy string) (string, string) {
	t.Helper()
	ctx := context.Background()
	var exists *iamtypes.EntityAlreadyExistsException
	if _, err := client.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String(name)}); err != nil && !errors.As(err, &exists) {
		t.Fatalf("motoserver: create user %s: %v", name, err)
	}
	if policy != "" {
		if _, err := client.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String(name), PolicyName: aws.String(name + "-policy"), PolicyDocument: aws.String(policy)}); err != nil {
			t.Fatalf("motoserver: put policy of %s: %v", name, err)
		}
	}
	key, err := client.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String(name)})
	if err != nil {
		t.Fatalf("motoserver: access key of %s: %v", name, err)
	}
	return aws.ToString(key.AccessKey.AccessKeyId), aws.ToString(key.AccessKey.SecretAccessKey)
}

// config is an AWS configuration against the server. Three attempts:
// moto's Werkzeug server now and then resets a connection while the client
// reads an answer (the SDK reports "use of closed network connection" and
// retries it, aws-sdk-go-v2 issue 2737), so a setup call may run twice;
// AddDatabase and NewUser accept the "already exists" of their retry.
func (s *Server) config(creds aws.CredentialsProvider) aws.Config {
	return aws.Config{Region: Region, Credentials: creds, BaseEndpoint: aws.String(s.URL()), RetryMaxAttempts: 3}
}

// Config is an AWS configuration for the account's key against the server.
func (a *Account) Config() aws.Config {
	return a.srv.config(credentials.NewStaticCredentialsProvider(a.AccessKeyID, a.SecretAccessKey, ""))
}

// Glue is a Glue client of the account, for setting up test catalogs.
func (a *Account) Glue() *glue.Client { return glue.NewFromConfig(a.Config()) }

// IAM is an IAM client of the account.
func (a *Account) IAM() *iam.Client { return iam.NewFromConfig(a.Config()) }

// AddDatabase creates a Glue database in the account with the tables, in
// the given order (CreateDatabase, CreateTable). It fails t when moto
// refuses.
func (a *Account) AddDatabase(t testing.TB, name string, tables ...gluetypes.TableInput) {
	t.Helper()
	ctx := context.Background()
	g := a.Glue()
	var exists *gluetypes.AlreadyExistsException
	if _, err := g.CreateDatabase(ctx, &glue.CreateDatabaseInput{DatabaseInput: &gluetypes.DatabaseInput{Name: aws.String(name)}}); err != nil && !errors.As(err, &exists) {
		t.Fatalf("motoserver: create database %s: %v", name, err)
	}
	for _, tb := range tables {
		if _, err := g.CreateTable(ctx, &glue.CreateTableInput{DatabaseName: aws.String(name), TableInput: &tb}); err != nil && !errors.As(err, &exists) {
			t.Fatalf("motoserver: create table %s.%s: %v", name, aws.ToString(tb.Name), err)
		}
	}
}

// Table is a Glue table input; columns and partition keys in Columns
// notation, description and table type left out when empty.
func Table(name, description, tableType string, columns []string, partitionKeys ...string) gluetypes.TableInput {
	in := gluetypes.TableInput{Name: aws.String(name), StorageDescriptor: &gluetypes.StorageDescriptor{Columns: Columns(columns...)}}
	if description != "" {
		in.Description = aws.String(description)
	}
	if tableType != "" {
		in.TableType = aws.String(tableType)
	}
	if len(partitionKeys) > 0 {
		in.PartitionKeys = Columns(partitionKeys...)
	}
	return in
}

// Columns builds Glue columns from name, type[, comment] triples written
// "name type" or "name type -- comment" (the type may not contain spaces).
func Columns(specs ...string) []gluetypes.Column {
	out := make([]gluetypes.Column, len(specs))
	for i, spec := range specs {
		spec, comment, _ := strings.Cut(spec, " -- ")
		cut := strings.LastIndexByte(spec, ' ')
		out[i] = gluetypes.Column{Name: aws.String(spec[:cut]), Type: aws.String(spec[cut+1:])}
		if comment != "" {
			out[i].Comment = aws.String(comment)
		}
	}
	return out
}

// SetEnv points the standard AWS configuration chain at the account's key
// in Region, away from the machine's ~/.aws files, profiles, endpoint
// overrides and the EC2 metadata service, for the rest of the test. The
// endpoint is not set: pass URL explicitly (--endpoint), as a user would.
func (a *Account) SetEnv(t testing.TB) {
	t.Helper()
	SetEnv(t, a.AccessKeyID, a.SecretAccessKey)
}

// SetEnv is Account.SetEnv for any key pair (a foreign or broken one).
func SetEnv(t testing.TB, accessKeyID, secretAccessKey string) {
	t.Helper()
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID":           accessKeyID,
		"AWS_SECRET_ACCESS_KEY":       secretAccessKey,
		"AWS_SESSION_TOKEN":           "",
		"AWS_REGION":                  Region,
		"AWS_DEFAULT_REGION":          "",
		"AWS_PROFILE":                 "",
		"AWS_DEFAULT_PROFILE":         "",
		"AWS_CONFIG_FILE":             "/nonexistent/motoserver/config",
		"AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/motoserver/credentials",
		"AWS_EC2_METADATA_DISABLED":   "true",
		"AWS_ENDPOINT_URL":            "",
		"AWS_ENDPOINT_URL_GLUE":       "",
		"AWS_MAX_ATTEMPTS":            "2",
	} {
		t.Setenv(k, v)
	}
}
