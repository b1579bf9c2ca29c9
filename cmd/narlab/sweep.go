package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/narlab/narlab/lib/clrs"

	"github.com/narlab/narlab/experiments/clrs30"
	"github.com/narlab/narlab/internal/project"
	"github.com/narlab/narlab/sweep"
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
	var r sweep.Request
	var g sweep.Grid
	var algos, procs, seeds listFlag
	var sets, varies, sbatch repeatFlag
	fs.StringVar(&r.Dir, "dir", "", "the sweep's directory, on a file system the compute nodes share (required); again with the same DIR resubmits the unfinished cells")
	fs.StringVar(&r.SpecFile, "spec", "", "sweep file (JSON; see docs/sweep.md)")
	fs.Var(&algos, "algos", "algorithms, comma-separated, or all (the 30 of CLRS-30)")
	fs.Var(&procs, "processors", "processors, comma-separated")
	fs.Var(&seeds, "seeds", "seeds, comma-separated")
	fs.Var(&sets, "set", "`flag=value`: a narlab train flag every cell gets, e.g. steps=500 (repeatable)")
	fs.Var(&varies, "vary", "`flag=v1,v2`: another axis over a narlab train flag, e.g. hidden=64,128 (repeatable)")
	fs.StringVar(&r.Name, "name", "", "the sweep's name (default: the directory's name)")
	fs.StringVar(&r.Experiment, "experiment", "", "MLflow experiment (default: $MLFLOW_EXPERIMENT_NAME, else clrs-sweeps)")
	e := &r.Executor
	fs.StringVar(&e.Executor, "executor", "", "slurm or local (default slurm)")
	fs.StringVar(&r.Options.Tracking, "tracking", "", "MLflow server every cell logs to (default: the sweep's, else $MLFLOW_TRACKING_URI)")
	fs.StringVar(&e.Slurm.Partition, "partition", "", "slurm: partition")
	fs.StringVar(&e.Slurm.Time, "time", "", "slurm: time limit per cell, e.g. 02:00:00")
	fs.StringVar(&e.Slurm.Mem, "mem", "", "slurm: memory per cell, e.g. 16G")
	fs.IntVar(&e.Slurm.CPUs, "cpus", 0, "slurm: CPUs per cell (default 1)")
	fs.IntVar(&e.Slurm.GPUs, "gpus", 0, "slurm: GPUs per cell (--gres=gpu:N)")
	fs.IntVar(&e.Slurm.Throttle, "throttle", 0, "slurm: at most K cells at once (the array's %K; 0: no limit)")
	fs.Var(&sbatch, "sbatch", "slurm: extra #SBATCH option, e.g. --account=clrs (repeatable)")
	fs.IntVar(&e.Local.Parallel, "parallel", 0, "local: cells at once (default 1)")
	fs.BoolVar(&r.DryRun, "dry-run", false, "slurm: print the job script of the whole grid; write, create and submit nothing")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if r.Dir == "" {
		return missingFlag(fs, "--dir is required")
	}
	e.Given = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { e.Given[f.Name] = true })
	if e.Given["algos"] || e.Given["processors"] || e.Given["seeds"] || e.Given["set"] || e.Given["vary"] {
		if len(algos) == 1 && algos[0] == "all" {
			algos = clrs.CLRS30()
		}
		g = sweep.Grid{Algorithms: algos, Processors: procs, Seeds: seeds, Set: sets, Vary: varies}
		r.Grid = &g
	}
	e.Slurm.Sbatch = sbatch
	var err error
	if r.Options.Narlab, err = os.Executable(); err != nil {
		return err
	}
	if r.Options.Narlab, err = filepath.EvalSymlinks(r.Options.Narlab); err != nil {
		return err
	}
	r.Options.Root, _ = project.Root()
	r.Options.Check, r.Log = checkTrainArgs, os.Stderr
	out, err := sweep.Submit(commandContext(), r)
	switch {
	case err != nil:
		return err
	case r.DryRun:
		fmt.Fprint(stdout, out.Script)
	case out.Slurm != nil && len(out.Slurm.Submitted) == 0:
		fmt.Fprintln(stdout, "nothing to submit")
	case out.Slurm != nil:
		fmt.Fprintf(stdout, "submitted job array %s (%d cells): %s\n", out.Slurm.JobID, len(out.Slurm.Submitted), out.Slurm.Script)
	default:
		fmt.Fprintf(stdout, "ran %d cells; every cell of sweep %s is FINISHED\n", len(out.Local.Submitted), out.Sweep.ID)
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
		return missingFlag(fs, "--dir is required")
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
		return missingFlag(fs, "--dir is required")
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
	if *out != "" {
		if err := rep.WriteFiles(*out); err != nil {
			return err
		}
	}
	fmt.Fprint(stdout, rep.Text())
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
		return missingFlag(fs, "--dir and --index are required")
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
