// Command narlab is the narlab workbench's command-line tool: CLRS data
// generation, experiment tracking, training and the notebook kernel.
package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/narlab/narlab/internal/hugepages"
	"github.com/narlab/narlab/lib/nn/engine"
	"os"
	"sync/atomic"

	"github.com/narlab/narlab/tracking"
	"github.com/narlab/narlab/tracking/mlflow"
)

// interrupted is cancelled by the first SIGINT or SIGTERM (see
// tracking.InterruptContext). Commands that stop their work on it and
// end their MLflow run themselves (train, demo, mlflow example, clrstext
// generate) call commandContext; for every other command the signal ends
// the process's live runs as KILLED at once and exits.
var (
	interrupted   context.Context
	ctxWatched    atomic.Bool
	stopInterrupt func()
)

// commandContext returns the context cancelled by SIGINT or SIGTERM and
// says that the command handles the interruption itself.
func commandContext() context.Context {
	ctxWatched.Store(true)
	if interrupted == nil { // not started by main (tests calling commands directly)
		return context.Background()
	}
	return interrupted
}

func main() {
	hugepages.Reexec()   // before anything else: XLA's buffers as huge pages
	engine.TuneProcess() // the collector's pace and malloc's modes for XLA
	interrupted, stopInterrupt = tracking.InterruptContext(context.Background())
	go func() {
		<-interrupted.Done()
		if context.Cause(interrupted) == context.Canceled || ctxWatched.Load() {
			return
		}
		err := tracking.EndLiveRuns(mlflow.StatusKilled, tracking.InterruptEndTimeout)
		fmt.Fprintln(os.Stderr, "narlab: interrupted:", context.Cause(interrupted))
		if err != nil {
			fmt.Fprintln(os.Stderr, "narlab:", err)
		}
		os.Exit(130)
	}()
	err := run(os.Args[1:])
	stopInterrupt()
	if err != nil {
		fmt.Fprintln(os.Stderr, "narlab:", err)
		if errors.Is(context.Cause(interrupted), tracking.ErrInterrupted) {
			os.Exit(130) // stopped by SIGINT or SIGTERM, after cleaning up
		}
		if errors.Is(err, mlflow.ErrLost) {
			os.Exit(tracking.ExitLost) // the message counts what was lost, per metric key
		}
		os.Exit(1)
	}
}
