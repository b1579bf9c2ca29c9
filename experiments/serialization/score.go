package serialization

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"

	"github.com/narlab/narlab/lib/graphtext"
	"github.com/narlab/narlab/lib/metrics"
)

// TaskScore is one task's result under one configuration.
type TaskScore struct {
	Config string `json:"config"`
	Task   string `json:"task"`
	// N counts prompts; Answered counts those with a prediction; Parsed
	// those whose answer could be extracted and read; Correct the right
	// ones.
	N, Answered, Parsed, Correct int
	// Accuracy (%) is the mean over shuffle seeds of the per-seed
	// accuracy; AccuracyStd the sample std over seeds (0 for one seed).
	Accuracy, AccuracyStd float64
	// ParseRate (%) is Parsed / N.
	ParseRate float64
}

// Report is the scored run.
type Report struct {
	Configs []string
	Tasks   []string
	// Scores[config][task].
	Scores map[string]map[string]*TaskScore
	// Missing counts prompts without a prediction.
	Missing int
	// Synthetic is true when any prompt came from synthetic (not Erdős)
	// graphs.
	Synthetic bool
	// Spread[task] is the normalized output spread over relabelings of a
	// numerical task (only when the run has ≥2 relabelings).
	Spread map[string]metrics.Spread
}

// Score scores predictions (id → model output) against prompts. Ids in
// predictions that name no prompt are an error (a mismatched file);
// prompts without a prediction are counted as wrong and in Missing.
func Score(prompts []Record, preds map[string]string, opts graphtext.ExtractOptions) (*Report, error) {
	if len(prompts) == 0 {
		return nil, fmt.Errorf("serialization: no prompts to score")
	}
	byID := make(map[string]bool, len(prompts))
	for _, p := range prompts {
		byID[p.ID] = true
	}
	var unknown []string
	for id := range preds {
		if !byID[id] {
			unknown = append(unknown, id)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fmt.Errorf("serialization: %d predictions name no prompt (first: %q); are the prompts and predictions files from the same run?", len(unknown), unknown[0])
	}
	rep := &Report{Scores: map[string]map[string]*TaskScore{}, Spread: map[string]metrics.Spread{}}
	type seedKey struct{ config, task string }
	perSeed := map[seedKey]map[uint64][2]int{} // correct, total per shuffle seed
	type spreadKey struct {
		task, enc, syn string
		inst           int
		seed           uint64
	}
	spreadVals := map[spreadKey][]float64{}
	spreadTruth := map[spreadKey]float64{}
	for _, p := range prompts {
		task, err := graphtext.LookupTask(p.Task)
		if err != nil {
			return nil, fmt.Errorf("serialization: prompt %s: %w", p.ID, err)
		}
		g, err := graphtext.ReadJSON(bytes.NewReader(p.Graph))
		if err != nil {
			return nil, fmt.Errorf("serialization: prompt %s: %w", p.ID, err)
		}
		gold, err := graphtext.DecodeAnswer(task.Kind, p.Answer)
		if err != nil {
			return nil, fmt.Errorf("serialization: prompt %s: %w", p.ID, err)
		}
		rep.Synthetic = rep.Synthetic || p.Synthetic
		cfg := p.Config()
		if rep.Scores[cfg] == nil {
			rep.Scores[cfg] = map[string]*TaskScore{}
			rep.Configs = append(rep.Configs, cfg)
		}
		ts := rep.Scores[cfg][p.Task]
		if ts == nil {
			ts = &TaskScore{Config: cfg, Task: p.Task}
			rep.Scores[cfg][p.Task] = ts
			if !slices.Contains(rep.Tasks, p.Task) {
				rep.Tasks = append(rep.Tasks, p.Task)
			}
		}
		ts.N++
		out, ok := preds[p.ID]
		var sc graphtext.Score
		if ok {
			ts.Answered++
			sc = task.ScoreOutput(g, gold, out, opts)
		} else {
			rep.Missing++
		}
		if sc.Parsed {
			ts.Parsed++
		}
		if sc.Correct {
			ts.Correct++
		}
		k := seedKey{cfg, p.Task}
		if perSeed[k] == nil {
			perSeed[k] = map[uint64][2]int{}
		}
		c := perSeed[k][p.ShuffleSeed]
		c[1]++
		if sc.Correct {
			c[0]++
		}
		perSeed[k][p.ShuffleSeed] = c
		if p.Relabel >= 0 && task.Kind.Numeric() {
			sk := spreadKey{p.Task, p.Encoding, p.Syntax, p.Instance, p.ShuffleSeed}
			v := math.NaN()
			if sc.Parsed {
				v, _ = sc.Pred.Value()
			}
			spreadVals[sk] = append(spreadVals[sk], v)
			spreadTruth[sk], _ = gold.Value()
		}
	}
	for k, seeds := range perSeed {
		var accs []float64
		for _, c := range seeds {
			accs = append(accs, 100*float64(c[0])/float64(c[1]))
		}
		ts := rep.Scores[k.config][k.task]
		for _, a := range accs {
			ts.Accuracy += a
		}
		ts.Accuracy /= float64(len(accs))
		ts.AccuracyStd = metrics.SampleStd(accs)
		ts.ParseRate = 100 * float64(ts.Parsed) / float64(ts.N)
	}
	// Output spread per numerical task (pooled over configurations).
	byTask := map[string][][]float64{}
	truthByTask := map[string][]float64{}
	keys := make([]spreadKey, 0, len(spreadVals))
	for k := range spreadVals {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
	for _, k := range keys {
		if len(spreadVals[k]) < 2 {
			continue
		}
		byTask[k.task] = append(byTask[k.task], spreadVals[k])
		truthByTask[k.task] = append(truthByTask[k.task], spreadTruth[k])
	}
	for task, groups := range byTask {
		s, err := metrics.OutputSpread(groups, truthByTask[task])
		if err != nil {
			return nil, err
		}
		rep.Spread[task] = s
	}
	order := map[string]int{}
	for i, n := range graphtext.TaskNames() {
		order[n] = i
	}
	sort.Slice(rep.Tasks, func(i, j int) bool { return order[rep.Tasks[i]] < order[rep.Tasks[j]] })
	sort.Strings(rep.Configs)
	return rep, nil
}

// Accuracy returns the accuracy table [task][config] for the given
// configurations (tasks in report order); a task missing from a
// configuration is an error.
func (r *Report) Accuracy(configs []string) ([][]float64, error) {
	out := make([][]float64, len(r.Tasks))
	for i, t := range r.Tasks {
		for _, c := range configs {
			ts := r.Scores[c][t]
			if ts == nil {
				return nil, fmt.Errorf("serialization: task %s has no prompts under %s", t, c)
			}
			out[i] = append(out[i], ts.Accuracy)
		}
	}
	return out, nil
}

// Delta returns acc(config) − acc(baseline) per task.
func (r *Report) Delta(config string) ([]float64, error) {
	acc, err := r.Accuracy([]string{config, Baseline})
	if err != nil {
		return nil, err
	}
	a, b := make([]float64, len(acc)), make([]float64, len(acc))
	for i, row := range acc {
		a[i], b[i] = row[0], row[1]
	}
	return metrics.AccuracyDelta(a, b)
}

// SyntaxConfigs returns the configurations of the syntax study present in
// the report (E0 with each syntax, original labels), in Table 6 order.
func (r *Report) SyntaxConfigs() []string {
	var out []string
	for _, s := range graphtext.Syntaxes() {
		c := "E0/" + string(s) + "/orig"
		if r.Scores[c] != nil {
			out = append(out, c)
		}
	}
	return out
}

// MeanAccuracy is the unweighted mean accuracy over tasks of a configuration.
func (r *Report) MeanAccuracy(config string) float64 {
	s, n := 0.0, 0
	for _, ts := range r.Scores[config] {
		s += ts.Accuracy
		n++
	}
	if n == 0 {
		return math.NaN()
	}
	return s / float64(n)
}

// Predictor names for [Predict].
const (
	PredictOracle   = "oracle"   // the ground truth, boxed
	PredictConstant = "constant" // 0, 0, No, [], [] whatever the question
	PredictNoisy    = "noisy"    // the ground truth, replaced by a wrong value with probability 0.3
)

// Predictors are the baseline predictors' names, in order.
func Predictors() []string { return []string{PredictOracle, PredictConstant, PredictNoisy} }

// Predict answers a prompt with a trivial baseline predictor, in G1's
// output format ("Therefore, the final answer is: $\boxed{...}$."). These
// exist to exercise the pipeline and calibrate the measures; they do not
// read the serialized graph, so their accuracy cannot depend on it.
func Predict(p Record, predictor string, seed uint64) (string, error) {
	task, err := graphtext.LookupTask(p.Task)
	if err != nil {
		return "", err
	}
	gold, err := graphtext.DecodeAnswer(task.Kind, p.Answer)
	if err != nil {
		return "", err
	}
	box := func(s string) string { return "Therefore, the final answer is: $\\boxed{" + s + "}$." }
	switch predictor {
	case PredictOracle:
		return box(gold.String()), nil
	case PredictConstant:
		switch task.Kind {
		case graphtext.KindInt, graphtext.KindFloat:
			return box("0"), nil
		case graphtext.KindBool:
			return box("No"), nil
		}
		return box("[]"), nil
	case PredictNoisy:
		h := graphtext.SetSeed(seed, int(hashString(p.ID)%1_000_000))
		r := rand.New(rand.NewPCG(h, 1))
		if r.Float64() >= 0.3 {
			return box(gold.String()), nil
		}
		switch task.Kind {
		case graphtext.KindInt:
			return box(strconv.Itoa(gold.Int + 1 + r.IntN(3))), nil
		case graphtext.KindFloat:
			return box(strconv.FormatFloat(gold.Float+0.01+r.Float64(), 'f', 4, 64)), nil
		case graphtext.KindBool:
			if gold.Bool {
				return box("No"), nil
			}
			return box("Yes"), nil
		}
		return box("[0]"), nil
	}
	return "", fmt.Errorf("serialization: unknown predictor %q; want oracle, constant or noisy", predictor)
}

// WritePredictions answers every prompt with a baseline predictor
// ([Predict]) and writes the answers as JSON lines ({id, answer_text}).
func WritePredictions(w io.Writer, recs []Record, predictor string, seed uint64) error {
	if !slices.Contains(Predictors(), predictor) {
		return fmt.Errorf("serialization: unknown predictor %q; want oracle, constant or noisy", predictor)
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for _, r := range recs {
		text, err := Predict(r, predictor, seed)
		if err != nil {
			return err
		}
		if err := enc.Encode(graphtext.Prediction{ID: r.ID, AnswerText: text}); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func hashString(s string) uint64 {
	h := uint64(1469598103934665603)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
