package project

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// Build is what a narlab binary knows of itself (`narlab version`).
type Build struct {
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
}

// Stamp is scripts/build-narlab.sh's stamp (-ldflags -X), for builds the
// go command does not stamp itself (git worktrees, -buildvcs=false).
type Stamp struct{ Commit, Time, Modified string }

// ReadBuild reads bi (nil: no build information; debug.ReadBuildInfo's)
// and the build script's stamp, which counts only when the go command
// recorded no commit.
func ReadBuild(bi *debug.BuildInfo, stamp Stamp) Build {
	b := Build{Module: "github.com/narlab/narlab", Version: "unknown", Go: runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi != nil {
		b.read(bi)
	}
	if b.Commit == "" && stamp.Commit != "" {
		b.Commit, b.CommitTime, b.Modified, b.CommitFrom = stamp.Commit, stamp.Time, stamp.Modified == "true", "build-narlab.sh"
	}
	return b
}

// read fills what the go command recorded.
func (b *Build) read(bi *debug.BuildInfo) {
	if bi.Main.Path != "" {
		b.Module = bi.Main.Path
	}
	if bi.Main.Version != "" {
		b.Version = bi.Main.Version
	}
	if bi.GoVersion != "" {
		b.Go = bi.GoVersion
	}
	var goos, goarch string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Commit, b.CommitFrom = s.Value, "go"
		case "vcs.time":
			b.CommitTime = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		case "CGO_ENABLED":
			b.CGO = s.Value == "1"
		case "GOOS":
			goos = s.Value
		case "GOARCH":
			goarch = s.Value
		}
	}
	if goos != "" && goarch != "" {
		b.Platform = goos + "/" + goarch
	}
}

// Write prints the build as `narlab version` does: version, module,
// commit and Go, a line each.
func (b Build) Write(w io.Writer) {
	fmt.Fprintf(w, "narlab %s\n", b.Version)
	fmt.Fprintf(w, "module:  %s\n", b.Module)
	switch {
	case b.Commit == "":
		fmt.Fprintln(w, "commit:  unknown (no VCS stamp: build with scripts/build-narlab.sh, as make setup does)")
	default:
		c := b.Commit
		if b.CommitTime != "" {
			c += " (" + b.CommitTime + ")"
		}
		if b.Modified {
			c += ", with uncommitted changes"
		}
		fmt.Fprintf(w, "commit:  %s\n", c)
	}
	cgo := "cgo"
	if !b.CGO {
		cgo = "no cgo"
	}
	fmt.Fprintf(w, "go:      %s %s (%s)\n", b.Go, b.Platform, cgo)
}
