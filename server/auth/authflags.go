package auth

import (
	"context"
	"errors"
	"flag"
	"log/slog"
	"net"
	"strings"
	"time"
)

// Flags are the authentication flags shared by cmd/server and
// `ossiectl serve` (pflag users add them with AddGoFlagSet).
type Flags struct {
	TokensFile      string
	ProxySecretFile string
	AnonymousRoles  []string
	NoAuth          bool
	ReloadInterval  time.Duration
}

// Register defines the flags on fs.
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.StringVar(&f.TokensFile, "tokens-file", "", "bearer tokens mapped to roles and attributes (YAML/JSON, e.g. a mounted Secret key); reloaded on change")
	fs.StringVar(&f.ProxySecretFile, "proxy-secret-file", "", "trust X-Ossie-User/-Role/-Attr-* headers from a proxy that sends this file's content in X-Ossie-Proxy-Secret")
	fs.Func("anonymous-role", "role of requests without credentials (repeatable or comma-separated; default: 401)", func(v string) error {
		for _, r := range strings.Split(v, ",") {
			if r = strings.TrimSpace(r); r != "" {
				f.AnonymousRoles = append(f.AnonymousRoles, r)
			}
		}
		return nil
	})
	fs.BoolVar(&f.NoAuth, "no-auth", false, "serve without authentication: every caller sees and queries everything (needed on a non-loopback --addr without the flags above)")
	fs.DurationVar(&f.ReloadInterval, "auth-reload-interval", DefaultReloadInterval, "poll period of --tokens-file and --proxy-secret-file, on top of file-system events")
}

// Configured reports whether any way of authenticating is set (tokens,
// proxy secret or anonymous role), i.e. whether callers are governed.
func (f *Flags) Configured() bool {
	return f.TokensFile != "" || f.ProxySecretFile != "" || len(f.AnonymousRoles) > 0
}

// Check is the usage rule for serving on addr: --no-auth excludes the
// other auth flags, and without any of them the server only listens on a
// loopback address (CheckExposure). Its error is a usage error.
func (f *Flags) Check(addr string) error {
	if f.NoAuth && f.Configured() {
		return errors.New("--no-auth excludes --tokens-file, --proxy-secret-file and --anonymous-role")
	}
	if f.NoAuth || f.Configured() {
		return nil
	}
	return CheckExposure("--addr", addr)
}

// Open builds the Auth the flags describe (nil for --no-auth or none),
// watching its files until ctx is done.
func (f *Flags) Open(ctx context.Context, log *slog.Logger) (*Auth, error) {
	if f.NoAuth || !f.Configured() {
		if log != nil {
			log.Warn("serving without authentication: every caller is ungoverned")
		}
		return nil, nil
	}
	return New(ctx, Options{TokensFile: f.TokensFile, ProxySecretFile: f.ProxySecretFile,
		AnonymousRoles: f.AnonymousRoles, ReloadInterval: f.ReloadInterval, Logger: log})
}

// DefaultAddr is the listen address of cmd/server and `ossiectl serve`
// when none is given: loopback, so a server started without flags is
// reachable from this machine only. Deployments pass their own (the Helm
// chart passes --addr=:PORT with authentication).
const DefaultAddr = "127.0.0.1:8080"

// CheckExposure refuses to serve without authentication on anything but
// a loopback address: an ungoverned server answers every member of every
// model to whoever reaches it, which is fine for a developer's own machine
// and nowhere else. flag names the listen address's flag in the message
// ("--addr", "--pg-addr"); addr is a listen address such as
// "127.0.0.1:8080", "[::1]:8080" or "localhost:8080"; ":8080" listens on
// every interface.
func CheckExposure(flag, addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err == nil && IsLoopback(host) {
		return nil
	}
	return errors.New("no authentication is configured and " + flag + " " + addr + " is not a loopback address: " +
		"set --tokens-file, --proxy-secret-file or --anonymous-role, or --no-auth to serve ungoverned on purpose")
}

func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// AnyHost is Config.AnyHost for serving on addr: true only for --no-auth
// on a non-loopback address, where the operator chose to expose an
// ungoverned server and host names other than loopback are expected.
func (f *Flags) AnyHost(addr string) bool {
	return f.NoAuth && CheckExposure("--addr", addr) != nil
}
