package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/narlab/narlab/lib/clrs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/narlab/narlab/experiments/clrs30"
	"github.com/narlab/narlab/internal/fsutil"
	"github.com/narlab/narlab/internal/project"
	"github.com/narlab/narlab/sweep"
	"github.com/narlab/narlab/tracking"
)

// The sweep commands: grids of trainings on SLURM or on this machine
// (package sweep; docs/sweep.md).

func init() {
	register(command{group: "sweep", name: "run", summary: "run a grid of trainings as a SLURM job array or as local processes (again: resume it)", run: sweepRun})
	register(command{group: "sweep", name: "status", summary: "each cell's state in MLflow and in the SLURM queue", run: sweepStatus})
	register(command{group: "sweep", name: "report", summary: "results table (mean ± std, win/tie/loss) and validation curves, logged to the parent run", run: sweepReport})
	register(command{group: "sweep", name: "cell", summary: "run one cell of a sweep (what each array task runs)", run: sweepCell})
}

// listFlag is a comma-separated list flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error {
	for _, v := range strings.Split(s, ",") {
		*l = append(*l, strings.TrimSpace(v)) // empty items are refused by checkListFlag
	}
	return nil
}

// repeatFlag collects a repeatable flag.
type repeatFlag []string

func (r *repeatFlag) String() string     { return strings.Join(*r, " ") }
func (r *repeatFlag) Set(s string) error { *r = append(*r, s); return nil }

