package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/narlab/narlab/lib/nn"
)

// The version command: what this binary is (module version, commit, Go)
// and the training backend it would pick here.

func init() {
	register(command{name: "version", summary: "print narlab's module version, commit, Go version and the training backend it picks", run: versionCmd})
}

// The commit stamp of scripts/build-narlab.sh (-ldflags -X), for builds the
// go command does not stamp itself (git worktrees, -buildvcs=false).
var stampCommit, stampTime, stampModified string

// versionInfo is what `narlab version` reports.
type versionInfo struct {
	// Module is the main module's path and Version its version: a tag or
	// pseudo-version that the go command stamps from VCS, or "(devel)".
	Module  string `json:"module"`
	Version string `json:"version"`
	// Commit, CommitTime and Modified come from the VCS stamp of `go
	// build` in a git checkout, else from scripts/build-narlab.sh's
	// (Commit is "" when the binary has neither: `go run`, `go test`, a
	// plain `go build` in a worktree or with -buildvcs=false). CommitFrom
	// says which: "go" or "build-narlab.sh".
	Commit     string `json:"commit"`
	CommitTime string `json:"commit_time,omitempty"`
	Modified   bool   `json:"modified"`
	CommitFrom string `json:"commit_from,omitempty"`
	// Go is the toolchain the binary was built with; Platform its GOOS/GOARCH.
	Go       string `json:"go"`
	Platform string `json:"platform"`
	// CGO reports whether the binary was built with cgo (XLA needs it).
	CGO bool `json:"cgo"`
	// Backend is the training backend narlab picks on this machine.
	Backend nn.Choice `json:"backend"`
}

// buildStamp is scripts/build-narlab.sh's stamp.
type buildStamp struct{ commit, time, modified string }

// newVersionInfo reads bi (nil: no build information), the build script's
// stamp and the backend choice.
func newVersionInfo(bi *debug.BuildInfo, stamp buildStamp, backend nn.Choice) versionInfo {
	v := versionInfo{Module: "github.com/narlab/narlab", Version: "unknown", Go: runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH, Backend: backend}
	if bi != nil {
		v.readBuildInfo(bi)
	}
	if v.Commit == "" && stamp.commit != "" {
		v.Commit, v.CommitTime, v.Modified, v.CommitFrom = stamp.commit, stamp.time, stamp.modified == "true", "build-narlab.sh"
	}
	return v
}

// readBuildInfo fills what the go command recorded.
func (v *versionInfo) readBuildInfo(bi *debug.BuildInfo) {
	if bi.Main.Path != "" {
		v.Module = bi.Main.Path
	}
	if bi.Main.Version != "" {
		v.Version = bi.Main.Version
	}
	if bi.GoVersion != "" {
		v.Go = bi.GoVersion
	}
	var goos, goarch string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit, v.CommitFrom = s.Value, "go"
		case "vcs.time":
			v.CommitTime = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		case "CGO_ENABLED":
			v.CGO = s.Value == "1"
		case "GOOS":
			goos = s.Value
		case "GOARCH":
			goarch = s.Value
		}
	}
	if goos != "" && goarch != "" {
		v.Platform = goos + "/" + goarch
	}
}

func (v versionInfo) write(w io.Writer) {
	fmt.Fprintf(w, "narlab %s\n", v.Version)
	fmt.Fprintf(w, "module:  %s\n", v.Module)
	switch {
	case v.Commit == "":
		fmt.Fprintln(w, "commit:  unknown (no VCS stamp: build with scripts/build-narlab.sh, as make setup does)")
	default:
		c := v.Commit
		if v.CommitTime != "" {
			c += " (" + v.CommitTime + ")"
		}
		if v.Modified {
			c += ", with uncommitted changes"
		}
		fmt.Fprintf(w, "commit:  %s\n", c)
	}
	cgo := "cgo"
	if !v.CGO {
		cgo = "no cgo"
	}
	fmt.Fprintf(w, "go:      %s %s (%s)\n", v.Go, v.Platform, cgo)
	fmt.Fprintf(w, "backend: %s (%s)\n         %s\n", v.Backend.Kind, v.Backend.Config, v.Backend.Reason)
}

func versionCmd(args []string) error {
	fs := newFlags("version")
	format := fs.String("format", "text", "output format: text or json")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *format != "text" && *format != "json" {
		return fmt.Errorf("version: --format %q; accepted: text, json", *format)
	}
	bi, _ := debug.ReadBuildInfo()
	v := newVersionInfo(bi, buildStamp{stampCommit, stampTime, stampModified}, nn.Choose(""))
	if *format == "json" {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, string(b))
		return nil
	}
	v.write(stdout)
	return nil
}
