package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/narlab/narlab/lib/nn"
)

func TestNewVersionInfo(t *testing.T) {
	choice := nn.Choice{Config: "go", Kind: "go", Reason: "test"}
	settings := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	stamp := buildStamp{"fedcba9", "2026-11-25T10:00:00Z", "true"}
	for _, tc := range []struct {
		name  string
		bi    *debug.BuildInfo
		stamp buildStamp
		want  versionInfo
	}{
		{"no build information", nil, buildStamp{}, versionInfo{Module: "github.com/narlab/narlab", Version: "unknown", Go: runtime.Version(),
			Platform: runtime.GOOS + "/" + runtime.GOARCH, Backend: choice}},
		{"go build in a clean checkout", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/narlab/narlab",
			Version: "v0.0.0-20261126061000-be79176abcde"}, Settings: settings("CGO_ENABLED", "1", "GOOS", "linux", "GOARCH", "arm64",
			"vcs.revision", "be79176abcdef", "vcs.time", "2026-11-26T06:10:00Z", "vcs.modified", "false")}, stamp,
			versionInfo{Module: "github.com/narlab/narlab", Version: "v0.0.0-20261126061000-be79176abcde", Commit: "be79176abcdef",
				CommitTime: "2026-11-26T06:10:00Z", CommitFrom: "go", Go: "go1.26.8", Platform: "linux/arm64", CGO: true, Backend: choice}},
		{"modified, without cgo", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/narlab/narlab", Version: "(devel)"},
			Settings: settings("CGO_ENABLED", "0", "vcs.revision", "abc", "vcs.modified", "true")}, buildStamp{},
			versionInfo{Module: "github.com/narlab/narlab", Version: "(devel)", Commit: "abc", Modified: true, CommitFrom: "go", Go: "go1.26.8",
				Platform: runtime.GOOS + "/" + runtime.GOARCH, Backend: choice}},
		{"no go stamp (worktree): the build script's", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/narlab/narlab", Version: "(devel)"},
			Settings: settings("CGO_ENABLED", "1")}, stamp,
			versionInfo{Module: "github.com/narlab/narlab", Version: "(devel)", Commit: "fedcba9", CommitTime: "2026-11-25T10:00:00Z", Modified: true,
				CommitFrom: "build-narlab.sh", Go: "go1.26.8", Platform: runtime.GOOS + "/" + runtime.GOARCH, CGO: true, Backend: choice}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := newVersionInfo(tc.bi, tc.stamp, choice); got != tc.want {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

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
