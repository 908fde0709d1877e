package postgres

import "testing"

// The pool is 8 connections unless the DSN's pool_max_conns (a pgxpool
// parameter, in either DSN form) or Config.MaxConns says otherwise;
// pgxpool's own default (from this machine's CPUs) never applies.
func TestPoolSize(t *testing.T) {
	for _, tc := range []struct {
		c    Config
		want int32
	}{
		{Config{DSN: "postgres://u@127.0.0.1:1/db"}, 8},
		{Config{DSN: "postgres://u@127.0.0.1:1/db?pool_max_conns=32"}, 32},
		{Config{DSN: "host=127.0.0.1 port=1 dbname=db pool_max_conns = 3"}, 3},
		{Config{DSN: "host=127.0.0.1 port=1 dbname=db application_name=xpool_max_conns"}, 8},
		{Config{DSN: "postgres://u@127.0.0.1:1/db?pool_max_conns=32", MaxConns: 5}, 5},
	} {
		cfg, _, err := tc.c.poolConfig()
		if err != nil {
			t.Fatalf("%q: %v", tc.c.DSN, err)
		}
		if cfg.MaxConns != tc.want {
			t.Errorf("%q (MaxConns %d): pool of %d, want %d", tc.c.DSN, tc.c.MaxConns, cfg.MaxConns, tc.want)
		}
	}
}