func sweepRun(args []string) error {
	fs := newFlags("sweep run")
	dir := fs.String("dir", "", "the sweep's directory, on a file system the compute nodes share (required); again with the same DIR resubmits the unfinished cells")
	specPath := fs.String("spec", "", "sweep file (JSON; see docs/sweep.md)")
	var algos, procs, seeds listFlag
	var sets, varies, sbatch repeatFlag
	fs.Var(&algos, "algos", "algorithms, comma-separated, or all (the 30 of CLRS-30)")
	fs.Var(&procs, "processors", "processors, comma-separated")
	fs.Var(&seeds, "seeds", "seeds, comma-separated")
	fs.Var(&sets, "set", "`flag=value`: a narlab train flag every cell gets, e.g. steps=500 (repeatable)")
	fs.Var(&varies, "vary", "`flag=v1,v2`: another axis over a narlab train flag, e.g. hidden=64,128 (repeatable)")
	name := fs.String("name", "", "the sweep's name (default: the directory's name)")
	experiment := fs.String("experiment", "", "MLflow experiment (default: $MLFLOW_EXPERIMENT_NAME, else clrs-sweeps)")
	executor := fs.String("executor", "", "slurm or local (default slurm)")
	trackingURI := fs.String("tracking", "", "MLflow server every cell logs to (default: the sweep's, else $MLFLOW_TRACKING_URI)")
	partition := fs.String("partition", "", "slurm: partition")
	timeLimit := fs.String("time", "", "slurm: time limit per cell, e.g. 02:00:00")
	mem := fs.String("mem", "", "slurm: memory per cell, e.g. 16G")
	cpus := fs.Int("cpus", 0, "slurm: CPUs per cell (default 1)")
	gpus := fs.Int("gpus", 0, "slurm: GPUs per cell (--gres=gpu:N)")
	throttle := fs.Int("throttle", 0, "slurm: at most K cells at once (the array's %K; 0: no limit)")
	fs.Var(&sbatch, "sbatch", "slurm: extra #SBATCH option, e.g. --account=clrs (repeatable)")
	parallel := fs.Int("parallel", 0, "local: cells at once (default 1)")
	dryRun := fs.Bool("dry-run", false, "slurm: print the job script of the whole grid; write, create and submit nothing")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *dir == "" {
		fs.Usage()
		return fmt.Errorf("sweep run: --dir is required")
	}
	if st, err := os.Stat(*dir); err == nil && !st.IsDir() {
		return fmt.Errorf("sweep run: --dir %s: is a file; expected the sweep's directory", *dir)
	}
	if *trackingURI != "" {
		if err := tracking.CheckTrackingURI(*trackingURI); err != nil {
			return fmt.Errorf("sweep run: %w", err)
		}
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	gridFlags := set["algos"] || set["processors"] || set["seeds"] || set["set"] || set["vary"]

	var spec *sweep.Spec
	switch {
	case *specPath != "" && gridFlags:
		return fmt.Errorf("sweep run: give the grid either in --spec or with --algos, --processors, --seeds, --set, --vary, not both")
	case *specPath != "":
		s, err := sweep.ReadSpec(*specPath)
		if err != nil {
			return err
		}
		spec = &s
	case gridFlags:
		if len(algos) == 1 && algos[0] == "all" {
			algos = clrs.CLRS30()
		}
		s := sweep.Spec{Algorithms: algos, Processors: procs, Executor: "slurm"}
		for _, v := range seeds {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return fmt.Errorf("sweep run: --seeds: %q is not an integer", v)
			}
			s.Seeds = append(s.Seeds, n)
		}
		for _, kv := range sets {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return fmt.Errorf("sweep run: --set %q: want flag=value", kv)
			}
			if s.Flags == nil {
				s.Flags = map[string]string{}
			}
			if _, dup := s.Flags[strings.TrimLeft(k, "-")]; dup {
				return fmt.Errorf("sweep run: --set %s given twice", k)
			}
			s.Flags[strings.TrimLeft(k, "-")] = v
		}
		for _, kv := range varies {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return fmt.Errorf("sweep run: --vary %q: want flag=v1,v2", kv)
			}
			if s.Vary == nil {
				s.Vary = map[string][]string{}
			}
			if err := checkListItems(v); err != nil {
				return fmt.Errorf("sweep run: --vary %q: %w; want flag=v1,v2 with distinct values", kv, err)
			}
			var l listFlag
			l.Set(v)
			s.Vary[strings.TrimLeft(k, "-")] = l
		}
		spec = &s
	}
	if spec != nil {
		if set["name"] || spec.Name == "" {
			spec.Name = *name
			if spec.Name == "" {
				abs, _ := filepath.Abs(*dir)
				spec.Name = filepath.Base(abs)
			}
		}
		if set["experiment"] {
			spec.Experiment = *experiment
		}
	} else if set["name"] || set["experiment"] {
		return fmt.Errorf("sweep run: --name and --experiment are part of the grid; to resubmit, give only --dir (and executor flags)")
	}

	narlab, err := os.Executable()
	if err != nil {
		return err
	}
	if narlab, err = filepath.EvalSymlinks(narlab); err != nil {
		return err
	}
	root, _ := project.Root()
	ctx := commandContext()
	// Executor settings may change between submissions.
	override := func(s *sweep.Spec) {
		if set["executor"] {
			s.Executor = *executor
		}
		if set["partition"] {
			s.Slurm.Partition = *partition
		}
		if set["time"] {
			s.Slurm.Time = *timeLimit
		}
		if set["mem"] {
			s.Slurm.Mem = *mem
		}
		if set["cpus"] {
			s.Slurm.CPUs = *cpus
		}
		if set["gpus"] {
			s.Slurm.GPUs = *gpus
		}
		if set["throttle"] {
			s.Slurm.Throttle = *throttle
		}
		if set["sbatch"] {
			s.Slurm.Sbatch = sbatch
		}
		if set["parallel"] {
			s.Local.Parallel = *parallel
		}
	}
	if spec != nil {
		override(spec)
	} else {
		old, err := sweep.Load(*dir)
		if err != nil {
			return err
		}
		s := old.Spec
		override(&s)
		spec = &s
	}
	opts := sweep.Options{Tracking: *trackingURI, Narlab: narlab, Root: root, Check: checkTrainArgs}
	if *dryRun {
		// Print the whole array's script; nothing is written or created.
		sw, err := sweep.Plan(*dir, spec, opts)
		if err != nil {
			return err
		}
		if sw.Spec.Executor != "slurm" {
			return fmt.Errorf("sweep run: --dry-run is for the slurm executor")
		}
		script, err := sw.Script(sw.Cells)
		if err != nil {
			return err
		}
		fmt.Fprint(stdout, script)
		return nil
	}
	sw, err := sweep.Prepare(ctx, *dir, spec, opts)
	if err != nil {
		return err
	}
	if sw.MovedFrom != "" {
		fmt.Fprintf(os.Stderr, "sweep %s: its tracking server %s does not answer; %s (%s) holds its parent run, so the cells log there\n", sw.ID, sw.MovedFrom, sw.Tracking, sw.MovedVia)
	}
	fmt.Fprintf(os.Stderr, "sweep %s: %d cells; parent run %s on %s\n", sw.ID, len(sw.Cells), sw.ParentRunID, sw.Tracking)
	switch sw.Spec.Executor {
	case "slurm":
		sub, err := sw.SubmitSlurm(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "sweep %s: %s\n", sw.ID, sub.Summary())
		if len(sub.Submitted) == 0 {
			fmt.Fprintln(stdout, "nothing to submit")
			return nil
		}
		fmt.Fprintf(stdout, "submitted job array %s (%d cells): %s\n", sub.JobID, len(sub.Submitted), sub.Script)
	case "local":
		res, err := sw.RunLocal(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "sweep %s: %s\n", sw.ID, res.Summary())
		if len(res.Failed) > 0 {
			for k, e := range res.Failed {
				fmt.Fprintf(os.Stderr, "  cell %s: %v\n", k, e)
			}
			return fmt.Errorf("sweep run: %d of %d cells failed; run the same command again to resume them", len(res.Failed), len(res.Submitted))
		}
		fmt.Fprintf(stdout, "ran %d cells; every cell of sweep %s is FINISHED\n", len(res.Submitted), sw.ID)
	}
	return nil
}

