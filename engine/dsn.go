package engine

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// ResolveDSN returns the connection string from exactly one of its three
// sources: the value itself, the name of an environment variable, or a file
// (e.g. a key of a mounted Kubernetes Secret). Surrounding whitespace is
// trimmed. Errors name the variable or file, never the value.
func ResolveDSN(dsn, env, file string) (string, error) {
	n := 0
	for _, s := range []string{dsn, env, file} {
		if s != "" {
			n++
		}
	}
	if n != 1 {
		return "", errors.New("set exactly one of DSN, DSNEnv and DSNFile")
	}
	switch {
	case env != "":
		v, ok := os.LookupEnv(env)
		if !ok || strings.TrimSpace(v) == "" {
			return "", fmt.Errorf("environment variable %s is not set", env)
		}
		return strings.TrimSpace(v), nil
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("reading DSN file: %w", err)
		}
		if strings.TrimSpace(string(b)) == "" {
			return "", fmt.Errorf("DSN file %s is empty", file)
		}
		return strings.TrimSpace(string(b)), nil
	}
	return dsn, nil
}

// Scrub replaces every non-empty secret in s with "[redacted]", so driver
// messages that echo a DSN or password can be shown and logged.
func Scrub(s string, secrets ...string) string {
	for _, x := range secrets {
		if x != "" {
			s = strings.ReplaceAll(s, x, "[redacted]")
		}
	}
	return s
}
