package compiler_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/ossie-dev/ossie/compiler"
)

func TestBundleRoundTrip(t *testing.T) {
	data, err := os.ReadFile("../examples/flights/model.yaml")
	if err != nil {
		t.Fatal(err)
	}
	arts, probs := compiler.Load(data, compiler.CompileOptions{})
	if probs.HasErrors() {
		t.Fatal(probs)
	}
	b := compiler.NewBundle(arts)
	enc, err := compiler.EncodeBundle(b)
	if err != nil {
		t.Fatal(err)
	}
	enc2, _ := compiler.EncodeBundle(compiler.NewBundle(arts))
	if !bytes.Equal(enc, enc2) {
		t.Fatal("encoding is not deterministic")
	}
	got, err := compiler.DecodeBundle(enc, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != arts[0].Version || len(got.Artifacts) != 1 || got.Artifacts[0].Metric("on_time_rate") == nil {
		t.Fatalf("decoded bundle differs: %+v", got)
	}
	if _, err := compiler.DecodeBundle(enc, 100); err == nil {
		t.Fatal("size limit not enforced")
	}
	if _, err := compiler.DecodeBundle([]byte(`{"format":"ossie.dev/artifact/v999","version":"x","artifacts":[]}`), 0); err == nil {
		t.Fatal("unknown format accepted")
	}
	if _, err := compiler.DecodeBundle([]byte("\x1f\x8bgarbage"), 0); err == nil {
		t.Fatal("corrupt gzip accepted")
	}
}
