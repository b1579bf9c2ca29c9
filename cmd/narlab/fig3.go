package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/narlab/narlab/experiments/clrs30"
	"github.com/narlab/narlab/lib/clrs/paper"
	"github.com/narlab/narlab/tracking"
)

func init() {
	register(command{group: "clrs", name: "fig3", summary: "train the CLRS paper's Figure 3 grid (algorithms × processors) as one MLflow parent run; rerun to resume", run: clrsFig3})
}

func clrsFig3(args []string) error {
	fs := newFlags("clrs fig3")
	g := clrs30.Figure3Grid{Log: os.Stderr}
	c := &g.Config
	procs := fs.String("processors", strings.Join(clrs30.Figure3Processors, ","), "comma-separated processors")
	algos := fs.String("algos", strings.Join(paper.Figure3, ","), "comma-separated algorithms (default: the eight of the paper's Figure 3)")
	d := clrs30.DefaultConfig()
	fs.IntVar(&c.Steps, "steps", d.Steps, "training steps")
	fs.IntVar(&c.Batch, "batch", d.Batch, "batch size")
	fs.IntVar(&c.Hidden, "hidden", d.Hidden, "hidden size")
	fs.Int64Var(&c.Seed, "seed", d.Seed, "seed of every cell")
	fs.IntVar(&c.EvalEvery, "eval-every", d.EvalEvery, "validate every N steps")
	fs.StringVar(&c.TrainData, "train-data", "split", "training data: split (the CLRS-30 train split, as the paper's Figure 3) or lengths (run.py's fresh samples)")
	fs.IntVar(&c.TrainLength, "train-length", 0, "reduced: train on 1000 fixed samples of this length (0: --train-data)")
	fs.IntVar(&c.ValSamples, "val-samples", 0, "first N validation samples (0: all)")
	fs.IntVar(&c.TestSamples, "test-samples", 0, "first N test samples (0: all)")
	fs.StringVar(&c.Backend, "backend", "", backendUsage)
	fs.StringVar(&c.Experiment, "experiment", tracking.DefaultExperiment("clrs-figure3"), "MLflow experiment (default: $MLFLOW_EXPERIMENT_NAME, else clrs-figure3)")
	fs.StringVar(&c.TrackingURI, "tracking", "", "MLflow server (default: $MLFLOW_TRACKING_URI, else narlab's local server)")
	fs.StringVar(&g.DirRoot, "dir", "", "root of the cells' run directories, DIR/ALGO-PROCESSOR (default: data/train, one directory per settings)")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if c.TrackingURI != "" {
		if err := tracking.CheckTrackingURI(c.TrackingURI); err != nil {
			return fmt.Errorf("clrs fig3: --tracking: %w", err)
		}
	}
	g.Algos, g.Processors = splitCSV(*algos), splitCSV(*procs)
	c.Progress = os.Stderr
	res, err := clrs30.RunFigure3(commandContext(), g)
	if res != nil && res.Table != "" {
		fmt.Fprint(stdout, res.Table)
		fmt.Fprintf(stdout, "\nparent run: %s\n", res.ParentURL)
	}
	if err != nil {
		return fmt.Errorf("clrs fig3: %w", err)
	}
	return nil
}
