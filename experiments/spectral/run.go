package spectral

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/narlab/narlab/internal/fsutil"
	"github.com/narlab/narlab/internal/progress"
	"github.com/narlab/narlab/lib/graphtext"
	"github.com/narlab/narlab/lib/spectralgnn"
	"github.com/narlab/narlab/tracking"
	"github.com/narlab/narlab/tracking/mlflow"
)

// Config is one evaluation of the spectral tasks (what `narlab graphs
// spectral-eval` runs). Zero values are the defaults noted.
type Config struct {
	// GraphsFile is a JSONL of test graphs (one graph JSON per line; their
	// ids are the line indexes 0, 1, …); "" : Count synthetic graphs
	// generated from Seed.
	GraphsFile string
	Count      int   // generated test graphs (default 100, the paper's)
	Seed       int64 // test graphs' seed; the training graphs' is Seed+1, and the GNN's Seed
	// TrainCount is the number of generated training graphs the mean
	// baseline and the GNN are fitted on (default 500).
	TrainCount int
	// NoGNN leaves the GNN out; GNN is its training (spectralgnn's
	// defaults: 300 steps, hidden 16, 2 layers; Seed and MaxNodes are
	// set here), Joint trains one GNN for all twelve tasks instead of one
	// per task (about 12× faster).
	NoGNN bool
	GNN   spectralgnn.Config
	Joint bool
	// PredictionsFile, when set, is a JSONL of {"id", "task",
	// "answer_text"} answers scored as a predictor named PredictionsName
	// (default: the file's base name).
	PredictionsFile, PredictionsName string
	// Spread is the number of relabelings per test graph over which the
	// GNN's output spread is measured (0 or 1: not measured).
	Spread int
	// Options settle the tasks' ambiguous choices (matrices, heat time,
	// entropy base).
	Options graphtext.SpectralOptions
	// FiguresDir, when set, receives densities.png and table10.md.
	FiguresDir string
	// Experiment (default "spectral-tasks", or $MLFLOW_EXPERIMENT_NAME),
	// TrackingURI and NoMLflow say where the run is logged.
	Experiment  string
	TrackingURI string
	NoMLflow    bool
	// Progress, when set, receives a line per trained GNN model.
	Progress io.Writer
}

// Result is a finished evaluation.
type Result struct {
	Report *Report
	// GNN and File are the GNN and answers-file predictors (nil when not
	// evaluated); Spreads the GNN's output spread per task (empty when
	// not measured).
	GNN     *GNNPredictor
	File    *FilePredictor
	Spreads map[string]float64
	// Relabelings is the number of relabelings the spread was measured
	// over (Config.Spread).
	Relabelings int
	// TestGraphs is the number of test graphs; Params the run's
	// parameters.
	TestGraphs int
	Params     map[string]string
	// Run is the ended MLflow run (nil with NoMLflow).
	Run *tracking.Run
}

