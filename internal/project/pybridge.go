package project

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// BridgePython returns the interpreter of the bridge environment
// (dm-clrs 2.0.3 with JAX, PyTorch Geometric) that scripts/setup-pybridge.sh
// makes and `make test` sets up: $NARLAB_PYBRIDGE_PYTHON, else the one
// named by the record that script writes, $NARLAB_CACHE/pybridge.env
// (default ${XDG_CACHE_HOME:-$HOME/.cache}/narlab/pybridge.env).
func BridgePython() (string, error) {
	if p := os.Getenv("NARLAB_PYBRIDGE_PYTHON"); p != "" {
		return p, nil
	}
	cache := os.Getenv("NARLAB_CACHE")
	if cache == "" {
		d, err := os.UserCacheDir()
		if err != nil {
			return "", err
		}
		cache = filepath.Join(d, "narlab")
	}
	record := filepath.Join(cache, "pybridge.env")
	f, err := os.Open(record)
	if err != nil {
		return "", fmt.Errorf("no bridge environment (dm-clrs, JAX, PyTorch Geometric): run scripts/setup-pybridge.sh (make test does): %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if p, ok := strings.CutPrefix(sc.Text(), "NARLAB_PYBRIDGE_PYTHON="); ok {
			if _, err := os.Stat(p); err != nil {
				return "", fmt.Errorf("%s names %s, which is gone: run scripts/setup-pybridge.sh", record, p)
			}
			return p, nil
		}
	}
	return "", fmt.Errorf("%s names no NARLAB_PYBRIDGE_PYTHON: run scripts/setup-pybridge.sh", record)
}
