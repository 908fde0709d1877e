package compiler

import (
	"strings"
	"testing"
)

// modelWith is a small valid model whose description is written as given.
func modelWith(description string) []byte {
	return []byte("version: \"0.2.0.dev0\"\nsemantic_model:\n  - name: m\n    description: " + description + "\n" +
		"    datasets:\n      - name: t\n        source: s.t\n")
}

// TestScalarTypes: plain scalars are typed by the YAML 1.2 core schema (as
// kubectl reads a manifest), so a number or boolean where a string belongs
// is refused with a hint to quote it; infinities and NaN are refused as
// values JSON cannot hold; quoted text, `!!str`, timestamps and other
// words are strings; a tag other than !!str keeps YAML's type of the text.
func TestScalarTypes(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{`"2024"`, ""}, {`'1e3'`, ""}, {"!!str 2024", ""}, {"!!str true", ""}, {"2024-01-01", ""},
		{"yes", ""}, {"0X", ""}, {"1e", ""}, {"!!int abc", ""}, {"|\n      1e3", ""},
		{"2024", `quote it to mean the text: "2024"`}, {"1.10", `got a number (1.10)`}, {"0x1F", `got a number (0x1F)`},
		{"0o17", `got a number (0o17)`}, {"1_000", `got a number (1_000)`}, {"1e3", `got a number (1e3)`},
		{"99999999999999999999", `got a number`}, {"TRUE", `got a boolean (TRUE)`}, {"!custom 12", `got a number (12)`},
		{"~", "got null"}, {"Null", "got null"},
		{".inf", `.inf is not a value JSON can hold`}, {"-.Inf", `-.Inf is not a value JSON can hold`}, {"+.inf", `+.inf is not a value JSON can hold`}, {".NaN", `.NaN is not a value JSON can hold`},
	} {
		_, probs := Parse(modelWith(tc.text))
		var got []string
		for _, p := range probs {
			got = append(got, p.String())
		}
		switch {
		case tc.want == "" && len(probs) > 0:
			t.Errorf("%s: %v", tc.text, got)
		case tc.want != "" && (len(probs) != 1 || probs[0].Path != "semantic_model[0].description" || probs[0].Line != 4 || !strings.Contains(probs[0].Message, tc.want)):
			t.Errorf("%s: %v, want one problem at semantic_model[0].description 4:_ containing %q", tc.text, got, tc.want)
		}
	}
	doc := mustParse(t, modelWith("2024-01-01")).Doc
	if d := doc.SemanticModel[0].Description; d != "2024-01-01" {
		t.Errorf("timestamp read as %q", d)
	}
}

// TestAliasProblemsPlaced: an alias of no anchor is reported at its line
// and column (go-yaml refuses the document), and one inside the value its
// anchor names (a cycle) at its path too, the rest of the document read.
func TestAliasProblemsPlaced(t *testing.T) {
	for _, tc := range []struct {
		desc, path string
		col        int
	}{
		{"*nope", "", 18},
		{"&x [*x]", "semantic_model[0].description[0]", 22},
	} {
		_, probs := Parse(modelWith(tc.desc))
		found := false
		for _, p := range probs {
			found = found || p.Code == CodeSyntax && p.Path == tc.path && p.Line == 4 && p.Column == tc.col && strings.Contains(p.Message, "names no anchor defined before it")
		}
		if !found {
			t.Errorf("%s: %v, want OSS1001 at %s 4:%d", tc.desc, probs, tc.path, tc.col)
		}
	}
}

// TestUnclosedReportedWhereOpened: a bracket or quote never closed is
// reported at its own line and column, with where the reader gave up.
func TestUnclosedReportedWhereOpened(t *testing.T) {
	for _, tc := range []struct {
		desc      string
		line, col int
		want      string
	}{
		{"[a, b\n    datasets: []", 4, 18, "the list opened here with `[` is not closed"},
		{"{a: b\n    datasets: []", 4, 18, "the mapping opened here with `{` is not closed"},
		{"'a\n", 4, 18, "the quoted text opened here is not closed"},
	} {
		_, probs := Parse(modelWith(tc.desc))
		if len(probs) != 1 || probs[0].Code != CodeSyntax || probs[0].Line != tc.line || probs[0].Column != tc.col || !strings.Contains(probs[0].Message, tc.want) {
			t.Errorf("%q: %v, want OSS1001 at %d:%d containing %q", tc.desc, probs, tc.line, tc.col, tc.want)
		}
	}
}

// TestEmptyDocumentsIgnored: document markers with nothing after them are
// no document; a second document with content is refused where it starts.
func TestEmptyDocumentsIgnored(t *testing.T) {
	good := string(modelWith("d"))
	for _, in := range []string{"---\n" + good, good + "---\n", good + "...\n", "--- \n---\n" + good + "--- # end\n"} {
		if _, probs := Parse([]byte(in)); len(probs) > 0 {
			t.Errorf("%q: %v", in, probs)
		}
	}
	if _, probs := Parse([]byte(good + "--- ~\n")); len(probs) != 1 || probs[0].Code != CodeSyntax || probs[0].Line != 8 || !strings.Contains(probs[0].Message, "found 2") {
		t.Errorf("second document: %v", probs)
	}
}

// TestSyntaxErrorInLargeDocument: an error after more than 128 KB, which
// is not re-read to find its column, is placed at its line's first
// character.
func TestSyntaxErrorInLargeDocument(t *testing.T) {
	doc := "version: x\nd: [" + strings.Repeat("aaaa, ", 40000) + "]\nsemantic_model:\n  - a: b: c\n"
	_, probs := Parse([]byte(doc))
	if len(probs) != 1 || probs[0].Code != CodeSyntax || probs[0].Line != 4 || probs[0].Column != 3 || !strings.Contains(probs[0].Message, "mapping values are not allowed") {
		t.Errorf("%v", probs)
	}
}