// Run evaluates the predictors on the twelve spectral tasks, the protocol
// of "Lost in Serialization" App. H: the test graphs (read or generated)
// and generated training graphs with their ground truth, the mean
// baseline, the GNN (one per task, or one joint), an answers file, the
// regression metrics per task and predictor (Table 10), the GNN's output
// spread under relabeling, the figures, and one MLflow run (LogReport, the
// spread table, the test graphs and answers as dataset inputs). When only
// the logging fails it returns the result with the error.
func Run(ctx context.Context, c Config) (*Result, error) {
	if c.Count == 0 {
		c.Count = 100
	}
	if c.TrainCount == 0 {
		c.TrainCount = 500
	}
	if c.PredictionsName != "" && c.PredictionsFile == "" {
		return nil, fmt.Errorf("--name %q names the --predictions predictor; give --predictions too", c.PredictionsName)
	}
	if _, err := graphtext.Spectral(&graphtext.Graph{N: 1}, c.Options); err != nil {
		return nil, err
	}
	if c.Count < 2 || c.TrainCount < 2 {
		return nil, fmt.Errorf("--count %d and --train-count %d; want at least 2 each", c.Count, c.TrainCount)
	}
	params := c.Options.Params()
	var testGraphs []*graphtext.Graph
	var err error
	if c.GraphsFile != "" {
		if testGraphs, err = ReadGraphsFile(c.GraphsFile); err != nil {
			return nil, err
		}
		params["data.graphs"] = c.GraphsFile
	} else {
		if testGraphs, err = graphtext.GenerateSet(uint64(c.Seed), c.Count, graphtext.GenOptions{}); err != nil {
			return nil, err
		}
		params["data.graphs"] = "synthetic (not Erdős)"
	}
	params["data.test_graphs"] = strconv.Itoa(len(testGraphs))
	params["data.seed"] = strconv.FormatInt(c.Seed, 10)
	params["data.train_graphs"] = strconv.Itoa(c.TrainCount)
	test, err := NewDataset(testGraphs, nil, c.Options)
	if err != nil {
		return nil, err
	}
	trainGraphs, err := graphtext.GenerateSet(uint64(c.Seed)+1, c.TrainCount, graphtext.GenOptions{})
	if err != nil {
		return nil, err
	}
	train, err := NewDataset(trainGraphs, nil, c.Options)
	if err != nil {
		return nil, err
	}
	res := &Result{TestGraphs: len(testGraphs), Params: params, Spreads: map[string]float64{}, Relabelings: c.Spread}
	preds := []Predictor{FitMean(train)}
	if !c.NoGNN {
		if res.GNN, err = trainGNN(c, train, testGraphs, params); err != nil {
			return nil, err
		}
		preds = append(preds, res.GNN)
	}
	if c.PredictionsFile != "" {
		label := c.PredictionsName
		if label == "" {
			label = strings.TrimSuffix(filepath.Base(c.PredictionsFile), filepath.Ext(c.PredictionsFile))
		}
		f, err := os.Open(c.PredictionsFile)
		if err != nil {
			return nil, err
		}
		res.File, err = LoadPredictions(label, f)
		f.Close()
		if err != nil {
			return nil, err
		}
		params["predictions"] = c.PredictionsFile
		preds = append(preds, res.File)
	}
	if res.Report, err = Evaluate(test, preds); err != nil {
		return nil, err
	}
	if res.GNN != nil && c.Spread >= 2 {
		for _, t := range res.Report.Tasks {
			s, err := OutputSpread(res.GNN, t, test, c.Spread, uint64(c.Seed))
			if err != nil {
				return nil, err
			}
			res.Spreads[t] = s
		}
	}
	if c.FiguresDir != "" {
		if err := writeFigures(c.FiguresDir, res.Report); err != nil {
			return nil, err
		}
	}
	predName := ""
	if res.File != nil {
		predName = res.File.Name()
	}
	exp := c.Experiment
	if exp == "" {
		exp = tracking.DefaultExperiment("spectral-tasks")
	}
	name, note := runText(res.Report.Predictors, len(testGraphs), params)
	runOpts := []tracking.Option{tracking.RunName(name), tracking.Note(note), tracking.Source("narlab graphs spectral-eval"),
		tracking.Tags(map[string]string{"benchmark": "spectral-tasks", "predictors": strings.Join(res.Report.Predictors, ",")})}
	inputs := []tracking.FileInput{{Name: "spectral/test-graphs", Path: c.GraphsFile, Context: "test"},
		{Name: "spectral/predictions/" + predName, Path: c.PredictionsFile, Context: "predictions"}}
	res.Run, err = tracking.LogOnce(ctx, tracking.Destination{Experiment: exp, TrackingURI: c.TrackingURI, Off: c.NoMLflow},
		params, runOpts, inputs, func(_ context.Context, run *tracking.Run) error {
			if c.GraphsFile == "" { // generated: the graphs' digest and the generator's settings
				ds, err := graphsDataset(testGraphs, c.Seed)
				if err != nil {
					return err
				}
				if err := run.LogInputs(ds); err != nil {
					return err
				}
			}
			err := LogReport(run, res.Report)
			if len(res.Spreads) > 0 && err == nil {
				err = logOutputSpread(run, res.Spreads)
			}
			return err
		})
	return res, err
}

// trainGNN trains the GNN predictor on train: one model per task, or one
// for all (Joint), reporting each model on c.Progress.
func trainGNN(c Config, train *Dataset, testGraphs []*graphtext.Graph, params map[string]string) (*GNNPredictor, error) {
	cfg := c.GNN
	cfg.Seed = c.Seed
	for _, g := range testGraphs {
		cfg.MaxNodes = max(cfg.MaxNodes, g.N, 35)
	}
	for k, v := range cfg.Params() {
		params[k] = v
	}
	params["gnn.joint"] = strconv.FormatBool(c.Joint)
	groups := [][]string{graphtext.SpectralTasks}
	if !c.Joint {
		groups = nil
		for _, t := range graphtext.SpectralTasks {
			groups = append(groups, []string{t})
		}
	}
	var bar *progress.Bar // nil: silent
	if c.Progress != nil {
		bar = progress.New(c.Progress, "training the GNN", len(groups))
		bar.Every = 1 // a line per trained model: each takes a while
	}
	var models []*spectralgnn.Model
	for i, tasks := range groups {
		m, err := spectralgnn.Train(nil, tasks, train.Graphs, train.Truth, cfg)
		if err != nil {
			bar.Stop("failed")
			return nil, err
		}
		bar.Update(i+1, fmt.Sprintf("%s: loss %.4f → %.4f", strings.Join(tasks, ","), m.Losses[0], m.Losses[len(m.Losses)-1]))
		models = append(models, m)
	}
	bar.Done()
	return NewGNNPredictor(models...)
}

