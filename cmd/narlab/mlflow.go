package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/narlab/narlab/plots"
	"github.com/narlab/narlab/tracking"
	"github.com/narlab/narlab/tracking/mlflow"
)

func init() {
	register(command{group: "mlflow", name: "ui", summary: "start (or reuse) the local MLflow server, print the UI address and links to each experiment's runs", run: mlflowUI})
	register(command{group: "mlflow", name: "stop", summary: "stop the local MLflow server", run: mlflowStop})
	register(command{group: "mlflow", name: "sync", summary: "send runs logged while the server was unreachable", run: mlflowSync})
	register(command{group: "mlflow", name: "runs", summary: "list the runs of an experiment (with a filter), or the experiments", run: mlflowRuns})
	register(command{group: "mlflow", name: "example", summary: "log a synthetic example run (metric series, a plot, a table) and print its UI link", run: mlflowExample})
}

func mlflowUI(args []string) error {
	fs := newFlags("mlflow ui")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	srv, reused, err := mlflow.EnsureServer(ctx, mlflow.ServerConfig{})
	if err != nil {
		return err
	}
	verb := "started"
	if reused {
		verb = "already running"
	}
	fmt.Fprintf(os.Stderr, "MLflow server %s (pid %d, stores in %s)\n", verb, srv.PID, srv.Dir)
	fmt.Fprintln(stdout, srv.URL) // the address alone: scripts read it
	// Links into the runs tables: MLflow 3's UI otherwise opens on its
	// GenAI pages (traces), where narlab's runs do not show.
	c, err := mlflow.NewClient(srv.URL)
	if err != nil {
		return err
	}
	exps, err := c.SearchExperiments(ctx, mlflow.SearchOptions{OrderBy: []string{"last_update_time DESC"}, MaxResults: uiExperiments})
	if err != nil {
		fmt.Fprintf(os.Stderr, "the experiments could not be listed (%v); the runs of experiment ID are at %s\n", err, c.RunsURL("ID"))
		return nil
	}
	printExperiments(os.Stderr, c, exps, uiExperiments)
	return nil
}

// uiExperiments is how many experiments `mlflow ui` links to.
const uiExperiments = 10

// printExperiments writes each experiment's name and the link to its runs
// table, the most recently updated first; max says how many were asked
// for (0: all).
func printExperiments(w io.Writer, c *mlflow.Client, exps []mlflow.Experiment, max int) {
	if len(exps) == 0 {
		fmt.Fprintf(w, "no experiments yet: a run logged with --experiment NAME appears under %s\n", c.RunsURL("ID"))
		return
	}
	fmt.Fprintln(w, "the runs of each experiment (the UI's \"Model training\" view), the most recently updated first:")
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	for _, e := range exps {
		fmt.Fprintf(tw, "  %s\t%s\n", e.Name, c.RunsURL(e.ID))
	}
	tw.Flush()
	if max > 0 && len(exps) >= max {
		fmt.Fprintln(w, "  … (`narlab mlflow runs` lists them all)")
	}
}

func mlflowStop(args []string) error {
	fs := newFlags("mlflow stop")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	dir, err := mlflow.DefaultServerDir()
	if err != nil {
		return err
	}
	stopped, err := mlflow.StopServer(context.Background(), dir)
	if err != nil {
		return err
	}
	if stopped {
		fmt.Fprintln(stdout, "stopped the local MLflow server")
	} else {
		fmt.Fprintln(stdout, "no local MLflow server was running")
	}
	return nil
}

