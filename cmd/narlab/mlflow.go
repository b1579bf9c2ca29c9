package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/narlab/narlab/experiments"
	"github.com/narlab/narlab/experiments/mlflow"
)

func init() {
	register(command{group: "mlflow", name: "ui", summary: "start (or reuse) the local MLflow server and print the UI address", run: mlflowUI})
	register(command{group: "mlflow", name: "stop", summary: "stop the local MLflow server", run: mlflowStop})
	register(command{group: "mlflow", name: "sync", summary: "send runs logged while the server was unreachable", run: mlflowSync})
	register(command{group: "mlflow", name: "runs", summary: "list the runs of an experiment (with a filter)", run: mlflowRuns})
}

func mlflowUI(args []string) error {
	fs := newFlags("mlflow ui", "")
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
	fmt.Fprintln(stdout, srv.URL)
	return nil
}

func mlflowStop(args []string) error {
	fs := newFlags("mlflow stop", "")
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
	fs := newFlags("mlflow sync", "")
	timeout := fs.Duration("timeout", 10*time.Minute, "give up after this long (pending data stays in the spool)")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	results, err := experiments.SyncPending(ctx)
	sent, pending := 0, int64(0)
	for _, r := range results {
		state := "delivered"
		switch {
		case r.Busy:
			state = "busy (its process is still logging)"
		case r.Pending > 0:
			state = fmt.Sprintf("%d requests still pending", r.Pending)
		}
		fmt.Fprintf(stdout, "%s  run %s (%s): sent %d, %s\n", r.Dir, r.RunID, r.Experiment, r.Sent, state)
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
	fs := newFlags("mlflow runs", "--experiment NAME [--filter EXPR]")
	exp := fs.String("experiment", "", "experiment name")
	filter := fs.String("filter", "", `MLflow search filter, e.g. "params.algo = 'bfs'"`)
	max := fs.Int("max", 50, "at most this many runs (0: all)")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *exp == "" {
		fs.Usage()
		return fmt.Errorf("--experiment is required")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c, err := experiments.Client(ctx, "")
	if err != nil {
		return err
	}
	e, err := c.GetExperimentByName(ctx, *exp)
	if err != nil {
		return err
	}
	runs, err := c.SearchRuns(ctx, []string{e.ID}, mlflow.SearchOptions{Filter: *filter, MaxResults: *max,
		OrderBy: []string{"attributes.start_time DESC"}})
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN ID\tNAME\tSTATUS\tSTARTED\tMETRICS")
	for _, r := range runs {
		var ms []string
		for _, m := range r.Data.Metrics {
			ms = append(ms, fmt.Sprintf("%s=%.4g", m.Key, m.Value))
		}
		start := time.UnixMilli(int64(r.Info.StartTime)).Format("2006-01-02 15:04")
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Info.RunID, r.Info.RunName, r.Info.Status, start, strings.Join(ms, " "))
	}
	return tw.Flush()
}
