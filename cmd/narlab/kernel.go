package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/narlab/narlab/internal/project"
	"github.com/narlab/narlab/kernel"
)

func init() {
	register(command{group: "kernel", name: "install", summary: `build GoNB and install the "Go (narlab)" Jupyter kernel`, run: kernelInstall})
	register(command{group: "kernel", name: "prepare", summary: "point a notebook's Go module at this checkout (first cell: !*narlab kernel prepare)", run: kernelPrepare})
}

func kernelInstall(args []string) error {
	fs := newFlags("kernel install")
	jupyterDir := fs.String("jupyter-dir", "", "install the kernel spec under DIR/kernels instead of the environment's share/jupyter (then run Jupyter with JUPYTER_PATH=DIR, e.g. for a second checkout beside the one the environment's kernel points at)")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	p, err := kernel.DefaultPaths()
	if err != nil {
		return err
	}
	if *jupyterDir != "" {
		p = p.WithJupyterDir(*jupyterDir)
	}
	return kernel.Install(p, os.Stderr)
}

func kernelPrepare(args []string) error {
	fs := newFlags("kernel prepare")
	dir := fs.String("dir", ".", "the Go module to prepare (GoNB's scratch module is the working directory of !* commands)")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	root, err := project.Root()
	if err != nil {
		return err
	}
	if err := kernel.Prepare(*dir, root); err != nil {
		return err
	}
	// No path: the line shows in every notebook's output, the gallery's too.
	fmt.Fprintf(stdout, "narlab (checkout %s) ready for import (offline)\n", filepath.Base(root))
	return nil
}