func mlflowSync(args []string) error {
	fs := newFlags("mlflow sync")
	dir := fs.String("dir", "", "replay the run spools under DIR (default: every spool under the data directory's mlflow/spool)")
	timeout := fs.Duration("timeout", 10*time.Minute, "give up after this long (pending data stays in the spool)")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	var results []mlflow.SyncResult
	var err error
	if *dir != "" {
		results, err = tracking.SyncSpools(ctx, *dir)
	} else {
		results, err = tracking.SyncPending(ctx)
	}
	if err != nil && len(results) == 0 {
		return err
	}
	sent, pending := 0, int64(0)
	for _, r := range results {
		run := r.RunID
		if run == "" {
			run = "(not created on the server yet)"
		}
		var state string
		switch {
		case r.Busy:
			state = fmt.Sprintf("skipped: another process holds this spool (a run still logging, or another sync); %d requests wait", r.Pending)
		case r.Pending > 0:
			state = fmt.Sprintf("sent %d requests; %d still wait (run `narlab mlflow sync` again when the server answers)", r.Sent, r.Pending)
		case r.Sent == 0 && len(r.Rejected) == 0:
			state = "nothing to send"
		case r.Ended:
			state = fmt.Sprintf("sent %d requests; the run is complete on the server", r.Sent)
		default:
			state = fmt.Sprintf("sent %d requests; the run has not ended (its process may still be running)", r.Sent)
		}
		fmt.Fprintf(stdout, "%s  run %s (%s): %s\n", r.Dir, run, r.Experiment, state)
		for _, rej := range r.Rejected {
			fmt.Fprintf(stdout, "    rejected by the server: %v\n", rej)
		}
		sent += r.Sent
		pending += r.Pending
	}
	fmt.Fprintf(stdout, "%d spools, %d requests sent, %d pending\n", len(results), sent, pending)
	return err
}

func mlflowRuns(args []string) error {
	fs := newFlags("mlflow runs")
	exp := fs.String("experiment", tracking.DefaultExperiment(""), "experiment name (default: $MLFLOW_EXPERIMENT_NAME; none: list the experiments)")
	filter := fs.String("filter", "", `MLflow search filter, e.g. "params.algo = 'bfs'"`)
	max := fs.Int("max", 50, "at most this many runs, or experiments without --experiment (0: all)")
	timeout := fs.Duration("timeout", 30*time.Second, "give up when the tracking server has not answered within this long")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *exp == "" && *filter != "" {
		return missingFlag(fs, "--filter selects runs of an experiment; give --experiment too")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c, err := tracking.Client(ctx, "")
	if err != nil {
		return err
	}
	qctx, qcancel := context.WithTimeout(ctx, *timeout)
	defer qcancel()
	noAnswer := func(err error) error {
		if qctx.Err() != nil {
			return fmt.Errorf("mlflow runs: %s did not answer within %v (--timeout): %w", c.URI(), *timeout, err)
		}
		return err
	}
	if *exp == "" { // which experiments there are, to pick one
		exps, err := c.SearchExperiments(qctx, mlflow.SearchOptions{OrderBy: []string{"last_update_time DESC"}, MaxResults: *max})
		if err != nil {
			return noAnswer(err)
		}
		tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "EXPERIMENT\tID\tUPDATED\tRUNS")
		for _, e := range exps {
			updated := time.UnixMilli(int64(e.LastUpdateTime)).Format("2006-01-02 15:04")
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.Name, e.ID, updated, c.RunsURL(e.ID))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(os.Stderr, "narlab mlflow runs --experiment NAME lists the runs of one")
		return nil
	}
	e, err := c.GetExperimentByName(qctx, *exp)
	if err != nil {
		return noAnswer(err)
	}
	runs, err := c.SearchRuns(qctx, []string{e.ID}, mlflow.SearchOptions{Filter: *filter, MaxResults: *max,
		OrderBy: []string{"attributes.start_time DESC"}})
	if err != nil {
		return noAnswer(err)
	}
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN ID\tNAME\tSTATUS\tSTARTED\tMETRICS")
	for _, r := range runs {
		var ms []string
		for _, m := range r.Data.Metrics {
			if strings.HasPrefix(m.Key, "system/") {
				continue // CPU and memory samples: the run page's System metrics tab
			}
			ms = append(ms, fmt.Sprintf("%s=%.4g", m.Key, m.Value))
		}
		sort.Strings(ms) // the server answers in no fixed order
		start := time.UnixMilli(int64(r.Info.StartTime)).Format("2006-01-02 15:04")
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Info.RunID, r.Info.RunName, r.Info.Status, start, strings.Join(ms, " "))
	}
	return tw.Flush()
}