// checkTrainArgs parses a cell's flags with narlab train's own parser and
// checks the configuration with clrs30.Config.ValidateElsewhere (cells may
// run on other machines, with their own plugins), so a bad flag or value
// fails before anything is submitted.
func checkTrainArgs(args []string) error {
	var c clrs30.Config
	fs, finish := trainFlags(&c)
	var msg strings.Builder
	fs.SetOutput(&msg)
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if err := checkFlags(fs); err != nil {
		return fmt.Errorf("%s: %w", fs.Name(), err)
	}
	if err := finish(); err != nil {
		return err
	}
	return c.ValidateElsewhere()
}

func sweepStatus(args []string) error {
	fs := newFlags("sweep status")
	dir := fs.String("dir", "", "the sweep's directory (required)")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *dir == "" {
		fs.Usage()
		return fmt.Errorf("sweep status: --dir is required")
	}
	sw, err := sweep.Load(*dir)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cells, qerr, err := sw.Status(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "sweep %s (%s executor), parent run %s on %s\n", sw.ID, sw.Spec.Executor, sw.ParentRunID, sw.Tracking)
	fmt.Fprint(stdout, sweep.StatusText(cells))
	if qerr != nil {
		fmt.Fprintf(os.Stderr, "narlab: the SLURM queue was not read (%v); the SLURM column is empty\n", qerr)
	}
	return nil
}

func sweepReport(args []string) error {
	fs := newFlags("sweep report")
	dir := fs.String("dir", "", "the sweep's directory (required)")
	noLog := fs.Bool("no-log", false, "print only; do not log to the parent run")
	out := fs.String("out", "", "also write results.md and validation_curves.png into this directory")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *dir == "" {
		fs.Usage()
		return fmt.Errorf("sweep report: --dir is required")
	}
	sw, err := sweep.Load(*dir)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rep, err := sw.Report(ctx)
	if err != nil {
		return err
	}
	text := rep.Text()
	if *out != "" {
		if err := fsutil.WriteFile(filepath.Join(*out, "results.md"), []byte(text), fsutil.DataMode); err != nil {
			return err
		}
		if rep.Curves != nil {
			png, err := rep.Curves.PNG()
			if err != nil {
				return err
			}
			if err := fsutil.WriteFile(filepath.Join(*out, "validation_curves.png"), png, fsutil.DataMode); err != nil {
				return err
			}
		}
	}
	fmt.Fprint(stdout, text)
	if !*noLog {
		if err := rep.Log(ctx); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "logged to the parent run %s\n", sw.ParentRunID)
	}
	return nil
}

func sweepCell(args []string) error {
	fs := newFlags("sweep cell")
	dir := fs.String("dir", "", "the sweep's directory (required)")
	index := fs.Int("index", -1, "the cell's index (the array task id; required)")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *dir == "" || *index < 0 {
		fs.Usage()
		return fmt.Errorf("sweep cell: --dir and --index are required")
	}
	ctx := commandContext()
	res, err := sweep.RunCell(ctx, *dir, *index, os.Stdout, os.Stderr)
	if errors.Is(err, sweep.ErrCellBusy) {
		return fmt.Errorf("sweep cell %d: %w; this task did nothing", *index, err)
	}
	if err != nil {
		return err
	}
	if len(res.Superseded) > 0 {
		fmt.Fprintf(os.Stderr, "narlab sweep: deleted %d superseded attempts: %s\n", len(res.Superseded), strings.Join(res.Superseded, ", "))
	}
	fmt.Fprintf(os.Stderr, "narlab sweep: cell %d FINISHED: run %s\n", *index, res.RunID)
	return nil
}
