package serialization

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/narlab/narlab/lib/graphtext"
	"github.com/narlab/narlab/lib/metrics"
	"github.com/narlab/narlab/tracking"
)

// ReadPromptsFile is [ReadPrompts] of a file; errors name it.
func ReadPromptsFile(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := ReadPrompts(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return recs, nil
}

// ScoreConfig is a scoring of a model's answers to prompts held in files
// (what `narlab graphs score` runs).
type ScoreConfig struct {
	// Prompts is a prompts file written by [Generate] (`narlab graphs
	// prompts`); Predictions the answers' JSONL ({"id", "answer_text"}).
	Prompts, Predictions string
	// Model names the model that answered (a parameter and the run's
	// name; default "unknown").
	Model string
	// Extract is how answers are read and judged: Mode picks the scorer
	// the tables use (metrics.ScorePaper, G1's own checker, by default, or
	// metrics.ScoreLenient); the other mode is scored too and logged beside.
	Extract graphtext.ExtractOptions
	// Experiment (default "graphs/serialization", or
	// $MLFLOW_EXPERIMENT_NAME), TrackingURI and NoMLflow say where the run
	// is logged.
	Experiment  string
	TrackingURI string
	NoMLflow    bool
}

// ScoreResult is a finished scoring.
type ScoreResult struct {
	// Report is scored in the configuration's mode, Other in the other
	// one (OtherMode); Comparison compares the two per answer.
	Report     *Report
	Other      *Report
	OtherMode  metrics.ScoreMode
	Comparison graphtext.ModeComparison
	Prompts    int // prompts read
	// Run is the ended MLflow run (nil with NoMLflow).
	Run *tracking.Run
}

// ScoreFiles reads the prompts and the answers, scores them in both modes
// (the tables in Extract.Mode), compares the modes per answer, and logs the
// scoring as one MLflow run: [Log]'s metrics, tables and figures, the other
// mode's mean accuracies under "<mode>/", the comparison under
// "scoring/", and the two files as dataset inputs. When only the logging
// fails it returns the result with the error.
func ScoreFiles(ctx context.Context, c ScoreConfig) (*ScoreResult, error) {
	recs, err := ReadPromptsFile(c.Prompts)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(c.Predictions)
	if err != nil {
		return nil, err
	}
	preds, err := graphtext.ReadPredictions(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Predictions, err)
	}
	opts := c.Extract
	rep, err := Score(recs, preds, opts)
	if err != nil {
		return nil, err
	}
	res := &ScoreResult{Report: rep, OtherMode: metrics.ScoreLenient, Prompts: len(recs)}
	if opts.Mode == metrics.ScoreLenient {
		res.OtherMode = metrics.ScorePaper
	}
	otherOpts := opts
	otherOpts.Mode = res.OtherMode
	if res.Other, err = Score(recs, preds, otherOpts); err != nil {
		return nil, err
	}
	if res.Comparison, err = CompareModes(recs, preds, opts); err != nil {
		return nil, err
	}
	model := c.Model
	if model == "" {
		model = "unknown"
	}
	src := "synthetic (not Erdős)"
	if !rep.Synthetic {
		src = "erdos"
	}
	params := map[string]string{"model": model, "prompts": c.Prompts, "predictions": c.Predictions, "data.graphs": src,
		"n_prompts": strconv.Itoa(len(recs)), "configs": strings.Join(rep.Configs, ","), "tasks": strconv.Itoa(len(rep.Tasks)),
		"extract.keep_decimal_points": strconv.FormatBool(opts.KeepDecimalPoints), "scoring": opts.Mode.String()}
	note := fmt.Sprintf("`narlab graphs score`: the answers of **%s** to %d graph-task prompts in %d serializations "+
		"(Lost in Serialization; graphs: %s), scored per task and configuration. Results: `serialization_scores.json` "+
		"and the figures under `figures/` in the artifacts.", model, len(recs), len(rep.Configs), src)
	runOpts := []tracking.Option{tracking.RunName(tracking.RunNameFor("graphs score", model)), tracking.Note(note),
		tracking.Source("narlab graphs score"),
		tracking.Tags(map[string]string{"benchmark": "erdos-serialization", "data": src})}
	inputs := []tracking.FileInput{{Name: "graphs/prompts", Path: c.Prompts, Context: "eval"},
		{Name: "graphs/predictions/" + model, Path: c.Predictions, Context: "predictions"}}
	exp := c.Experiment
	if exp == "" {
		exp = tracking.DefaultExperiment("graphs/serialization")
	}
	res.Run, err = tracking.LogOnce(ctx, tracking.Destination{Experiment: exp, TrackingURI: c.TrackingURI, Off: c.NoMLflow},
		params, runOpts, inputs, func(ctx context.Context, run *tracking.Run) error {
			if err := Log(ctx, run, rep); err != nil {
				return err
			}
			return LogOtherMode(run, res.OtherMode, res.Other, res.Comparison)
		})
	return res, err
}