// mlflowExample logs a small synthetic run: what a training run logs
// (params, train/… and val/… series, a validation-curve PNG, a results
// table), without training anything. scripts/ui-screenshot.sh uses it.
func mlflowExample(args []string) error {
	fs := newFlags("mlflow example")
	exp := fs.String("experiment", tracking.DefaultExperiment("narlab-example"), "experiment name (default: $MLFLOW_EXPERIMENT_NAME, else narlab-example)")
	steps := fs.Int("steps", 500, "training steps to log (each logs train/loss and train/acc; every 50th val/score)")
	seed := fs.Int64("seed", 1, "seed of the synthetic noise")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *steps < 2 || *steps > 1_000_000 {
		return fmt.Errorf("--steps %d: expected between 2 and 1000000", *steps)
	}
	// The waits for the server are bounded by NARLAB_MLFLOW_TIMEOUT (at
	// most 15 s to create the run, 60 s by default to end it).
	ctx := commandContext()
	params := map[string]string{"algorithm": "insertion_sort", "processor": "mpnn", "hidden": "128",
		"steps": fmt.Sprint(*steps), "seed": fmt.Sprint(*seed), "synthetic": "true"}
	run, err := tracking.Start(ctx, *exp, params, tracking.RunName(fmt.Sprintf("example-mpnn-seed%d", *seed)),
		tracking.Note("A **synthetic** example run logged by `narlab mlflow example`: no model was trained."),
		tracking.Tags(map[string]string{"clrs.algorithm": "insertion_sort"}))
	if err != nil {
		return err
	}
	if err := logExample(ctx, run, *steps, uint64(*seed)); err != nil {
		if endErr := run.EndWith(ctx, err); endErr != nil {
			return fmt.Errorf("%w; %v", err, endErr)
		}
		return err
	}
	if err := run.EndWith(ctx, nil); err != nil {
		return err
	}
	fmt.Fprintln(stdout, run.URL())
	return nil
}

// logExample logs the example run's series, plot and table.
func logExample(ctx context.Context, run *tracking.Run, steps int, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 0x6e61726c6162))
	var curve plots.Curve
	for s := 0; s < steps; s++ {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		x := float64(s) / float64(steps)
		loss := 2.5*math.Exp(-5*x) + 0.05 + 0.04*rng.NormFloat64()*math.Exp(-2*x)
		acc := 1 - 0.9*math.Exp(-6*x) + 0.02*rng.NormFloat64()
		if err := run.LogMetric("train/loss", int64(s), loss); err != nil {
			return err
		}
		if err := run.LogMetric("train/acc", int64(s), math.Min(acc, 1)); err != nil {
			return err
		}
		if s%50 == 0 || s == steps-1 {
			score := math.Max(0, math.Min(1, 0.95-0.85*math.Exp(-4*x)+0.03*rng.NormFloat64()))
			if err := run.LogMetric("val/score", int64(s), score); err != nil {
				return err
			}
			curve.Steps = append(curve.Steps, float64(s))
			curve.Values = append(curve.Values, score)
		}
	}
	fig, err := plots.ValidationCurves([]plots.Panel{{Title: "insertion_sort (synthetic)",
		Series: []plots.Series{{Label: "MPNN", Runs: []plots.Curve{curve}}}}}, plots.DefaultCurveOptions())
	if err != nil {
		return err
	}
	png, err := fig.PNG()
	if err != nil {
		return err
	}
	if err := run.LogArtifact("plots/val_curve.png", png); err != nil {
		return err
	}
	last := curve.Values[len(curve.Values)-1]
	if err := run.LogTable("tables/scores.json", []string{"algorithm", "processor", "val_score"},
		[][]any{{"insertion_sort", "mpnn", last}}); err != nil {
		return err
	}
	return nil
}
