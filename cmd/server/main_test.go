package main

import "testing"

func TestRunRefusesBadStarts(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
	}{
		{nil, 2},
		{[]string{"--bogus"}, 2},
		{[]string{"--models", "../../server/testdata/shop.yaml", "extra"}, 2},
		{[]string{"--models", "../../server/testdata/broken.yaml,../../server/testdata/badversion.yaml"}, 1},
		{[]string{"--models", "../../server/testdata/shop.yaml", "--duckdb", t.TempDir() + "/no/such/dir/x.duckdb"}, 1},
		{[]string{"--models", "../../server/testdata/shop.yaml", "--addr", "256.0.0.1:bad"}, 1},
	} {
		if got := run(tc.args); got != tc.code {
			t.Errorf("run(%q) = %d, want %d", tc.args, got, tc.code)
		}
	}
}
