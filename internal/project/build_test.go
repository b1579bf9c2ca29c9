package project

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestReadBuild(t *testing.T) {
	settings := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	stamp := Stamp{"fedcba9", "2026-11-25T10:00:00Z", "true"}
	for _, tc := range []struct {
		name  string
		bi    *debug.BuildInfo
		stamp Stamp
		want  Build
	}{
		{"no build information", nil, Stamp{}, Build{Module: "github.com/narlab/narlab", Version: "unknown", Go: runtime.Version(),
			Platform: runtime.GOOS + "/" + runtime.GOARCH}},
		{"go build in a clean checkout", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/narlab/narlab",
			Version: "v0.0.0-20261126061000-be79176abcde"}, Settings: settings("CGO_ENABLED", "1", "GOOS", "linux", "GOARCH", "arm64",
			"vcs.revision", "be79176abcdef", "vcs.time", "2026-11-26T06:10:00Z", "vcs.modified", "false")}, stamp,
			Build{Module: "github.com/narlab/narlab", Version: "v0.0.0-20261126061000-be79176abcde", Commit: "be79176abcdef",
				CommitTime: "2026-11-26T06:10:00Z", CommitFrom: "go", Go: "go1.26.8", Platform: "linux/arm64", CGO: true}},
		{"modified, without cgo", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/narlab/narlab", Version: "(devel)"},
			Settings: settings("CGO_ENABLED", "0", "vcs.revision", "abc", "vcs.modified", "true")}, Stamp{},
			Build{Module: "github.com/narlab/narlab", Version: "(devel)", Commit: "abc", Modified: true, CommitFrom: "go", Go: "go1.26.8",
				Platform: runtime.GOOS + "/" + runtime.GOARCH}},
		{"no go stamp (worktree): the build script's", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/narlab/narlab", Version: "(devel)"},
			Settings: settings("CGO_ENABLED", "1")}, stamp,
			Build{Module: "github.com/narlab/narlab", Version: "(devel)", Commit: "fedcba9", CommitTime: "2026-11-25T10:00:00Z", Modified: true,
				CommitFrom: "build-narlab.sh", Go: "go1.26.8", Platform: runtime.GOOS + "/" + runtime.GOARCH, CGO: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ReadBuild(tc.bi, tc.stamp); got != tc.want {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestBuildWrite(t *testing.T) {
	for _, tc := range []struct {
		b    Build
		want string
	}{
		{Build{Module: "m", Version: "v1", Commit: "abc", CommitTime: "t", Modified: true, Go: "go1", Platform: "linux/amd64", CGO: true},
			"narlab v1\nmodule:  m\ncommit:  abc (t), with uncommitted changes\ngo:      go1 linux/amd64 (cgo)\n"},
		{Build{Module: "m", Version: "(devel)", Go: "go1", Platform: "linux/arm64"},
			"narlab (devel)\nmodule:  m\ncommit:  unknown (no VCS stamp: build with scripts/build-narlab.sh, as make setup does)\ngo:      go1 linux/arm64 (no cgo)\n"},
	} {
		var w strings.Builder
		tc.b.Write(&w)
		if w.String() != tc.want {
			t.Errorf("%+v wrote\n%s\nwant\n%s", tc.b, w.String(), tc.want)
		}
	}
}
