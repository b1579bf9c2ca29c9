package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/narlab/narlab/tracking"
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

// printRunLink ends a command that logged one run (tracking.LogOnce): it
// prints the run's address on standard error when the whole run was
// logged, and returns err (the logging's) prefixed with the command.
func printRunLink(cmd string, run *tracking.Run, err error) error {
	if err != nil {
		return fmt.Errorf("%s: %w", cmd, err)
	}
	if run != nil {
		fmt.Fprintf(os.Stderr, "MLflow run %s: %s\n", run.ID(), run.URL())
	}
	return nil
}