// CompareModes scores every answered prompt in both modes (paper and
// lenient), the rest of opts alike.
func CompareModes(recs []Record, preds map[string]string, opts graphtext.ExtractOptions) (graphtext.ModeComparison, error) {
	var cmp graphtext.ModeComparison
	po, lo := opts, opts
	po.Mode, lo.Mode = metrics.ScorePaper, metrics.ScoreLenient
	for _, r := range recs {
		out, ok := preds[r.ID]
		if !ok {
			continue
		}
		task, err := graphtext.LookupTask(r.Task)
		if err != nil {
			return cmp, err
		}
		g, err := graphtext.ReadJSON(bytes.NewReader(r.Graph))
		if err != nil {
			return cmp, fmt.Errorf("prompt %s: %w", r.ID, err)
		}
		gold, err := graphtext.DecodeAnswer(task.Kind, r.Answer)
		if err != nil {
			return cmp, fmt.Errorf("prompt %s: %w", r.ID, err)
		}
		cmp.Add(task.ScoreOutput(g, gold, out, po), task.ScoreOutput(g, gold, out, lo))
	}
	return cmp, nil
}

// LogOtherMode logs the other scoring mode's mean accuracy per
// configuration (a fraction, under "<mode>/mean_accuracy/<config>") and
// the comparison of the two modes (scoring/...).
func LogOtherMode(run *tracking.Run, m metrics.ScoreMode, other *Report, cmp graphtext.ModeComparison) error {
	for _, c := range other.Configs {
		key := strings.NewReplacer("=", "_", ":", "_").Replace(m.String() + "/mean_accuracy/" + c)
		if err := run.LogMetric(key, 0, other.MeanAccuracy(c)/100); err != nil {
			return err
		}
	}
	ms := cmp.Metrics()
	keys := make([]string, 0, len(ms))
	for k := range ms {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := run.LogMetric(k, 0, ms[k]); err != nil {
			return err
		}
	}
	return nil
}

// WriteSummary writes a report as text: per configuration the mean
// accuracy, its difference from the baseline E0/erdos/orig and the parse
// rate, then the syntax variability and best-in counts, the output spread
// over relabelings, the prompts without a prediction, and whether the
// graphs were synthetic.
func WriteSummary(w io.Writer, rep *Report) {
	s := rep.Summarize()
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CONFIG\tMEAN ACC %\tΔ VS E0/erdos/orig\tPARSED %")
	for _, c := range rep.Configs {
		parsed, n := 0, 0
		for _, ts := range rep.Scores[c] {
			parsed += ts.Parsed
			n += ts.N
		}
		d := "-"
		if v, ok := s.MeanDelta[c]; ok {
			d = fmt.Sprintf("%+.2f", v)
		}
		fmt.Fprintf(tw, "%s\t%.2f\t%s\t%.1f\n", c, s.MeanAccuracy[c], d, 100*float64(parsed)/float64(max(n, 1)))
	}
	tw.Flush()
	if s.SyntaxVariability == s.SyntaxVariability {
		fmt.Fprintf(w, "syntax variability (mean over tasks of the std across syntaxes): %.2f\n", s.SyntaxVariability)
		for _, c := range rep.SyntaxConfigs() {
			fmt.Fprintf(w, "  %s best in %d/%d tasks\n", c, s.BestIn[c], len(rep.Tasks))
		}
	}
	if len(rep.Spread) > 0 {
		fmt.Fprintln(w, "normalized output spread over relabelings (numerical tasks):")
		for _, t := range rep.Tasks {
			if sp, ok := rep.Spread[t]; ok {
				fmt.Fprintf(w, "  %-28s %.4f (%d groups)\n", t, sp.Mean, sp.Used)
			}
		}
	}
	if rep.Missing > 0 {
		fmt.Fprintf(w, "%d prompts had no prediction (counted as wrong)\n", rep.Missing)
	}
	if rep.Synthetic {
		fmt.Fprintln(w, "data: synthetic Erdős-like graphs (not Erdős)")
	}
}
