package sweep

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/narlab/narlab/tracking"
)

// Grid is a grid given as lists of values (`narlab sweep run --algos …
// --processors … --seeds … --set … --vary …`) instead of a sweep file.
type Grid struct {
	Algorithms, Processors []string
	// Seeds are integers, as written.
	Seeds []string
	// Set are `flag=value` pairs every cell's `narlab train` gets; Vary
	// are `flag=v1,v2` axes over further train flags. A flag may be
	// written with or without its dashes.
	Set, Vary []string
}

// Spec is the grid as a sweep (slurm executor, no name: see [Submit]).
func (g Grid) Spec() (Spec, error) {
	s := Spec{Algorithms: g.Algorithms, Processors: g.Processors, Executor: "slurm"}
	for _, v := range g.Seeds {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return s, fmt.Errorf("sweep: --seeds: %q is not an integer", v)
		}
		s.Seeds = append(s.Seeds, n)
	}
	for _, kv := range g.Set {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return s, fmt.Errorf("sweep: --set %q: want flag=value", kv)
		}
		if s.Flags == nil {
			s.Flags = map[string]string{}
		}
		if _, dup := s.Flags[strings.TrimLeft(k, "-")]; dup {
			return s, fmt.Errorf("sweep: --set %s given twice", k)
		}
		s.Flags[strings.TrimLeft(k, "-")] = v
	}
	for _, kv := range g.Vary {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return s, fmt.Errorf("sweep: --vary %q: want flag=v1,v2", kv)
		}
		vals, err := listItems(v)
		if err != nil {
			return s, fmt.Errorf("sweep: --vary %q: %w; want flag=v1,v2 with distinct values", kv, err)
		}
		if s.Vary == nil {
			s.Vary = map[string][]string{}
		}
		s.Vary[strings.TrimLeft(k, "-")] = vals
	}
	return s, nil
}

// listItems splits a comma-separated list, refusing an empty item or one
// given twice (letter case aside).
func listItems(list string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for i, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, fmt.Errorf("item %d is empty", i+1)
		}
		if key := strings.ToLower(item); seen[key] {
			return nil, fmt.Errorf("%s is listed twice", item)
		} else {
			seen[key] = true
		}
		out = append(out, item)
	}
	return out, nil
}

// Executor holds the executor settings of one submission. They may change
// between submissions of the same grid; only the settings named in Given
// (by their flag names: executor, partition, time, mem, cpus, gpus,
// throttle, sbatch, parallel) replace the grid's.
type Executor struct {
	Executor string
	Slurm    SlurmConfig
	Local    LocalConfig
	Given    map[string]bool
}

func (e Executor) apply(s *Spec) {
	for name, given := range e.Given {
		if !given {
			continue
		}
		switch name {
		case "executor":
			s.Executor = e.Executor
		case "partition":
			s.Slurm.Partition = e.Slurm.Partition
		case "time":
			s.Slurm.Time = e.Slurm.Time
		case "mem":
			s.Slurm.Mem = e.Slurm.Mem
		case "cpus":
			s.Slurm.CPUs = e.Slurm.CPUs
		case "gpus":
			s.Slurm.GPUs = e.Slurm.GPUs
		case "throttle":
			s.Slurm.Throttle = e.Slurm.Throttle
		case "sbatch":
			s.Slurm.Sbatch = e.Slurm.Sbatch
		case "parallel":
			s.Local.Parallel = e.Local.Parallel
		}
	}
}

// Request is one submission of a sweep (`narlab sweep run`): a new grid,
// from a sweep file (SpecFile) or from lists (Grid), or, with neither, the
// grid already in Dir submitted again.
type Request struct {
	// Dir is the sweep's directory (required).
	Dir string
	// SpecFile is a sweep file (see [ReadSpec]); Grid the grid as lists.
	// At most one of them.
	SpecFile string
	Grid     *Grid
	// Name and Experiment, when set, replace the sweep file's (the name
	// defaults to the directory's name); they belong to a new grid.
	Name, Experiment string
	// Executor changes the executor settings of this submission.
	Executor Executor
	// Options are the sweep's environment (see [Prepare]).
	Options Options
	// DryRun plans the sweep and returns the slurm job script of the whole
	// grid, writing, creating and submitting nothing.
	DryRun bool
	// Log receives the notices of the submission (nil: none).
	Log io.Writer
}

// Outcome is what [Submit] did.
type Outcome struct {
	Sweep *Sweep
	// Script is the job script of a dry run.
	Script string
	// Slurm is the slurm executor's submission; Local what the local
	// executor ran.
	Slurm *Submission
	Local *LocalResult
}