// ReadGraphsFile reads one graph JSON per line.
func ReadGraphsFile(path string) ([]*graphtext.Graph, error) {
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

// WriteSummary writes the evaluation as text: Table 10 in Markdown, then
// per predictor the sMAPE per difficulty group, the mean RelMAE and the
// tasks where it beats the mean (RelMAE < 1), the global error and the
// wins with several predictors, the answers that did not parse, and the
// GNN's output spread.
func (r *Result) WriteSummary(w io.Writer) error {
	rep := r.Report
	bw := bufio.NewWriter(w)
	fmt.Fprint(bw, rep.Markdown())
	for _, p := range rep.Predictors {
		g, _ := rep.GroupMeans(p, "smape")
		rel, _ := rep.GroupMeans(p, "relmae")
		beat := 0
		for _, t := range rep.Tasks {
			if rep.Results[p][t].Metrics.RelMAE < 1 {
				beat++
			}
		}
		fmt.Fprintf(bw, "%s: sMAPE Easy %.2f Medium %.2f Hard %.2f; mean RelMAE %.3f; RelMAE < 1 on %d/%d tasks\n",
			p, g["Easy"], g["Medium"], g["Hard"], rel["All"], beat, len(rep.Tasks))
	}
	if len(rep.Predictors) > 1 {
		ge, _ := rep.GlobalError()
		fmt.Fprintf(bw, "global error %v: %v; sMAPE wins %v; RelMAE wins %v\n", rep.Predictors, round3(ge), rep.Wins("smape"), rep.Wins("relmae"))
	}
	if f := r.File; f != nil {
		for _, t := range rep.Tasks {
			if st := f.Parse[t]; st != nil && st.Parsed < st.Total {
				fmt.Fprintf(bw, "%s %s: parsed %d/%d answers; e.g. %s\n", f.Name(), t, st.Parsed, st.Total, strings.Join(f.Failures[t], "; "))
			}
		}
	}
	if len(r.Spreads) > 0 {
		mx := 0.0
		for _, s := range r.Spreads {
			mx = math.Max(mx, s)
		}
		fmt.Fprintf(bw, "gnn output spread under %d relabelings: max over tasks %.3g\n", r.Relabelings, mx)
	}
	return bw.Flush()
}

func round3(x []float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = math.Round(v*1000) / 1000
	}
	return out
}

// writeFigures writes densities.png and table10.md atomically.
func writeFigures(dir string, rep *Report) error {
	fig, err := rep.DensityFigure()
	if err != nil {
		return err
	}
	png, err := fig.PNG()
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{"densities.png": png, "table10.md": []byte(rep.Markdown())} {
		if err := fsutil.WriteFile(filepath.Join(dir, name), data, fsutil.DataMode); err != nil {
			return err
		}
	}
	return nil
}

// graphsDataset describes generated test graphs as a run input: the
// digest of their JSON, the generator and seed as the source.
func graphsDataset(graphs []*graphtext.Graph, seed int64) (mlflow.DatasetInput, error) {
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

// logOutputSpread records the GNN's output spread under relabelings as a
// table (spectral/output_spread.json: task, spread) and one summary
// metric, test/gnn/output_spread_max.
func logOutputSpread(run *tracking.Run, spreads map[string]float64) error {
	tasks := make([]string, 0, len(spreads))
	for t := range spreads {
		tasks = append(tasks, t)
	}
	sort.Strings(tasks)
	rows := make([][]any, len(tasks))
	mx := 0.0
	for i, t := range tasks {
		rows[i] = []any{t, spreads[t]}
		mx = max(mx, spreads[t])
	}
	if err := run.LogTable("spectral/output_spread.json", []string{"task", "output_spread"}, rows); err != nil {
		return err
	}
	return run.LogMetric("test/gnn/output_spread_max", 0, mx)
}

// runText is the run name and Markdown description of an evaluation.
func runText(predictors []string, testGraphs int, params map[string]string) (name, note string) {
	name = tracking.RunNameFor("spectral-eval", strings.Join(predictors, "+"), fmt.Sprintf("%d graphs", testGraphs))
	var b strings.Builder
	fmt.Fprintf(&b, "`narlab graphs spectral-eval`: the twelve spectral tasks of \"Lost in Serialization\" (Table 10) "+
		"on %d test graphs, predictors %s.\n\n", testGraphs, strings.Join(predictors, ", "))
	b.WriteString("Results: `spectral/table10.json` (every metric per task and predictor), `spectral/groups.json` " +
		"(difficulty-group means), `spectral/densities.png`; summary metrics `test/<predictor>/smape`, `relmae`.")
	if v := params["gnn.train_steps"]; v != "" {
		fmt.Fprintf(&b, "\n\nGNN: %s steps, hidden size %s.", v, params["gnn.hidden_size"])
	}
	return name, b.String()
}
