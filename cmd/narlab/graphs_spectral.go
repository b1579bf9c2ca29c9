package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/narlab/narlab/experiments/spectral"
	"github.com/narlab/narlab/internal/fsutil"
	"github.com/narlab/narlab/internal/progress"
	"github.com/narlab/narlab/lib/graphtext"
	"github.com/narlab/narlab/lib/spectralgnn"
	"github.com/narlab/narlab/tracking"
	"github.com/narlab/narlab/tracking/mlflow"
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
		fs.Usage()
		return errors.New("graphs spectral: --graph is required")
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

// readGraphsJSONL reads one graph JSON per line.
func readGraphsJSONL(path string) ([]*graphtext.Graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var gs []*graphtext.Graph
	err = fsutil.ScanLines(f, func(line int, b []byte) error {
		g, err := graphtext.ReadJSON(bytes.NewReader(b))
		if err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		gs = append(gs, g)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(gs) == 0 {
		return nil, fmt.Errorf("%s holds no graphs", path)
	}
	return gs, nil
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
	if *name != "" && *predPath == "" {
		return fmt.Errorf("graphs spectral-eval: --name %q names the --predictions predictor; give --predictions too", *name)
	}
	so := opts()
	if _, err := graphtext.Spectral(&graphtext.Graph{N: 1}, so); err != nil {
		return fmt.Errorf("graphs spectral-eval: %w", err)
	}
	if *count < 2 || *trainCount < 2 {
		return fmt.Errorf("graphs spectral-eval: --count %d and --train-count %d; want at least 2 each", *count, *trainCount)
	}
	params := so.Params()
	var testGraphs []*graphtext.Graph
	var err error
	if *graphsPath != "" {
		if testGraphs, err = readGraphsJSONL(*graphsPath); err != nil {
			return fmt.Errorf("graphs spectral-eval: %w", err)
		}
		params["data.graphs"] = *graphsPath
	} else {
		if testGraphs, err = graphtext.GenerateSet(uint64(*seed), *count, graphtext.GenOptions{}); err != nil {
			return err
		}
		params["data.graphs"] = "synthetic (not Erdős)"
	}
	params["data.test_graphs"] = strconv.Itoa(len(testGraphs))
	params["data.seed"] = strconv.FormatInt(*seed, 10)
	params["data.train_graphs"] = strconv.Itoa(*trainCount)
	test, err := spectral.NewDataset(testGraphs, nil, so)
	if err != nil {
		return fmt.Errorf("graphs spectral-eval: %w", err)
	}
	trainGraphs, err := graphtext.GenerateSet(uint64(*seed)+1, *trainCount, graphtext.GenOptions{})
	if err != nil {
		return err
	}
	train, err := spectral.NewDataset(trainGraphs, nil, so)
	if err != nil {
		return err
	}
	preds := []spectral.Predictor{spectral.FitMean(train)}
	var gnn *spectral.GNNPredictor
	if !*noGNN {
		cfg := spectralgnn.Config{Steps: *steps, Hidden: *hidden, Layers: *layers, Seed: *seed}
		for _, g := range testGraphs {
			cfg.MaxNodes = max(cfg.MaxNodes, g.N, 35)
		}
		for k, v := range cfg.Params() {
			params[k] = v
		}
		params["gnn.joint"] = strconv.FormatBool(*joint)
		var models []*spectralgnn.Model
		groups := [][]string{graphtext.SpectralTasks}
		if !*joint {
			groups = nil
			for _, t := range graphtext.SpectralTasks {
				groups = append(groups, []string{t})
			}
		}
		bar := progress.New(os.Stderr, "training the GNN", len(groups))
		bar.Every = 1 // a line per trained model: each takes a while
		for i, tasks := range groups {
			m, err := spectralgnn.Train(nil, tasks, train.Graphs, train.Truth, cfg)
			if err != nil {
				return fmt.Errorf("graphs spectral-eval: %w", err)
			}
			bar.Update(i+1, fmt.Sprintf("%s: loss %.4f → %.4f", strings.Join(tasks, ","), m.Losses[0], m.Losses[len(m.Losses)-1]))
			models = append(models, m)
		}
		bar.Done()
		if gnn, err = spectral.NewGNNPredictor(models...); err != nil {
			return err
		}
		preds = append(preds, gnn)
	}
	var file *spectral.FilePredictor
	predName := ""
	if *predPath != "" {
		f, err := os.Open(*predPath)
		if err != nil {
			return fmt.Errorf("graphs spectral-eval: %w", err)
		}
		label := *name
		if label == "" {
			label = strings.TrimSuffix(filepath.Base(*predPath), filepath.Ext(*predPath))
		}
		predName = label
		file, err = spectral.LoadPredictions(label, f)
		f.Close()
		if err != nil {
			return fmt.Errorf("graphs spectral-eval: %w", err)
		}
		params["predictions"] = *predPath
		preds = append(preds, file)
	}
	rep, err := spectral.Evaluate(test, preds)
	if err != nil {
		return fmt.Errorf("graphs spectral-eval: %w", err)
	}
	fmt.Fprint(stdout, rep.Markdown())
	w := bufio.NewWriter(stdout)
	for _, p := range rep.Predictors {
		g, _ := rep.GroupMeans(p, "smape")
		rel, _ := rep.GroupMeans(p, "relmae")
		beat := 0
		for _, t := range rep.Tasks {
			if rep.Results[p][t].Metrics.RelMAE < 1 {
				beat++
			}
		}
		fmt.Fprintf(w, "%s: sMAPE Easy %.2f Medium %.2f Hard %.2f; mean RelMAE %.3f; RelMAE < 1 on %d/%d tasks\n",
			p, g["Easy"], g["Medium"], g["Hard"], rel["All"], beat, len(rep.Tasks))
	}
	if len(rep.Predictors) > 1 {
		ge, _ := rep.GlobalError()
		fmt.Fprintf(w, "global error %v: %v; sMAPE wins %v; RelMAE wins %v\n", rep.Predictors, round3(ge), rep.Wins("smape"), rep.Wins("relmae"))
	}
	if file != nil {
		for _, t := range rep.Tasks {
			if st := file.Parse[t]; st != nil && st.Parsed < st.Total {
				fmt.Fprintf(w, "%s %s: parsed %d/%d answers; e.g. %s\n", file.Name(), t, st.Parsed, st.Total, strings.Join(file.Failures[t], "; "))
			}
		}
	}
	spreads := map[string]float64{}
	if gnn != nil && *spreadK >= 2 {
		for _, t := range rep.Tasks {
			s, err := spectral.OutputSpread(gnn, t, test, *spreadK, uint64(*seed))
			if err != nil {
				return err
			}
			spreads[t] = s
		}
		mx := 0.0
		for _, s := range spreads {
			mx = math.Max(mx, s)
		}
		fmt.Fprintf(w, "gnn output spread under %d relabelings: max over tasks %.3g\n", *spreadK, mx)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if *figures != "" {
		if err := writeSpectralFigures(*figures, rep); err != nil {
			return err
		}
	}
	if tf.off() {
		return nil
	}
	runName, runNote := spectralRunText(rep.Predictors, len(testGraphs), params)
	eopts := []tracking.Option{tracking.RunName(runName), tracking.Note(runNote), tracking.Source("narlab graphs spectral-eval"),
		tracking.Tags(map[string]string{"benchmark": "spectral-tasks", "predictors": strings.Join(rep.Predictors, ",")})}
	inputs := []fileInput{{"spectral/test-graphs", *graphsPath, "test"}, {"spectral/predictions/" + predName, *predPath, "predictions"}}
	return logOneRun("graphs spectral-eval", tf, params, eopts, inputs, func(_ context.Context, run *tracking.Run) error {
		if *graphsPath == "" { // generated: the graphs' digest and the generator's settings
			ds, err := spectralGraphsDataset(testGraphs, *seed)
			if err != nil {
				return err
			}
			if err := run.LogInputs(ds); err != nil {
				return err
			}
		}
		err := spectral.LogReport(run, rep)
		if len(spreads) > 0 && err == nil {
			err = logOutputSpread(run, spreads)
		}
		return err
	})
}

func round3(x []float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = math.Round(v*1000) / 1000
	}
	return out
}

// writeSpectralFigures writes densities.png and table10.md atomically.
func writeSpectralFigures(dir string, rep *spectral.Report) error {
	fig, err := rep.DensityFigure()
	if err != nil {
		return err
	}
	png, err := fig.PNG()
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{"densities.png": png, "table10.md": []byte(rep.Markdown())} {
		if err := writeFileAtomic(filepath.Join(dir, name), data); err != nil {
			return err
		}
	}
	return nil
}

// spectralGraphsDataset describes generated test graphs as a run input:
// the digest of their JSON, the generator and seed as the source.
func spectralGraphsDataset(graphs []*graphtext.Graph, seed int64) (mlflow.DatasetInput, error) {
	h := sha256.New()
	enc := json.NewEncoder(h)
	nodes, edges := 0, 0
	for _, g := range graphs {
		if err := enc.Encode(g); err != nil {
			return mlflow.DatasetInput{}, err
		}
		nodes += g.N
		edges += len(g.Edges)
	}
	source, _ := json.Marshal(map[string]any{"generator": "narlab lib/graphtext GenerateSet (synthetic, not Erdős)", "seed": seed, "count": len(graphs)})
	profile, _ := json.Marshal(map[string]any{"graphs": len(graphs), "nodes": nodes, "edges": edges})
	return tracking.Dataset("spectral/test-graphs", hex.EncodeToString(h.Sum(nil))[:32], "code", string(source), "", string(profile), "test"), nil
}