// Submit checks and prepares the request's sweep ([Prepare]: the grid, the
// cells' train flags, the tracking server and the parent run, before
// anything is written), then submits its unfinished cells as a SLURM job
// array or runs them here ([Sweep.SubmitSlurm], [Sweep.RunLocal]). A local
// run whose cells failed returns its Outcome with an error counting them.
func Submit(ctx context.Context, r Request) (*Outcome, error) {
	if r.Dir == "" {
		return nil, fmt.Errorf("sweep: the sweep's directory is required")
	}
	if st, err := os.Stat(r.Dir); err == nil && !st.IsDir() {
		return nil, fmt.Errorf("sweep: --dir %s: is a file; expected the sweep's directory", r.Dir)
	}
	if r.Options.Tracking != "" {
		if err := tracking.CheckTrackingURI(r.Options.Tracking); err != nil {
			return nil, fmt.Errorf("sweep: --tracking: %w", err)
		}
	}
	spec, err := r.spec()
	if err != nil {
		return nil, err
	}
	if r.DryRun {
		return dryRun(r.Dir, spec, r.Options)
	}
	sw, err := Prepare(ctx, r.Dir, spec, r.Options)
	if err != nil {
		return nil, err
	}
	logf := func(format string, args ...any) {
		if r.Log != nil {
			fmt.Fprintf(r.Log, format+"\n", args...)
		}
	}
	if sw.MovedFrom != "" {
		logf("sweep %s: its tracking server %s does not answer; %s (%s) holds its parent run, so the cells log there", sw.ID, sw.MovedFrom, sw.Tracking, sw.MovedVia)
	}
	logf("sweep %s: %d cells; parent run %s on %s", sw.ID, len(sw.Cells), sw.ParentRunID, sw.Tracking)
	out := &Outcome{Sweep: sw}
	if sw.Spec.Executor == "slurm" {
		if out.Slurm, err = sw.SubmitSlurm(ctx); err != nil {
			return nil, err
		}
		logf("sweep %s: %s", sw.ID, out.Slurm.Summary())
		return out, nil
	}
	if out.Local, err = sw.RunLocal(ctx); err != nil {
		return nil, err
	}
	logf("sweep %s: %s", sw.ID, out.Local.Summary())
	if n := len(out.Local.Failed); n > 0 {
		for k, e := range out.Local.Failed {
			logf("  cell %s: %v", k, e)
		}
		return out, fmt.Errorf("sweep: %d of %d cells failed; run the same command again to resume them", n, len(out.Local.Submitted))
	}
	return out, nil
}

// spec is the request's grid with its name, experiment and executor
// settings, or the grid already in Dir with the executor settings.
func (r Request) spec() (*Spec, error) {
	var spec Spec
	switch {
	case r.SpecFile != "" && r.Grid != nil:
		return nil, fmt.Errorf("sweep: give the grid either in --spec or with --algos, --processors, --seeds, --set, --vary, not both")
	case r.SpecFile != "":
		s, err := ReadSpec(r.SpecFile)
		if err != nil {
			return nil, err
		}
		spec = s
	case r.Grid != nil:
		s, err := r.Grid.Spec()
		if err != nil {
			return nil, err
		}
		spec = s
	default:
		if r.Name != "" || r.Experiment != "" {
			return nil, fmt.Errorf("sweep: --name and --experiment are part of the grid; to resubmit, give only --dir (and executor flags)")
		}
		old, err := Load(r.Dir)
		if err != nil {
			return nil, err
		}
		spec = old.Spec
		r.Executor.apply(&spec)
		return &spec, nil
	}
	if r.Name != "" || spec.Name == "" {
		spec.Name = r.Name
		if spec.Name == "" {
			abs, _ := filepath.Abs(r.Dir)
			spec.Name = filepath.Base(abs)
		}
	}
	if r.Experiment != "" {
		spec.Experiment = r.Experiment
	}
	r.Executor.apply(&spec)
	return &spec, nil
}

// dryRun plans the sweep and writes its whole array's script into the
// outcome; nothing is written or created.
func dryRun(dir string, spec *Spec, o Options) (*Outcome, error) {
	sw, err := Plan(dir, spec, o)
	if err != nil {
		return nil, err
	}
	if sw.Spec.Executor != "slurm" {
		return nil, fmt.Errorf("sweep: --dry-run is for the slurm executor")
	}
	script, err := sw.Script(sw.Cells)
	if err != nil {
		return nil, err
	}
	return &Outcome{Sweep: sw, Script: script}, nil
}
