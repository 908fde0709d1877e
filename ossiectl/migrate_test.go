package ossiectl

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func inode(t *testing.T, name string) uint64 {
	t.Helper()
	fi, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// Upgrading rewrites only `version` (comments, order and the rest of the
// bytes kept), replaces each file by rename with its mode kept, and the
// results validate.
func TestMigrateUpgrade(t *testing.T) {
	files := copyTestdata(t, 0o640, "migrate/legacy.yaml", "migrate/unversioned.yaml", "migrate/manifest.yaml", "migrate/small.json", "migrate/table_source.yaml")
	before := map[string]uint64{}
	for _, f := range files {
		before[f] = inode(t, f)
	}
	// The pre-release documents are refused by validate, which says how to fix them.
	code, out, _ := run(t, "", "validate", files[0], files[1])
	if code != ExitProblems || !strings.Contains(out, "OSS1006") || !strings.Contains(out, "Next: ossiectl migrate --to 0.2.0.dev0 "+files[0]+" "+files[1]) {
		t.Fatalf("validate before migrate: exit %d\n%s", code, out)
	}

	code, out, errs := run(t, "", "migrate", "--to", "0.2.0.dev0", files[0], files[1], files[2], files[3], files[4])
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	want := files[0] + ": 1 document changed (1.0 -> 0.2.0.dev0)\n" +
		files[1] + ": 1 document changed ((no version) -> 0.2.0.dev0)\n" +
		files[2] + ": 1 document changed (0.1.1 -> 0.2.0.dev0)\n" +
		files[3] + ": 1 document changed (0.1.1 -> 0.2.0.dev0)\n" +
		files[4] + ": already at 0.2.0.dev0\n" +
		"4 of 5 documents changed\n"
	if out != want {
		t.Errorf("stdout\n%s\nwant\n%s", out, want)
	}
	for _, f := range files[:4] {
		golden(t, "migrate/"+filepath.Base(f)+".to-0.2.0.dev0", readFile(t, f))
		fi, _ := os.Stat(f)
		if fi.Mode().Perm() != 0o640 {
			t.Errorf("%s: mode %v, want 0640 kept", f, fi.Mode().Perm())
		}
		if inode(t, f) == before[f] {
			t.Errorf("%s: same inode: rewritten in place, not replaced by rename", f)
		}
	}
	if inode(t, files[4]) != before[files[4]] {
		t.Errorf("an unchanged file was rewritten")
	}
	// Only the version line changed in the legacy file.
	orig := strings.Split(string(readFile(t, "testdata/migrate/legacy.yaml")), "\n")
	got := strings.Split(string(readFile(t, files[0])), "\n")
	if len(orig) != len(got) {
		t.Fatalf("line count %d -> %d", len(orig), len(got))
	}
	for i := range orig {
		if (orig[i] != got[i]) != (i == 1) {
			t.Errorf("line %d: %q -> %q", i+1, orig[i], got[i])
		}
	}
	code, out, errs = run(t, "", append([]string{"validate"}, files...)...)
	if code != ExitOK || !strings.HasPrefix(out, "5 documents valid (0.2.0.dev0: 5)") {
		t.Errorf("validate after migrate: exit %d\n%s%s", code, out, errs)
	}
	// A second run has nothing to do.
	code, out, _ = run(t, "", append([]string{"migrate", "--to", "0.2.0.dev0"}, files...)...)
	if code != ExitOK || !strings.HasSuffix(out, "0 of 5 documents changed\n") {
		t.Errorf("second run: exit %d\n%s", code, out)
	}
}

// Downgrading turns {kind: table} sources into strings. A query source or
// an OSSIE_SQL_2026 expression is kept with a note: validate accepts them
// at 0.1.1, and migrate agrees with validate. A file that needs a human
// stops the run, and then nothing is written at all.
func TestMigrateDowngrade(t *testing.T) {
	files := copyTestdata(t, 0o600, "migrate/table_source.yaml", "migrate/needs_human.yaml")
	orig := [][]byte{readFile(t, files[0]), readFile(t, files[1])}
	unknown := writeTemp(t, "future.yaml", "version: \"9.9\"\nsemantic_model: []\n")
	code, out, errs := run(t, "", "migrate", "--to", "0.1.1", files[0], files[1], unknown)
	if code != ExitProblems || !strings.Contains(errs, unknown+": needs a human: version: \"9.9\"") || !strings.Contains(errs, "nothing was written. Next: fix the places listed above by hand") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	for i, f := range files {
		if string(readFile(t, f)) != string(orig[i]) {
			t.Errorf("%s was written although the run stopped", f)
		}
	}
	code, out, errs = run(t, "", "migrate", "--to", "0.1.1", files[0], files[1])
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{
		files[1] + ": note: semantic_model[0].datasets[0].source: kept the {kind: query} source",
		files[1] + ": note: semantic_model[0].datasets[0].fields[0].expression.dialects[0].dialect: kept OSSIE_SQL_2026",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if strings.Contains(errs, files[0]) {
		t.Errorf("the mechanical file has notes:\n%s", errs)
	}
	golden(t, "migrate/table_source.yaml.to-0.1.1", readFile(t, files[0]))
	// What migrate wrote, validate accepts at 0.1.1 (and the reverse).
	if code, out, _ := run(t, "", "validate", files[0], files[1]); code != ExitOK || !strings.Contains(out, "(0.1.1: 2)") {
		t.Errorf("validate after downgrade: exit %d\n%s", code, out)
	}
}

func TestMigrateCheckAndErrors(t *testing.T) {
	files := copyTestdata(t, 0o644, "migrate/legacy.yaml")
	orig := readFile(t, files[0])
	broken := filepath.Join(t.TempDir(), "broken.yaml")
	if err := os.WriteFile(broken, []byte("version: \"1.0\"\nsemantic_model:\n  - name: x\n    datasets: []\n    bogus: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := run(t, "", "migrate", "--to", "0.2.0.dev0", "--check", files[0])
	if code != ExitProblems || !strings.Contains(out, "1 document would change (1.0 -> 0.2.0.dev0)") {
		t.Errorf("--check: exit %d\n%s", code, out)
	}
	if string(readFile(t, files[0])) != string(orig) {
		t.Error("--check wrote the file")
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"migrate", files[0]}, ExitUsage, "migrate needs --to VERSION (one of 0.1.1, 0.2.0.dev0)"},
		{[]string{"migrate", "--to", "0.3", files[0]}, ExitUsage, `not "0.3"`},
		{[]string{"migrate", "--to", "0.2.0.dev0", "-"}, ExitUsage, "give file names"},
		{[]string{"migrate", "--to", "0.2.0.dev0", filepath.Join(t.TempDir(), "nope.yaml")}, ExitProblems, "no such file"},
		{[]string{"migrate", "--to", "0.2.0.dev0", broken}, ExitProblems, "after migration:"},
	} {
		code, out, errs := run(t, "", tc.args...)
		if code != tc.code || !strings.Contains(out+errs, tc.want) {
			t.Errorf("%v: exit %d, want %d with %q\n%s%s", tc.args, code, tc.code, tc.want, out, errs)
		}
	}
	// An unknown version is never guessed.
	p := filepath.Join(t.TempDir(), "v9.yaml")
	if err := os.WriteFile(p, []byte("version: \"9.0\"\nsemantic_model: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := run(t, "", "migrate", "--to", "0.2.0.dev0", p)
	if code != ExitProblems || !strings.Contains(errs, `"9.0" is not a version migrate knows`) {
		t.Errorf("unknown version: exit %d\n%s", code, errs)
	}
}

// An unversioned JSON document gets `version` first and stays JSON laid
// out as written: on the line of `{`, or on a line of its own when the
// first member has one.
func TestMigrateUnversionedJSON(t *testing.T) {
	p := writeTemp(t, "s.json", `{"semantic_model": [{"name": "shop", "datasets": [{"name": "t", "source": "t"}]}]}`+"\n")
	if code, out, errs := run(t, "", "migrate", "--to", "0.1.1", p); code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	got := string(readFile(t, p))
	if want := `{"version": "0.1.1", "semantic_model": [{"name": "shop", "datasets": [{"name": "t", "source": "t"}]}]}` + "\n"; got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if code, out, _ := run(t, "", "validate", p); code != ExitOK || !strings.Contains(out, "(0.1.1: 1)") {
		t.Errorf("validate: exit %d %s", code, out)
	}
	model := `[{"name": "shop", "datasets": [{"name": "t", "source": "t"}]}]`
	p = writeTemp(t, "pretty.json", "{\n  \"semantic_model\": "+model+"\n}\n")
	if code, out, errs := run(t, "", "migrate", "--to", "0.1.1", p); code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	if got, want := string(readFile(t, p)), "{\n  \"version\": \"0.1.1\",\n  \"semantic_model\": "+model+"\n}\n"; got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if code, out, _ := run(t, "", "validate", p); code != ExitOK || !strings.Contains(out, "(0.1.1: 1)") {
		t.Errorf("validate: exit %d %s", code, out)
	}
}

// A refused migration lists its first problems and counts the rest (31
// here: 30 unknown keys and the empty datasets)
// (before, every one: a document at the limits has 100,000, whose text
// alone cost migrate about 50 MB).
func TestMigrateListsFirstProblems(t *testing.T) {
	var b strings.Builder
	b.WriteString("version: \"1.0\"\nsemantic_model:\n  - name: x\n    datasets: []\n")
	for i := range 30 {
		fmt.Fprintf(&b, "    bogus%d: 1\n", i)
	}
	p := filepath.Join(t.TempDir(), "bogus.yaml")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := run(t, "", "migrate", "--to", "0.2.0.dev0", p)
	if n := strings.Count(errs, "needs a human: after migration: "); code != ExitProblems || n != maxAfterMigration+1 || !strings.Contains(errs, "after migration: 11 more problems") {
		t.Errorf("exit %d, %d lines\n%s", code, n, errs)
	}
}

// TestMigrateKeptDialectOneNote: a model written in OSSIE_SQL_2026 keeps
// it on every expression; migrate says so once, with the count and the
// first places, not once per expression.
func TestMigrateKeptDialectOneNote(t *testing.T) {
	var b strings.Builder
	b.WriteString("version: \"0.2.0.dev0\"\nsemantic_model:\n  - name: m\n    datasets:\n      - name: d\n        source: t\n        fields:\n")
	for i := range 6 {
		fmt.Fprintf(&b, "          - name: f%d\n            expression: {dialects: [{dialect: OSSIE_SQL_2026, expression: c%d}]}\n", i, i)
	}
	f := writeTemp(t, "sql2026.yaml", b.String())
	code, out, errs := run(t, "", "migrate", "--to", "0.1.1", f)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	if n := strings.Count(errs, ": note: "); n != 1 {
		t.Errorf("%d notes, want 1:\n%s", n, errs)
	}
	want := f + ": note: semantic_model[0].datasets[0].fields[0].expression.dialects[0].dialect: kept OSSIE_SQL_2026, as in 5 more expressions (semantic_model[0].datasets[0].fields[1].expression.dialects[0].dialect, semantic_model[0].datasets[0].fields[2].expression.dialects[0].dialect, semantic_model[0].datasets[0].fields[3].expression.dialects[0].dialect, …)"
	if !strings.Contains(errs, want) {
		t.Errorf("stderr lacks %q:\n%s", want, errs)
	}
}
