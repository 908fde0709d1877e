package postgres

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/ossie-dev/ossie/engine"
)

// Config says how to reach a PostgreSQL database. Exactly one of DSN,
// DSNEnv and DSNFile names the connection string, a libpq URL
// (postgres://user:pass@host:5432/db?sslmode=require) or key=value list
// (host=... dbname=...); see the PostgreSQL manual, section 34.1.1.
type Config struct {
	// DSN is the connection string itself.
	DSN string
	// DSNEnv is the name of an environment variable holding the DSN.
	DSNEnv string
	// DSNFile is the path of a file holding the DSN (surrounding whitespace
	// ignored), such as a key of a Kubernetes Secret mounted as a volume.
	DSNFile string
	// PasswordFile, if set, is the path of a file whose content (without a
	// trailing newline) replaces the DSN's password, so the DSN can live in
	// plain configuration and only the password in a Secret.
	PasswordFile string
	// MaxConns caps the pool; 0 keeps the DSN's pool_max_conns (a
	// pgxpool parameter, in the URL's query or as key=value), else 8.
	MaxConns int32
	// ConnectTimeout bounds establishing one connection (default: the DSN's
	// connect_timeout, else 10 s).
	ConnectTimeout time.Duration
}

const (
	defaultMaxConns       = 8
	defaultConnectTimeout = 10 * time.Second
)

// poolConfig resolves the DSN and builds the pgxpool configuration. It
// returns the password too, so error messages can be scrubbed of it.
// Errors never quote the DSN.
func (c Config) poolConfig() (*pgxpool.Config, string, error) {
	dsn, err := engine.ResolveDSN(c.DSN, c.DSNEnv, c.DSNFile)
	if err != nil {
		return nil, "", err
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		// ParseConfigError quotes the connection string (redaction is best
		// effort there); keep only the reason.
		var pe *pgconn.ParseConfigError
		reason := "cannot parse the connection string"
		if errors.As(err, &pe) && pe.Unwrap() != nil {
			reason += ": " + engine.Scrub(pe.Unwrap().Error(), dsn)
		}
		return nil, "", errors.New(reason)
	}
	if c.PasswordFile != "" {
		b, err := os.ReadFile(c.PasswordFile)
		if err != nil {
			return nil, "", fmt.Errorf("reading password file: %w", err)
		}
		cfg.ConnConfig.Password = strings.TrimRight(string(b), "\r\n")
	}
	switch {
	case c.MaxConns > 0:
		cfg.MaxConns = c.MaxConns
	case !dsnSets(dsn, "pool_max_conns"):
		// pgxpool's own default follows the CPUs of this machine, not
		// the database's capacity; the DSN's pool_max_conns is kept.
		cfg.MaxConns = defaultMaxConns
	}
	switch {
	case c.ConnectTimeout > 0:
		cfg.ConnConfig.ConnectTimeout = c.ConnectTimeout
	case cfg.ConnConfig.ConnectTimeout == 0:
		cfg.ConnConfig.ConnectTimeout = defaultConnectTimeout
	}
	// Planned SQL carries its values as escaped literals, so the simple
	// protocol serves every query in one round trip and never leaves a
	// cached prepared statement to go stale when a table changes (drift).
	cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	// Cancelling a context sends a cancel request, so the server stops
	// working too and the connection stays usable.
	cfg.ConnConfig.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: pc, DeadlineDelay: 2 * time.Second}
	}
	rp := cfg.ConnConfig.RuntimeParams
	// The dialect's date_trunc on DATE values is exact only in a zone
	// without DST shifts; time zones of answers come from the query.
	if !hasParam(rp, "timezone") {
		rp["timezone"] = "UTC"
	}
	// Planned literals only double quotes; with standard_conforming_strings
	// off a backslash would escape one and end the literal early. pgx's
	// simple protocol refuses such a session too; pin it anyway so no
	// setting of the role or database can change how a literal reads.
	rp["standard_conforming_strings"] = "on"
	if !hasParam(rp, "application_name") {
		rp["application_name"] = "ossie"
	}
	return cfg, cfg.ConnConfig.Password, nil
}

func hasParam(m map[string]string, name string) bool {
	for k := range m {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

// PoolSize is the pool's maximum number of connections (Config.MaxConns).
func (e *Engine) PoolSize() int { return int(e.pool.Config().MaxConns) }

// dsnSets reports whether the connection string dsn (a URL or key=value
// pairs, as pgx reads both) names parameter key.
func dsnSets(dsn, key string) bool {
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		return u.Query().Has(key)
	}
	return regexp.MustCompile(`(^|\s)` + regexp.QuoteMeta(key) + `\s*=`).MatchString(dsn)
}
