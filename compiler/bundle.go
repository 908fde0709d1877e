package compiler

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/ossie-dev/ossie/compiler/prescan"
)

// Bundle is every artifact compiled from one document (one per
// semantic_model entry), as published in one ConfigMap. Version identifies
// the whole bundle: the single artifact's version, or for several models
// "sha256:" + hex(sha256 of their versions sorted and joined by "\n").
type Bundle struct {
	Format    string      `json:"format"`
	Version   string      `json:"version"`
	Artifacts []*Artifact `json:"artifacts"`
}

// NewBundle wraps artifacts and computes the bundle version.
func NewBundle(arts []*Artifact) *Bundle {
	return &Bundle{Format: ArtifactFormat, Version: BundleVersion(arts), Artifacts: arts}
}

// BundleVersion is the version of a set of artifacts (see Bundle).
func BundleVersion(arts []*Artifact) string {
	if len(arts) == 1 {
		return arts[0].Version
	}
	vs := make([]string, len(arts))
	for i, a := range arts {
		vs[i] = a.Name + "=" + a.Version
	}
	sort.Strings(vs)
	sum := sha256.Sum256([]byte(strings.Join(vs, "\n")))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// EncodeBundle returns the gzip-compressed JSON of b. Output is
// deterministic for equal bundles (gzip header without name or mtime), so
// publishing can compare bytes to skip unchanged writes.
func EncodeBundle(b *Bundle) ([]byte, error) {
	js, err := json.Marshal(b)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(js); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// bundleLimits bound a bundle's JSON before it is decoded: an artifact
// nests as deep as its longest expression chain (compiler/expr's tagged
// trees), so the depth allowed is encoding/json's own; values are not
// counted, decoding them is linear in the bytes maxBytes bounds.
var bundleLimits = prescan.Limits{Depth: 10_000}

// DecodeBundle reads what EncodeBundle wrote (gzip or plain JSON). It
// refuses an unknown format, a version that does not match the artifacts,
// more than maxBytes of uncompressed JSON (maxBytes <= 0: 64 MiB), or JSON
// nesting deeper than 10,000 levels (OSS1021, with its line, before it is
// decoded).
func DecodeBundle(data []byte, maxBytes int64) (*Bundle, error) {
	if maxBytes <= 0 {
		maxBytes = 64 << 20
	}
	var r io.Reader = bytes.NewReader(data)
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("artifact bundle: %w", err)
		}
		defer zr.Close()
		r = zr
	}
	js, err := io.ReadAll(io.LimitReader(r, maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("artifact bundle: %w", err)
	}
	if int64(len(js)) > maxBytes {
		return nil, fmt.Errorf("artifact bundle: larger than %d bytes uncompressed", maxBytes)
	}
	if p := limitProblem(prescan.JSON(js, bundleLimits)); p != nil {
		return nil, fmt.Errorf("artifact bundle: %d:%d: %s %s", p.Line, p.Column, p.Code, p.Message)
	}
	var b Bundle
	if err := json.Unmarshal(js, &b); err != nil {
		return nil, fmt.Errorf("artifact bundle: %w", err)
	}
	if b.Format != ArtifactFormat {
		return nil, fmt.Errorf("artifact bundle: format %q is not %q (built by another release?)", b.Format, ArtifactFormat)
	}
	for i, a := range b.Artifacts {
		if a == nil || a.Format != ArtifactFormat {
			return nil, fmt.Errorf("artifact bundle: artifact %d has an unknown format", i)
		}
	}
	if len(b.Artifacts) == 0 {
		return nil, fmt.Errorf("artifact bundle: no artifacts")
	}
	if v := BundleVersion(b.Artifacts); v != b.Version {
		return nil, fmt.Errorf("artifact bundle: version %s does not match its artifacts (%s)", b.Version, v)
	}
	return &b, nil
}
