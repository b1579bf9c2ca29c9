package salsaclrs

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/narlab/narlab/internal/fsutil"
	"github.com/narlab/narlab/lib/salsa"
)

// A run's directory (Config.Dir) keeps ALGO.json per finished algorithm
// (its settings and Result), results.md (Table) and figure.png (Figure),
// rewritten after each algorithm. An algorithm whose file is there with the
// same settings is not run again, so a killed run resumes where it stopped.
// While an algorithm is tested, ALGO.partial.json holds the test sets
// finished so far: a resumed run trains again (training is deterministic)
// and, when its best validation is the interrupted run's, keeps them.

// saved is ALGO.json.
type saved struct {
	Params map[string]string `json:"params"`
	Result
}

// loadDone returns an algorithm's result from dir when it was run there
// with the same settings, nil when it was not run there.
func loadDone(dir, algo string, params map[string]string) (*Result, error) {
	return load(filepath.Join(dir, algo+".json"), algo, params)
}

// loadPartial returns the test sets an interrupted run of an algorithm
// finished in dir (ALGO.partial.json), nil when there are none.
func loadPartial(dir, algo string, params map[string]string) (*Result, error) {
	return load(filepath.Join(dir, algo+".partial.json"), algo, params)
}

func load(path, algo string, params map[string]string) (*Result, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var s saved
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("salsaclrs: %s: %w (remove it to run %s again)", path, err, algo)
	}
	if err := sameParams(path, s.Params, params); err != nil {
		return nil, err
	}
	return &s.Result, nil
}

// sameParams reports a file of path made with other settings than params,
// naming the first that differs.
func sameParams(path string, saved, params map[string]string) error {
	for _, k := range slices.Sorted(maps.Keys(params)) {
		if saved[k] != params[k] {
			return fmt.Errorf("salsaclrs: %s was run with %s=%q, this run has %q: remove it, or use another directory",
				path, k, saved[k], params[k])
		}
	}
	return nil
}

// saveResult writes dir/ALGO.json, whole or not at all, and removes the
// algorithm's partial result.
func saveResult(dir string, params map[string]string, r *Result) error {
	if err := write(filepath.Join(dir, r.Algo+".json"), params, r); err != nil {
		return err
	}
	if err := os.Remove(filepath.Join(dir, r.Algo+".partial.json")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// savePartial writes dir/ALGO.partial.json: the best validation and the
// test sets finished so far.
func savePartial(dir string, params map[string]string, r *Result) error {
	return write(filepath.Join(dir, r.Algo+".partial.json"), params, r)
}

func write(path string, params map[string]string, r *Result) error {
	data, err := json.MarshalIndent(saved{Params: params, Result: *r}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), fsutil.DirMode); err != nil {
		return err
	}
	return fsutil.WriteFile(path, append(data, '\n'), fsutil.DataMode)
}

// writeSummary writes dir/results.md and dir/figure.png from results.
func writeSummary(dir string, results []Result) error {
	if err := fsutil.WriteFile(filepath.Join(dir, "results.md"), []byte(Table(results)), fsutil.DataMode); err != nil {
		return err
	}
	fig, err := Figure(Points(results))
	if err != nil {
		return err
	}
	png, err := fig.PNG()
	if err != nil {
		return err
	}
	return fsutil.WriteFile(filepath.Join(dir, "figure.png"), png, fsutil.DataMode)
}

// inSALSAOrder returns results in SALSA-CLRS's order of the algorithms
// (salsa.Algorithms), whatever order they ran in.
func inSALSAOrder(results []Result) []Result {
	order := salsa.Algorithms()
	out := slices.Clone(results)
	slices.SortStableFunc(out, func(a, b Result) int {
		return slices.Index(order, a.Algo) - slices.Index(order, b.Algo)
	})
	return out
}

// Table is a Markdown table of results' test scores (percentages): a row
// per test set (family and n), a column per algorithm in SALSA-CLRS's
// order, and the number of test graphs of each set.
func Table(results []Result) string {
	results = inSALSAOrder(results)
	type set struct {
		name, family string
		n, samples   int
	}
	var sets []set
	seen := map[string]bool{}
	score := map[[2]string]float64{}
	for _, r := range results {
		for _, t := range r.Tests {
			if !seen[t.Set] {
				seen[t.Set] = true
				sets = append(sets, set{t.Set, t.Family, t.N, t.Samples})
			}
			score[[2]string{r.Algo, t.Set}] = t.Scores["score"]
		}
	}
	sort.SliceStable(sets, func(i, j int) bool {
		if sets[i].family != sets[j].family {
			return familyOrder(sets[i].family) < familyOrder(sets[j].family)
		}
		return sets[i].n < sets[j].n
	})
	var b strings.Builder
	b.WriteString("| family | n | graphs |")
	for _, r := range results {
		b.WriteString(" " + r.Algo + " |")
	}
	b.WriteString("\n|---|---:|---:|" + strings.Repeat("---:|", len(results)) + "\n")
	for _, s := range sets {
		fmt.Fprintf(&b, "| %s | %d | %d |", s.family, s.n, s.samples)
		for _, r := range results {
			if v, ok := score[[2]string{r.Algo, s.name}]; ok {
				fmt.Fprintf(&b, " %.1f |", 100*v)
			} else {
				b.WriteString(" |")
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("| best validation (ER, n=16) | | |")
	for _, r := range results {
		fmt.Fprintf(&b, " %.1f (step %d) |", 100*r.BestVal, r.BestStep)
	}
	b.WriteString("\n")
	return b.String()
}

// familyOrder puts SALSA-CLRS's families in its order: ER, WS, Delaunay.
func familyOrder(f string) int {
	switch strings.ToLower(f) {
	case "er":
		return 0
	case "ws":
		return 1
	case "delaunay":
		return 2
	}
	return 3
}
