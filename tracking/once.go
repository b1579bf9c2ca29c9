package tracking

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/narlab/narlab/tracking/mlflow"
)

// FileInput is a file a run read, logged as one of its dataset inputs
// ([FileDataset]): the dataset's name, the file's path and the input's
// context ("eval", "predictions", …). A path "" or "-" (standard input)
// is left out.
type FileInput struct{ Name, Path, Context string }

// Destination says where a run is logged: Experiment (required),
// TrackingURI ("" : MLFLOW_TRACKING_URI, else narlab's local server) and
// Off (log nothing).
type Destination struct {
	Experiment  string
	TrackingURI string
	Off         bool
}

// OnceTimeout bounds how long [LogOnce] waits for the server in all.
const OnceTimeout = 3 * time.Minute

// LogOnce logs a finished piece of work (a scoring, an evaluation) as one
// run, the way every scoring protocol does: it starts the run with params
// and opts (name, note, tags), logs the files it read as dataset inputs,
// calls log for the rest, and ends the run (FINISHED, or FAILED with log's
// error). It returns the ended run, or nil with to.Off. Its errors say what
// to do: work offline when the server cannot be reached, `narlab mlflow
// sync` when it did not take the whole run (what is missing waits in the
// spool). Waits are bounded by [OnceTimeout].
func LogOnce(ctx context.Context, to Destination, params map[string]string, opts []Option, inputs []FileInput,
	log func(ctx context.Context, run *Run) error) (*Run, error) {
	if to.Off {
		return nil, nil
	}
	var datasets []mlflow.DatasetInput
	for _, in := range inputs {
		if in.Path == "" || in.Path == "-" {
			continue // standard input: nothing to digest again
		}
		ds, err := FileDataset(in.Name, in.Path, in.Context)
		if err != nil {
			return nil, err
		}
		datasets = append(datasets, ds)
	}
	ctx, cancel := context.WithTimeout(ctx, OnceTimeout)
	defer cancel()
	if to.TrackingURI != "" {
		opts = append(opts, TrackingURI(to.TrackingURI))
	}
	run, err := Start(ctx, to.Experiment, params, opts...)
	if err != nil {
		return nil, fmt.Errorf("%w (run offline with --no-mlflow)", err)
	}
	var logErr error
	if len(datasets) > 0 {
		logErr = run.LogInputs(datasets...)
	}
	if logErr == nil && log != nil {
		logErr = log(ctx, run)
	}
	if err := run.EndWith(ctx, logErr); err != nil {
		// err says where what the server did not take waits (the spool:
		// `narlab mlflow sync`), or what was lost.
		return run, errors.Join(logErr, fmt.Errorf("the MLflow server did not take the whole run: %w", err))
	}
	return run, logErr
}
