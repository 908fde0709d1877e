package pgwire

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"log/slog"
	"net"

	"github.com/ossie-dev/ossie/server/auth"
)

// Flags are the command-line flags of the SQL endpoint, shared by
// cmd/server and `ossiectl serve`.
type Flags struct {
	// Addr is the listen address; "" leaves the endpoint off.
	Addr string
	// CertFile and KeyFile, both or neither, are the PEM certificate and
	// key answering SSLRequest; without them TLS is refused.
	CertFile, KeyFile string
}

// Register defines --pg-addr, --pg-tls-cert and --pg-tls-key.
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.StringVar(&f.Addr, "pg-addr", "", "PostgreSQL-wire SQL endpoint listen address, e.g. "+DefaultAddr+" (docs/sql-api.md); empty: off. Like --addr it must be loopback without authentication")
	fs.StringVar(&f.CertFile, "pg-tls-cert", "", "PEM certificate file the SQL endpoint offers to clients that ask for TLS (with --pg-tls-key)")
	fs.StringVar(&f.KeyFile, "pg-tls-key", "", "PEM private key file of --pg-tls-cert")
}

// Check is the usage rule of the flags under auth: a certificate needs
// its key, and an ungoverned endpoint listens on loopback only.
func (f *Flags) Check(af *auth.Flags) error {
	if (f.CertFile == "") != (f.KeyFile == "") {
		return errors.New("--pg-tls-cert and --pg-tls-key go together")
	}
	if f.Addr == "" {
		if f.CertFile != "" {
			return errors.New("--pg-tls-cert needs --pg-addr")
		}
		return nil
	}
	if _, _, err := net.SplitHostPort(f.Addr); err != nil {
		return errors.New("--pg-addr " + f.Addr + ": " + err.Error())
	}
	if af.NoAuth || af.Configured() {
		return nil
	}
	return auth.CheckExposure("--pg-addr", f.Addr)
}

// Start listens on Addr (nothing when it is empty) and serves b until ctx
// is done; wait returns when serving has stopped, with its error.
func (f *Flags) Start(ctx context.Context, b Backend, log *slog.Logger) (wait func() error, err error) {
	if f.Addr == "" {
		return func() error { return nil }, nil
	}
	opts := Options{Logger: log}
	if f.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(f.CertFile, f.KeyFile)
		if err != nil {
			return nil, errors.New("--pg-tls-cert/--pg-tls-key: " + err.Error())
		}
		opts.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	ln, err := net.Listen("tcp", f.Addr)
	if err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- New(b, opts).Serve(ctx, ln) }()
	return func() error { return <-done }, nil
}
