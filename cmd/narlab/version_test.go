package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/narlab/narlab/lib/nn"
)

// TestVersionCommand builds narlab as make setup does (scripts/build-narlab.sh)
// and runs it: its commit is the checkout's HEAD (and "modified" says whether
// the checkout has changes), its Go the toolchain's, its backend the one
// narlab picks here.
func TestVersionCommand(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "narlab")
	if out, err := exec.Command("bash", "../../scripts/build-narlab.sh", bin).CombinedOutput(); err != nil {
		t.Fatalf("scripts/build-narlab.sh: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version", "--format", "json").Output()
	if err != nil {
		t.Fatalf("narlab version --format json: %v", err)
	}
	var v versionInfo
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if v.Module != "github.com/narlab/narlab" || v.Version == "" || v.Version == "unknown" {
		t.Errorf("module %q version %q", v.Module, v.Version)
	}
	if v.Go != runtime.Version() {
		t.Errorf("go %q, want %q", v.Go, runtime.Version())
	}
	if want := nn.Choose(""); v.Backend.Kind != want.Kind || v.Backend.Config != want.Config {
		t.Errorf("backend %+v, want %+v", v.Backend, want)
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("no git here (%v): the commit cannot be checked", err)
	}
	if v.Commit != strings.TrimSpace(string(head)) {
		t.Errorf("commit %q, want HEAD %s", v.Commit, head)
	}
	status, err := exec.Command("git", "status", "--porcelain").Output()
	if err != nil {
		t.Fatal(err)
	}
	if dirty := len(bytes.TrimSpace(status)) > 0; v.Modified != dirty {
		t.Errorf("modified %v, but git status says %v:\n%s", v.Modified, dirty, status)
	}
	text, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"narlab " + v.Version, "commit:  " + v.Commit, "go:      " + v.Go, "backend: " + v.Backend.Kind} {
		if !strings.Contains(string(text), want) {
			t.Errorf("narlab version does not say %q:\n%s", want, text)
		}
	}
}
