package v1alpha1_test

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeneratedFilesUpToDate reruns scripts/generate.sh on a copy of the
// module (go.mod, go.sum, api/, scripts/generate.sh) and fails when the
// checked-in deepcopy code or CRD YAML differ from what controller-gen
// produces now. The copy keeps the working tree untouched: controller-gen
// writes deepcopy code next to the types it reads.
func TestGeneratedFilesUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs controller-gen")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	for _, f := range []string{"go.mod", "go.sum", "scripts/generate.sh"} {
		copyFile(t, filepath.Join(root, f), filepath.Join(tmp, f))
	}
	err = filepath.WalkDir(filepath.Join(root, "api"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if strings.HasPrefix(d.Name(), "zz_generated") {
			return nil
		}
		copyFile(t, path, filepath.Join(tmp, rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command("bash", filepath.Join(tmp, "scripts", "generate.sh"))
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scripts/generate.sh: %v\n%s", err, out)
	}

	compareDir(t, filepath.Join(root, "config", "crd", "bases"), filepath.Join(tmp, "config", "crd", "bases"))
	for _, pkg := range []string{"ossie", "v1alpha1"} {
		compareFile(t, filepath.Join(root, "api", pkg, "zz_generated.deepcopy.go"), filepath.Join(tmp, "api", pkg, "zz_generated.deepcopy.go"))
	}
}

func compareDir(t *testing.T, checkedIn, generated string) {
	t.Helper()
	want := names(t, generated)
	have := names(t, checkedIn)
	if strings.Join(want, ",") != strings.Join(have, ",") {
		t.Errorf("%s holds %v, controller-gen writes %v: run scripts/generate.sh", checkedIn, have, want)
	}
	for _, n := range want {
		compareFile(t, filepath.Join(checkedIn, n), filepath.Join(generated, n))
	}
}

func compareFile(t *testing.T, checkedIn, generated string) {
	t.Helper()
	a, err := os.ReadFile(checkedIn)
	if err != nil {
		t.Errorf("%v: run scripts/generate.sh", err)
		return
	}
	b, err := os.ReadFile(generated)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Errorf("%s is out of date: run scripts/generate.sh", checkedIn)
	}
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
