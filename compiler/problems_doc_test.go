package compiler

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// docs/problems.md explains every code of codes.go (and no other).
func TestProblemsDocCoversEveryCode(t *testing.T) {
	src, err := os.ReadFile("codes.go")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../docs/problems.md")
	if err != nil {
		t.Fatal(err)
	}
	codeRe := regexp.MustCompile(`"(OSS\d{4})"`)
	defined := map[string]bool{}
	for _, m := range codeRe.FindAllStringSubmatch(string(src), -1) {
		defined[m[1]] = true
	}
	if len(defined) < 40 {
		t.Fatalf("found only %d codes in codes.go", len(defined))
	}
	text := string(doc)
	for code := range defined {
		if !strings.Contains(text, "### "+code) && !strings.Contains(text, "| "+code+" |") {
			t.Errorf("docs/problems.md does not explain %s", code)
		}
	}
	for _, m := range regexp.MustCompile(`OSS\d{4}`).FindAllString(text, -1) {
		if !defined[m] {
			t.Errorf("docs/problems.md mentions %s, which codes.go does not define", m)
		}
	}
}
