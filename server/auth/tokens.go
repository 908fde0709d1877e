package auth

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/ossie-dev/ossie/compiler"
)

// MinTokenLength is the shortest plain `token` a token file may hold, in
// bytes: shorter secrets are guessable. (A token_sha256 entry cannot be
// checked; generate tokens with e.g. `openssl rand -hex 32`.)
const MinTokenLength = 16

// tokenFile is the token file format (YAML or JSON), typically a key of a
// mounted Kubernetes Secret:
//
//	tokens:
//	  - name: bi-emea                # unique; shown in logs instead of the token
//	    token_sha256: 9f86d0...      # hex SHA-256 of the token (preferred), or
//	    # token: s3cr3t...           # the token itself (at least 16 bytes)
//	    roles: [analyst]             # at least one
//	    attributes: {region: EMEA}   # optional, for row filters ({{ caller.region }})
//
// Unknown keys, duplicate keys, duplicate names and two entries with the
// same token are errors, so a typo never silently drops a restriction.
type tokenFile struct {
	Tokens []tokenEntry `json:"tokens"`
}

type tokenEntry struct {
	Name        string            `json:"name"`
	Token       string            `json:"token,omitempty"`
	TokenSHA256 string            `json:"token_sha256,omitempty"`
	Roles       []string          `json:"roles"`
	Attributes  map[string]string `json:"attributes,omitempty"`
	// Namespaces, when set, are the only Kubernetes namespaces whose
	// models the token may read (namespaces.go).
	Namespaces []string `json:"namespaces,omitempty"`
}

// tokenSet is one parsed token file: digests and the identity each maps to.
// Immutable once built.
type tokenSet struct {
	digests [][sha256.Size]byte
	ids     []*Identity
}

// attrName is the shape of a caller attribute name, as governance declares
// it (docs/governance.md: an identifier) and `{{ caller.NAME }}` reads it.
var attrName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`)

// parseTokens reads a token file. Errors name entries by index and name,
// never by token, so they are safe to log.
//
// A file over the limits of a model document (compiler.CheckDocument:
// OSS1020, OSS1021) is refused, with its line, before it is decoded.
func parseTokens(data []byte) (*tokenSet, error) {
	if p := compiler.CheckDocument(data); p != nil {
		return nil, fmt.Errorf("token file: %d:%d: %s %s", p.Line, p.Column, p.Code, p.Message)
	}
	// Unknown keys are reported with the entries' other problems: the
	// strict decode (duplicate keys, types) would stop at the first one.
	keyErr := unknownTokenKeys(data)
	decode := yaml.UnmarshalStrict
	if keyErr != nil {
		decode = func(y []byte, o any, _ ...yaml.JSONOpt) error { return yaml.Unmarshal(y, o) }
	}
	var f tokenFile
	if err := decode(data, &f); err != nil {
		return nil, errors.Join(keyErr, fmt.Errorf("token file: %w", err))
	}
	set := &tokenSet{}
	var errs []error
	if keyErr != nil {
		errs = append(errs, keyErr)
	}
	names := map[string]int{}
	digests := map[[sha256.Size]byte]int{}
	for i, e := range f.Tokens {
		at := fmt.Sprintf("tokens[%d]", i)
		if e.Name != "" {
			at += " (" + e.Name + ")"
		}
		bad := func(format string, args ...any) {
			errs = append(errs, fmt.Errorf("%s: "+format, append([]any{at}, args...)...))
		}
		switch prev, dup := names[e.Name]; {
		case e.Name == "":
			bad("name is required")
		case dup:
			bad("name is already used by tokens[%d]", prev)
		default:
			names[e.Name] = i
		}
		var d [sha256.Size]byte
		switch {
		case e.Token != "" && e.TokenSHA256 != "":
			bad("token and token_sha256 are exclusive")
		case e.Token != "":
			if len(e.Token) < MinTokenLength {
				bad("token is shorter than %d bytes", MinTokenLength)
			}
			d = sha256.Sum256([]byte(e.Token))
		case e.TokenSHA256 != "":
			raw, err := hex.DecodeString(strings.TrimPrefix(strings.ToLower(e.TokenSHA256), "sha256:"))
			if err != nil || len(raw) != sha256.Size {
				bad("token_sha256 must be 64 hex digits (the SHA-256 of the token)")
			}
			copy(d[:], raw)
		default:
			bad("token_sha256 (or token) is required")
		}
		if prev, dup := digests[d]; dup && d != ([sha256.Size]byte{}) {
			bad("same token as tokens[%d]", prev)
		}
		digests[d] = i
		if len(e.Roles) == 0 {
			bad("roles must list at least one role")
		}
		for _, r := range e.Roles {
			if r == "" || r != strings.TrimSpace(r) || strings.Contains(r, ",") {
				bad("role %q must be non-empty, without surrounding spaces or commas", r)
			}
		}
		for k := range e.Attributes {
			if !attrName.MatchString(k) {
				bad("attribute %q must match %s", k, attrName)
			}
		}
		set.digests = append(set.digests, d)
		set.ids = append(set.ids, &Identity{Name: e.Name, Roles: e.Roles, Attributes: e.Attributes, Namespaces: e.Namespaces, Method: MethodToken})
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return set, nil
}

// tokenKeys are the keys of one tokenFile entry, as its json tags spell them.
var tokenKeys = map[string]bool{"name": true, "token": true, "token_sha256": true, "roles": true, "attributes": true, "namespaces": true}

// unknownTokenKeys reports every unknown key of the file at once, each by
// entry index and name (a strict decode stops at the first and names
// neither). A file that is not a mapping with a tokens list is left to the
// strict decode to report.
func unknownTokenKeys(data []byte) error {
	var raw map[string]any
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return nil
	}
	var errs []error
	for _, k := range sortedKeys(raw) {
		if k != "tokens" {
			errs = append(errs, fmt.Errorf("token file: unknown key %q (the file has one key, tokens)", k))
		}
	}
	list, _ := raw["tokens"].([]any)
	for i, item := range list {
		entry, ok := item.(map[string]any)
		if !ok {
			continue
		}
		at := fmt.Sprintf("tokens[%d]", i)
		if name, ok := entry["name"].(string); ok && name != "" {
			at += " (" + name + ")"
		}
		for _, k := range sortedKeys(entry) {
			if !tokenKeys[k] {
				errs = append(errs, fmt.Errorf("%s: unknown key %q (keys: name, token_sha256 or token, roles, attributes, namespaces)", at, k))
			}
		}
	}
	return errors.Join(errs...)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// lookup returns the identity of token, or nil. It compares the token's
// digest with every entry in constant time and never stops early, so the
// time taken says nothing about which entry, or how much of one, matched.
func (s *tokenSet) lookup(token string) *Identity {
	d := sha256.Sum256([]byte(token))
	found := -1
	for i := range s.digests {
		if subtle.ConstantTimeCompare(d[:], s.digests[i][:]) == 1 {
			found = i
		}
	}
	if found < 0 {
		return nil
	}
	return s.ids[found]
}
