package trino

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/ossie-dev/ossie/engine"
	trinoclient "github.com/trinodb/trino-go-client/trino"
)

// Config says how to reach a Trino coordinator. Exactly one of DSN, DSNEnv
// and DSNFile names the connection string, a trino-go-client DSN such as
// https://user:password@trino.example.com:443?catalog=hive&schema=sales
// (README of github.com/trinodb/trino-go-client, "DSN"). A password needs
// an https URL; the client refuses it over plain http.
type Config struct {
	// DSN is the connection string itself.
	DSN string
	// DSNEnv is the name of an environment variable holding the DSN.
	DSNEnv string
	// DSNFile is the path of a file holding the DSN (surrounding whitespace
	// ignored), such as a key of a Kubernetes Secret mounted as a volume.
	DSNFile string
	// Catalog and Schema are the session defaults used for names with fewer
	// than three parts; each one, when set, overrides the DSN's parameter.
	Catalog string
	Schema  string
	// RetryTimeout bounds how long one HTTP request is retried on
	// connection errors and 429/502/503/504 answers (default: the client's
	// 2 minutes, or the DSN's request_retry_timeout).
	RetryTimeout time.Duration
	// HTTPClient, if set, sends every request (custom TLS roots, proxies).
	HTTPClient *http.Client
}

// clientConfig resolves the DSN into the client's configuration. It also
// returns the strings that must never appear in an error message (the
// DSN and its password). Errors never quote the DSN.
func (c Config) clientConfig() (*trinoclient.Config, []string, error) {
	dsn, err := engine.ResolveDSN(c.DSN, c.DSNEnv, c.DSNFile)
	if err != nil {
		return nil, nil, fmt.Errorf("trino: %w", err)
	}
	secrets := []string{dsn}
	if u, err := url.Parse(dsn); err == nil && u.User != nil {
		if p, ok := u.User.Password(); ok && p != "" {
			secrets = append(secrets, p, url.QueryEscape(p), url.PathEscape(p))
		}
	}
	conf, err := trinoclient.ParseDSN(dsn)
	if err != nil {
		return nil, nil, errors.New("trino: cannot parse the connection string: " + engine.Scrub(err.Error(), secrets...))
	}
	if c.Catalog != "" {
		conf.Catalog = c.Catalog
	}
	if c.Schema != "" {
		conf.Schema = c.Schema
	}
	if c.RetryTimeout > 0 {
		d := c.RetryTimeout
		conf.RequestRetryTimeout = &d
	}
	if c.HTTPClient != nil {
		conf.HTTPClient = c.HTTPClient
	}
	// Values without a zone (TIMESTAMP) are read in the session zone; UTC
	// keeps them equal to what DuckDB and PostgreSQL (timezone=UTC) answer.
	if conf.TimeZone == "" {
		conf.TimeZone = "UTC"
	}
	if conf.Source == "" {
		conf.Source = "ossie"
	}
	return conf, secrets, nil
}
