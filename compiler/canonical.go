package compiler

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"

	"github.com/ossie-dev/ossie/api/ossie"
)

// canonicalSpec is what a model's version is computed over: the document
// version it was read at plus the model itself.
type canonicalSpec struct {
	DocumentVersion string              `json:"document_version"`
	Model           ossie.SemanticModel `json:"model"`
}

// CanonicalJSON returns the canonical JSON text of one semantic model as
// read at docVersion: the Ossie API types encoded with every object's keys
// sorted (including keys inside ai_context extras and custom_extensions
// data, which is JSON text and is re-encoded when it parses) and no
// whitespace. Formatting, key order and comments of the source document do
// not reach it; any change of meaning does.
func CanonicalJSON(docVersion string, m ossie.SemanticModel) ([]byte, error) {
	// Struct fields encode in declaration order and map keys sorted; only
	// JSON carried as text (ai_context extras, custom_extensions data)
	// keeps its own key order, so those values are sorted first.
	m = canonicalEmbedded(m)
	return json.Marshal(canonicalSpec{DocumentVersion: docVersion, Model: m})
}

// ModelVersion is "sha256:" + hex(sha256(CanonicalJSON(docVersion, m))),
// the artifact version (DESIGN.md section 3).
func ModelVersion(docVersion string, m ossie.SemanticModel) (string, error) {
	c, err := CanonicalJSON(docVersion, m)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(c)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

func sortedJSON(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // keep numbers as written, no float rounding
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// canonicalEmbedded returns m with every embedded JSON value sorted and
// compacted: custom_extensions data that is valid JSON and ai_context
// extras. It copies what it changes; m's backing arrays and pointed-to
// values are never written.
func canonicalEmbedded(m ossie.SemanticModel) ossie.SemanticModel {
	m.CustomExtensions = canonicalExtList(m.CustomExtensions)
	m.AIContext = canonicalAI(m.AIContext)
	if slices.ContainsFunc(m.Datasets, datasetHasEmbedded) {
		ds := slices.Clone(m.Datasets)
		for i := range ds {
			ds[i].CustomExtensions = canonicalExtList(ds[i].CustomExtensions)
			ds[i].AIContext = canonicalAI(ds[i].AIContext)
			if slices.ContainsFunc(ds[i].Fields, fieldHasEmbedded) {
				fs := slices.Clone(ds[i].Fields)
				for j := range fs {
					fs[j].CustomExtensions = canonicalExtList(fs[j].CustomExtensions)
					fs[j].AIContext = canonicalAI(fs[j].AIContext)
				}
				ds[i].Fields = fs
			}
		}
		m.Datasets = ds
	}
	if slices.ContainsFunc(m.Relationships, func(r ossie.Relationship) bool { return hasEmbedded(r.AIContext, r.CustomExtensions) }) {
		rs := slices.Clone(m.Relationships)
		for i := range rs {
			rs[i].CustomExtensions = canonicalExtList(rs[i].CustomExtensions)
			rs[i].AIContext = canonicalAI(rs[i].AIContext)
		}
		m.Relationships = rs
	}
	if slices.ContainsFunc(m.Metrics, func(x ossie.Metric) bool { return hasEmbedded(x.AIContext, x.CustomExtensions) }) {
		ms := slices.Clone(m.Metrics)
		for i := range ms {
			ms[i].CustomExtensions = canonicalExtList(ms[i].CustomExtensions)
			ms[i].AIContext = canonicalAI(ms[i].AIContext)
		}
		m.Metrics = ms
	}
	return m
}

func hasEmbedded(ai *ossie.AIContext, ext []ossie.CustomExtension) bool {
	return len(ext) > 0 || (ai != nil && len(ai.Extra) > 0)
}

func fieldHasEmbedded(f ossie.Field) bool { return hasEmbedded(f.AIContext, f.CustomExtensions) }

func datasetHasEmbedded(d ossie.Dataset) bool {
	return hasEmbedded(d.AIContext, d.CustomExtensions) || slices.ContainsFunc(d.Fields, fieldHasEmbedded)
}

// canonicalAI sorts the keys inside ai_context extra values (the extras map
// itself is encoded with sorted keys by encoding/json).
func canonicalAI(a *ossie.AIContext) *ossie.AIContext {
	if a == nil || len(a.Extra) == 0 {
		return a
	}
	c := *a
	c.Extra = make(map[string]json.RawMessage, len(a.Extra))
	for k, v := range a.Extra {
		if s, err := sortedJSON(v); err == nil {
			c.Extra[k] = s
		} else {
			c.Extra[k] = v
		}
	}
	return &c
}

func canonicalExtList(in []ossie.CustomExtension) []ossie.CustomExtension {
	if len(in) == 0 {
		return in
	}
	out := make([]ossie.CustomExtension, len(in))
	for i, e := range in {
		out[i] = e
		if !json.Valid([]byte(e.Data)) {
			continue
		}
		if c, err := sortedJSON([]byte(e.Data)); err == nil {
			out[i].Data = string(c)
		}
	}
	return out
}
