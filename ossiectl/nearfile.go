package ossiectl

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ossie-dev/ossie/compiler"
)

// readNamedFile is os.ReadFile whose "no such file" error names the file
// of the same directory that the name is a plausible typo of
// (compiler.DidYouMean: modle.yaml → model.yaml, model.yml → model.yaml).
func readNamedFile(name string) ([]byte, error) {
	data, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		if near := nearFile(name); near != "" {
			err = fmt.Errorf("%w; did you mean %s?", err, near)
		}
	}
	return data, err
}

// nearFile is the path of the regular file in name's directory whose name
// is closest to name's, or "" when none is close or the directory cannot
// be read.
func nearFile(name string) string {
	dir := filepath.Dir(name)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() || e.Type()&fs.ModeSymlink != 0 {
			names = append(names, e.Name())
		}
	}
	near := compiler.DidYouMean(filepath.Base(name), names)
	if near == "" {
		return ""
	}
	if filepath.Base(name) == name { // given without a directory
		return near
	}
	return filepath.Join(dir, near)
}
