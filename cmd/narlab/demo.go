package main

import (
	"fmt"
	"path/filepath"

	"github.com/narlab/narlab/internal/project"
)

func init() {
	register(command{name: "demo", summary: "the main job: generate a small CLRS-30 sample and show where to look", run: demo})
}

// demo is the main job of `make run`.
func demo(args []string) error {
	fs := newFlags("demo", "[--out DIR]")
	out := fs.String("out", "", "where to write the data (default: the project's data/clrs30-val)")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *out == "" {
		dir, err := project.DataDir()
		if err != nil {
			return err
		}
		*out = filepath.Join(dir, "clrs30-val")
	}
	fmt.Fprintf(stdout, "== generating the CLRS-30 validation split (30 algorithms) into %s\n", *out)
	if err := clrsGenerate([]string{"--split", "val", "--out", *out}); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nLoad it with numpy:  numpy.load(%q)\n", filepath.Join(*out, "bfs_val.npz"))
	return nil
}
