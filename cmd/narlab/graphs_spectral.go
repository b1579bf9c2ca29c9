package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/narlab/narlab/experiments/spectral"
	"github.com/narlab/narlab/lib/graphtext"
	"github.com/narlab/narlab/lib/spectralgnn"
)

func init() {
	register(command{group: "graphs", name: "spectral", summary: "print the twelve spectral task values of a graph as JSON", run: graphsSpectral})
	register(command{group: "graphs", name: "spectral-eval", summary: "evaluate spectral-task predictors (mean, GNN, answers file) and log to MLflow", run: graphsSpectralEval})
}

// spectralOptionFlags adds the ambiguous-choice flags of the spectral tasks.
func spectralOptionFlags(fs *flag.FlagSet) func() graphtext.SpectralOptions {
	alg := fs.String("algebraic-matrix", "laplacian", "algebraic connectivity from: laplacian (μ₂ of D−A) or normalized_laplacian (ν₂)")
	gap := fs.String("gap-matrix", "adjacency", "spectral gap: adjacency (λ₁−λ₂), laplacian (μ₂) or normalized_laplacian (ν₂)")
	heat := fs.String("heat-matrix", "laplacian", "heat trace of: laplacian or normalized_laplacian")
	t := fs.Float64("heat-time", 1, "t of the heat trace tr exp(−tL)")
	base := fs.Float64("entropy-log-base", math.E, "log base of the von Neumann entropy")
	return func() graphtext.SpectralOptions {
		return graphtext.SpectralOptions{AlgebraicMatrix: graphtext.Matrix(*alg), GapMatrix: graphtext.Matrix(*gap),
			HeatMatrix: graphtext.Matrix(*heat), HeatTime: *t, EntropyLogBase: *base}
	}
}

func graphsSpectral(args []string) error {
	fs := newFlags("graphs spectral")
	path := fs.String("graph", "", `graph JSON file ({"n": 5, "edges": [[1, 2], ...]}), or - for standard input`)
	opts := spectralOptionFlags(fs)
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *path == "" {
		return missingFlag(fs, "--graph is required")
	}
	var r io.Reader = os.Stdin
	if *path != "-" {
		f, err := os.Open(*path)
		if err != nil {
			return fmt.Errorf("graphs spectral: %w", err)
		}
		defer f.Close()
		r = f
	}
	g, err := graphtext.ReadJSON(r)
	if err != nil {
		return fmt.Errorf("graphs spectral: %w", err)
	}
	v, err := graphtext.Spectral(g, opts())
	if err != nil {
		return fmt.Errorf("graphs spectral: %w", err)
	}
	_, err = stdout.Write(orderedSpectralJSON(v))
	return err
}

// orderedSpectralJSON writes the values in Table 7 order, one per line.
func orderedSpectralJSON(v map[string]float64) []byte {
	var b bytes.Buffer
	b.WriteString("{\n")
	for i, t := range graphtext.SpectralTasks {
		x, _ := json.Marshal(v[t])
		fmt.Fprintf(&b, "  %q: %s", t, x)
		if i < len(graphtext.SpectralTasks)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("}\n")
	return b.Bytes()
}

func graphsSpectralEval(args []string) error {
	fs := newFlags("graphs spectral-eval")
	graphsPath := fs.String("graphs", "", "JSONL of test graphs (one graph JSON per line; ids are line indexes 0, 1, …); default: generate --count synthetic graphs")
	count := fs.Int("count", 100, "number of generated test graphs (as the paper's 100)")
	seed := fs.Int64("seed", 1, "seed of the generated graphs (test: seed, training: seed+1) and of the GNN")
	trainCount := fs.Int("train-count", 500, "number of generated training graphs (mean baseline and GNN)")
	steps := fs.Int("steps", 300, "GNN training steps per model")
	hidden := fs.Int("hidden", 16, "GNN hidden width")
	layers := fs.Int("layers", 2, "GNN message-passing rounds")
	joint := fs.Bool("joint", false, "train one GNN for all twelve tasks instead of one per task (about 12× faster)")
	noGNN := fs.Bool("no-gnn", false, "do not train the GNN")
	predPath := fs.String("predictions", "", `JSONL of {"id", "task", "answer_text"} answers to score (ids = graph line indexes)`)
	name := fs.String("name", "", "name of the --predictions predictor (default: the file's base name)")
	spreadK := fs.Int("spread", 3, "relabelings per test graph for the GNN's output spread (0: skip)")
	tf := addTrackingFlags(fs, "spectral-tasks", "evaluate offline: print the table only")
	figures := fs.String("figures", "", "also write densities.png and table10.md into this folder")
	opts := spectralOptionFlags(fs)
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if err := tf.check("graphs spectral-eval"); err != nil {
		return err
	}
	// Signals are left to the process-wide handler (the GNN's training
	// does not stop on a context): it ends the run KILLED and exits.
	res, err := spectral.Run(context.Background(), spectral.Config{GraphsFile: *graphsPath, Count: *count, Seed: *seed,
		TrainCount: *trainCount, NoGNN: *noGNN, GNN: spectralgnn.Config{Steps: *steps, Hidden: *hidden, Layers: *layers},
		Joint: *joint, PredictionsFile: *predPath, PredictionsName: *name, Spread: *spreadK, Options: opts(),
		FiguresDir: *figures, Experiment: *tf.experiment, TrackingURI: *tf.tracking, NoMLflow: tf.off(), Progress: os.Stderr})
	if res == nil {
		return fmt.Errorf("graphs spectral-eval: %w", err)
	}
	if werr := res.WriteSummary(stdout); werr != nil {
		return werr
	}
	return printRunLink("graphs spectral-eval", res.Run, err)
}
