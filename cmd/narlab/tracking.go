package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/narlab/narlab/tracking"
	"github.com/narlab/narlab/tracking/mlflow"
)

// trackingUsage is the help of --tracking on every command that logs a run.
const trackingUsage = "MLflow server address; none: do not log (default: MLFLOW_TRACKING_URI, else narlab's local server)"

// checkTracking reconciles the two spellings of "do not log",
// --tracking none and --no-mlflow (afterwards *noMLflow says whether the
// run is logged and *uri is empty or a server address; both flags at
// once, with a server, contradict each other), then checks the server's
// address (tracking.CheckTrackingURI). Commands call it right after
// parsing, before any work.
func checkTracking(cmd string, uri *string, noMLflow *bool) error {
	if *uri == "none" {
		*uri, *noMLflow = "", true
		return nil
	}
	if *noMLflow {
		if *uri != "" {
			return fmt.Errorf("%s: --no-mlflow and --tracking %s contradict each other; give one", cmd, *uri)
		}
		return nil
	}
	if err := tracking.CheckTrackingURI(*uri); err != nil {
		return fmt.Errorf("%s: %w (or run offline with --no-mlflow)", cmd, err)
	}
	return nil
}

// trackingFlags are the MLflow flags of the commands that log one run:
// --experiment, --tracking and --no-mlflow, with the same names and
// meanings everywhere (docs/cli.md).
type trackingFlags struct {
	experiment, tracking *string
	noMLflow             *bool
}

// addTrackingFlags registers the MLflow flags on fs with the command's
// default experiment; offline says what the command does without logging.
func addTrackingFlags(fs *flag.FlagSet, defaultExperiment, offline string) trackingFlags {
	return trackingFlags{
		experiment: fs.String("experiment", tracking.DefaultExperiment(defaultExperiment), "MLflow experiment of the run (default: $MLFLOW_EXPERIMENT_NAME, else "+defaultExperiment+")"),
		tracking:   fs.String("tracking", "", trackingUsage),
		noMLflow:   fs.Bool("no-mlflow", false, offline+" (same as --tracking none)"),
	}
}

// check is checkTracking of the command's flags.
func (t trackingFlags) check(cmd string) error { return checkTracking(cmd, t.tracking, t.noMLflow) }

// off reports whether the run is not to be logged (after check, which
// turns --tracking none into --no-mlflow).
func (t trackingFlags) off() bool { return *t.noMLflow }

// fileInput is a file a command read, logged as a dataset input of its
// run (tracking.FileDataset): its dataset name, path and context.
type fileInput struct{ name, path, context string }

// logOneRun starts the command's MLflow run (name, note and tags in opts),
// logs the files it read as the run's dataset inputs, logs the rest with
// log, ends the run and prints its address on standard error. Its errors
// say what to do: score offline when the server cannot be reached,
// `narlab mlflow sync` when it did not take the whole run.
func logOneRun(cmd string, t trackingFlags, params map[string]string, opts []tracking.Option, inputs []fileInput,
	log func(ctx context.Context, run *tracking.Run) error) error {
	var datasets []mlflow.DatasetInput
	for _, in := range inputs {
		if in.path == "" || in.path == "-" {
			continue // standard input: nothing to digest again
		}
		ds, err := tracking.FileDataset(in.name, in.path, in.context)
		if err != nil {
			return fmt.Errorf("%s: %w", cmd, err)
		}
		datasets = append(datasets, ds)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if *t.tracking != "" {
		opts = append(opts, tracking.TrackingURI(*t.tracking))
	}
	run, err := tracking.Start(ctx, *t.experiment, params, opts...)
	if err != nil {
		return fmt.Errorf("%s: %w (run offline with --no-mlflow)", cmd, err)
	}
	var logErr error
	if len(datasets) > 0 {
		logErr = run.LogInputs(datasets...)
	}
	if logErr == nil {
		logErr = log(ctx, run)
	}
	if err := run.EndWith(ctx, logErr); err != nil {
		return fmt.Errorf("%s: the MLflow server did not take the whole run (%w); what is missing waits in the spool: run `narlab mlflow sync`", cmd, err)
	}
	if logErr != nil {
		return fmt.Errorf("%s: %w", cmd, logErr)
	}
	fmt.Fprintf(os.Stderr, "MLflow run %s: %s\n", run.ID(), run.URL())
	return nil
}
