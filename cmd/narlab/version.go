package main

import (
	"encoding/json"
	"fmt"
	"runtime/debug"

	"github.com/narlab/narlab/internal/project"
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

// versionInfo is what `narlab version` reports: the build and the
// training backend narlab picks on this machine.
type versionInfo struct {
	project.Build
	Backend nn.Choice `json:"backend"`
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
	v := versionInfo{project.ReadBuild(bi, project.Stamp{Commit: stampCommit, Time: stampTime, Modified: stampModified}), nn.Choose("")}
	if *format == "json" {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, string(b))
		return nil
	}
	v.Write(stdout)
	fmt.Fprintf(stdout, "backend: %s (%s)\n         %s\n", v.Backend.Kind, v.Backend.Config, v.Backend.Reason)
	return nil
}
