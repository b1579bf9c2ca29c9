// Command docgen renders the pages made from the committed measurements
// (docs/performance.md, docs/results.md, the README's demo transcript and
// summary table) from results/*.jsonl: `go generate ./results`, or
// `go run ./cmd/docgen [-check]` from anywhere in the checkout. With -check
// it writes nothing and exits 1 naming the pages that differ.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/narlab/narlab/internal/fsutil"
	"github.com/narlab/narlab/results"
)

func main() {
	check := flag.Bool("check", false, "write nothing; exit 1 if a page differs from what results/ renders")
	flag.Parse()
	if err := run(*check); err != nil {
		fmt.Fprintln(os.Stderr, "docgen:", err)
		os.Exit(1)
	}
}

func run(check bool) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	pages, err := results.Render(root)
	if err != nil {
		return err
	}
	var stale []string
	for _, p := range results.Pages {
		path := filepath.Join(root, p)
		old, _ := os.ReadFile(path)
		if bytes.Equal(old, pages[p]) {
			continue
		}
		stale = append(stale, p)
		if !check {
			if err := fsutil.WriteFile(path, pages[p], 0o644); err != nil {
				return err
			}
			fmt.Println("docgen: wrote", p)
		}
	}
	if check && len(stale) > 0 {
		return fmt.Errorf("%v differ from what results/*.jsonl renders: run go generate ./results", stale)
	}
	return nil
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("not inside the narlab checkout (no go.mod above the working directory)")
		}
		dir = parent
	}
}
