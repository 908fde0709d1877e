package auth

import (
	"strings"
	"testing"
)

func TestCheckExposure(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:8080": true, "[::1]:8080": true, "localhost:0": true, "127.9.9.9:1": true,
		":8080": false, "0.0.0.0:8080": false, "[::]:8080": false, "10.0.0.1:80": false, "example.com:80": false, "bad": false,
	} {
		if err := CheckExposure("--addr", addr); (err == nil) != ok {
			t.Errorf("CheckExposure(%q) = %v", addr, err)
		}
	}
	var f Flags
	if err := f.Check(":8080"); err == nil || !strings.Contains(err.Error(), "--no-auth") {
		t.Errorf("no auth on :8080: %v", err)
	}
	f.NoAuth = true
	if err := f.Check(":8080"); err != nil {
		t.Errorf("--no-auth: %v", err)
	}
	f.AnonymousRoles = []string{"x"}
	if err := f.Check("127.0.0.1:1"); err == nil {
		t.Error("--no-auth with --anonymous-role accepted")
	}
}
