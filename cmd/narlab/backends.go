package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/narlab/narlab/lib/nn"
)

// The backends command: what narlab found for training and what it picks.

// backendUsage is the help of --backend on every command that trains or
// evaluates a model.
const backendUsage = "GoMLX backend: go, or xla:/abs/path/plugin.so (default: narlab's pick, see 'narlab backends')"

func init() {
	register(command{name: "backends", summary: "show the training backends found (XLA CUDA/CPU plugins, pure Go) and the one narlab picks", run: backendsCmd})
}

func backendsCmd(args []string) error {
	fs := newFlags("backends")
	backend := fs.String("backend", "", "a backend to resolve instead of narlab's own pick: go, or xla:/abs/path/plugin.so")
	format := fs.String("format", "text", "output format: text or json")
	check := fs.Bool("check", false, "also start the picked backend (loads the XLA plugin) and report failures")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *format != "text" && *format != "json" {
		return fmt.Errorf("backends: --format %q; accepted: text, json", *format)
	}
	found := nn.Discover()
	choice := nn.Choose(*backend)
	// A backend that cannot be used (not in this binary, a missing plugin
	// file) fails the command after the report; --check also starts it.
	checkErr := nn.CheckBackend(*backend, true)
	if *check && checkErr == nil {
		_, _, checkErr = nn.BackendChoice(*backend)
	}
	if *format == "json" {
		out := map[string]any{"found": found, "choice": choice}
		if *check {
			out["check"] = "ok"
		}
		if checkErr != nil {
			out["check"] = checkErr.Error()
		}
		b, _ := json.MarshalIndent(out, "", "  ")
		fmt.Fprintln(stdout, string(b))
		if checkErr != nil {
			return fmt.Errorf("backends: %s cannot be used: %w", choice.Config, checkErr)
		}
		return nil
	}
	yes := map[bool]string{true: "yes", false: "no"}
	fmt.Fprintf(stdout, "XLA linked in this binary: %s\n", yes[found.XLACompiled])
	fmt.Fprintf(stdout, "NVIDIA GPU (/dev/nvidia0): %s\n", yes[found.GPU])
	list := func(ps []string) string {
		if len(ps) == 0 {
			return "none found"
		}
		return strings.Join(ps, "\n                 ")
	}
	fmt.Fprintf(stdout, "XLA CPU plugin:  %s\n", list(found.CPUPlugins))
	fmt.Fprintf(stdout, "XLA CUDA plugin: %s\n", list(found.CUDAPlugins))
	fmt.Fprintf(stdout, "\npicked: %s  (%s)\n        %s\n", choice.Kind, choice.Config, choice.Reason)
	fmt.Fprintf(stdout, "override with --backend on train/eval or $%s; set $%s to use another plugin file\n", nn.EnvBackend, nn.EnvPlugin)
	if checkErr != nil {
		return fmt.Errorf("backends: %s cannot be used: %w", choice.Config, checkErr)
	}
	if *check {
		fmt.Fprintf(stdout, "check: %s started\n", choice.Kind)
	}
	return nil
}
