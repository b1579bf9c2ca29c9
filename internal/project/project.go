// Package project locates the narlab checkout and the things set up in it:
// the project root, its Python environment (.venv, made by
// scripts/setup.sh from environment.yml) and its data directory.
//
// Lookups honour environment variables first, so that installed binaries
// and tests can point elsewhere:
//
//	NARLAB_ROOT    the project root (default: the nearest parent directory of
//	               the working directory, or of the running executable, whose
//	               go.mod declares module github.com/narlab/narlab)
//	NARLAB_PYTHON  the Python interpreter (default: ROOT/.venv/bin/python)
//	NARLAB_DATA    the data directory (default: ROOT/data)
package project

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/narlab/narlab/internal/fsutil"
)

// Module is the Go module path of narlab.
const Module = "github.com/narlab/narlab"

// Root returns the project root directory.
func Root() (string, error) {
	if r := os.Getenv("NARLAB_ROOT"); r != "" {
		return filepath.Abs(r)
	}
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		starts = append(starts, filepath.Dir(exe))
	}
	for _, dir := range starts {
		for d := dir; ; d = filepath.Dir(d) {
			if isRoot(d) {
				return d, nil
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return "", errors.New("cannot find the narlab project root: run from inside the checkout or set NARLAB_ROOT")
}

func isRoot(dir string) bool {
	f, err := os.Open(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	defer f.Close()
	errFound := errors.New("found")
	found := false
	fsutil.ScanLines(f, func(_ int, line []byte) error {
		if rest, ok := strings.CutPrefix(string(line), "module "); ok {
			found = strings.TrimSpace(rest) == Module
			return errFound // the first module line decides
		}
		return nil
	})
	return found
}

// Python returns the project's Python interpreter, checking that it exists.
func Python() (string, error) {
	if p := os.Getenv("NARLAB_PYTHON"); p != "" {
		return exec.LookPath(p)
	}
	root, err := Root()
	if err != nil {
		return "", err
	}
	p := filepath.Join(root, ".venv", "bin", "python")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("the project's Python environment is missing (%s): run scripts/setup.sh (or `make setup`)", p)
	}
	return p, nil
}

// VenvBin returns the path of an executable installed in the project's
// Python environment (for example "mlflow" or "jupyter").
func VenvBin(name string) (string, error) {
	py, err := Python()
	if err != nil {
		return "", err
	}
	p := filepath.Join(filepath.Dir(py), name)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("NARLAB_PYTHON") != "" { // an environment of the Python package's (its narlab command sets it)
			hint := ""
			if name == "mlflow" {
				hint = ` (narlab's wheel installs it with its extra: pip install "narlab-VERSION-….whl[mlflow]")`
			}
			return "", fmt.Errorf("%s is not installed in the Python environment of %s: pip install %s there%s", name, py, name, hint)
		}
		return "", fmt.Errorf("%s is not installed in the project's Python environment (%s): run scripts/setup.sh", name, filepath.Dir(py))
	}
	return p, nil
}

// DataDir returns the project's data directory, creating it if needed.
func DataDir() (string, error) {
	d := os.Getenv("NARLAB_DATA")
	if d == "" {
		root, err := Root()
		if err != nil {
			return "", err
		}
		d = filepath.Join(root, "data")
	}
	if err := os.MkdirAll(d, fsutil.DirMode); err != nil {
		return "", fmt.Errorf("creating the data directory: %w", err)
	}
	return filepath.Abs(d)
}
