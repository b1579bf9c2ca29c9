// Package spectral evaluates predictors on the twelve spectral graph tasks
// of "Lost in Serialization" (App. H): ground truth from
// [graphtext.Spectral], predictors (the mean baseline, a GoMLX graph
// network (lib/spectralgnn), answers produced elsewhere and loaded from a JSONL file), the
// paper's regression metrics per task and difficulty group, the global
// min–max error and win counts across predictors, the output spread under
// relabeling, a Table-10-style table and a Figure-12-style grid of
// kernel-density curves.
package spectral

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/narlab/narlab/internal/fsutil"
	"github.com/narlab/narlab/lib/graphtext"
	"github.com/narlab/narlab/lib/spectralgnn"
)

// Dataset is a set of graphs with their ground truth for every task.
type Dataset struct {
	// IDs name the graphs; file predictions refer to them.
	IDs    []string
	Graphs []*graphtext.Graph
	// Truth[task][i] is the value of task on Graphs[i].
	Truth map[string][]float64
}

// NewDataset computes the ground truth of every spectral task on gs. IDs
// are the decimal indexes "0", "1", … unless ids is non-nil.
func NewDataset(gs []*graphtext.Graph, ids []string, opts graphtext.SpectralOptions) (*Dataset, error) {
	if ids == nil {
		ids = make([]string, len(gs))
		for i := range ids {
			ids[i] = strconv.Itoa(i)
		}
	}
	if len(ids) != len(gs) {
		return nil, fmt.Errorf("spectral: %d ids for %d graphs", len(ids), len(gs))
	}
	d := &Dataset{IDs: ids, Graphs: gs, Truth: map[string][]float64{}}
	for i, g := range gs {
		v, err := graphtext.Spectral(g, opts)
		if err != nil {
			return nil, fmt.Errorf("spectral: graph %s: %w", ids[i], err)
		}
		for _, t := range graphtext.SpectralTasks {
			d.Truth[t] = append(d.Truth[t], v[t])
		}
	}
	return d, nil
}

// Predictor produces a value per graph for a spectral task; NaN marks a
// missing or unparsable answer.
type Predictor interface {
	Name() string
	Predict(task string, d *Dataset) ([]float64, error)
}

// MeanPredictor always answers the training-set mean of each task: the
// baseline RelMAE compares against (RelMAE ≈ 1 on held-out graphs).
type MeanPredictor struct {
	Means map[string]float64
}

// FitMean returns the mean predictor of a training set.
func FitMean(train *Dataset) *MeanPredictor {
	m := &MeanPredictor{Means: map[string]float64{}}
	for t, ys := range train.Truth {
		s := 0.0
		for _, y := range ys {
			s += y
		}
		m.Means[t] = s / float64(len(ys))
	}
	return m
}

// Name returns "mean".
func (m *MeanPredictor) Name() string { return "mean" }

// Predict returns the task's mean for every graph.
func (m *MeanPredictor) Predict(task string, d *Dataset) ([]float64, error) {
	mu, ok := m.Means[task]
	if !ok {
		return nil, fmt.Errorf("spectral: mean predictor has no mean for task %q", task)
	}
	out := make([]float64, len(d.Graphs))
	for i := range out {
		out[i] = mu
	}
	return out, nil
}

// GNNPredictor answers each task with the trained [spectralgnn.Model] that covers it
// (one model per task, or one model for several).
type GNNPredictor struct {
	models map[string]*spectralgnn.Model
	cache  map[*Dataset]map[*spectralgnn.Model]map[string][]float64
}

// NewGNNPredictor combines trained models; a task covered twice is an
// error.
func NewGNNPredictor(models ...*spectralgnn.Model) (*GNNPredictor, error) {
	p := &GNNPredictor{models: map[string]*spectralgnn.Model{}, cache: map[*Dataset]map[*spectralgnn.Model]map[string][]float64{}}
	for _, m := range models {
		for _, t := range m.Tasks() {
			if _, dup := p.models[t]; dup {
				return nil, fmt.Errorf("spectral: two GNNs regress task %s", t)
			}
			p.models[t] = m
		}
	}
	return p, nil
}

// Name returns "gnn".
func (p *GNNPredictor) Name() string { return "gnn" }

// Predict runs the task's model (once per model and dataset).
func (p *GNNPredictor) Predict(task string, d *Dataset) ([]float64, error) {
	m, ok := p.models[task]
	if !ok {
		return nil, fmt.Errorf("spectral: no GNN trained for task %q", task)
	}
	if p.cache[d] == nil {
		p.cache = map[*Dataset]map[*spectralgnn.Model]map[string][]float64{d: {}} // keep one dataset
	}
	if out, ok := p.cache[d][m]; ok {
		return out[task], nil
	}
	out, err := m.Predict(d.Graphs)
	if err != nil {
		return nil, err
	}
	p.cache[d][m] = out
	return out[task], nil
}

// Answer is one line of a predictions file: a graph id, a task and the raw
// text a model answered.
type Answer struct {
	ID         string `json:"id"`
	Task       string `json:"task"`
	AnswerText string `json:"answer_text"`
}

// FilePredictor scores answers produced elsewhere (for example by a
// language model): each answer text is parsed with
// [graphtext.ParseSpectralAnswer].
type FilePredictor struct {
	name    string
	answers map[string]map[string]string // task → id → text
	// Parse counts parsed answers per task, filled by Predict.
	Parse map[string]*graphtext.ParseStats
	// Failures keeps, per task, the first few unparsable answers.
	Failures map[string][]string
}

// LoadPredictions reads a JSONL file of {"id", "task", "answer_text"}
// objects ("id" may be a string or a number). Unknown tasks and repeated
// (id, task) pairs are errors.
func LoadPredictions(name string, r io.Reader) (*FilePredictor, error) {
	p := &FilePredictor{name: name, answers: map[string]map[string]string{},
		Parse: map[string]*graphtext.ParseStats{}, Failures: map[string][]string{}}
	err := fsutil.ScanLines(r, func(line int, b []byte) error {
		var raw struct {
			ID         json.RawMessage `json:"id"`
			Task       string          `json:"task"`
			AnswerText *string         `json:"answer_text"`
		}
		if err := json.Unmarshal(b, &raw); err != nil {
			return fmt.Errorf("spectral: predictions line %d: %w (want {\"id\": ..., \"task\": ..., \"answer_text\": ...})", line, err)
		}
		id := strings.Trim(string(raw.ID), `"`)
		if id == "" || id == "null" {
			return fmt.Errorf("spectral: predictions line %d has no \"id\"", line)
		}
		if !graphtext.IsSpectralTask(raw.Task) {
			return fmt.Errorf("spectral: predictions line %d: unknown task %q; want one of %v", line, raw.Task, graphtext.SpectralTasks)
		}
		if raw.AnswerText == nil {
			return fmt.Errorf("spectral: predictions line %d has no \"answer_text\"", line)
		}
		if p.answers[raw.Task] == nil {
			p.answers[raw.Task] = map[string]string{}
		}
		if _, dup := p.answers[raw.Task][id]; dup {
			return fmt.Errorf("spectral: predictions line %d repeats id %s for task %s", line, id, raw.Task)
		}
		p.answers[raw.Task][id] = *raw.AnswerText
		return nil
	})
	if err != nil {
		if !strings.HasPrefix(err.Error(), "spectral:") {
			err = fmt.Errorf("spectral: reading predictions: %w", err)
		}
		return nil, err
	}
	return p, nil
}

// Name returns the name given to LoadPredictions.
func (p *FilePredictor) Name() string { return p.name }

// Predict parses the answers of the task for the dataset's graphs; a
// missing or unparsable answer is NaN and counts against the parse rate.
func (p *FilePredictor) Predict(task string, d *Dataset) ([]float64, error) {
	st := &graphtext.ParseStats{}
	p.Parse[task] = st
	out := make([]float64, len(d.Graphs))
	for i, id := range d.IDs {
		text, ok := p.answers[task][id]
		if !ok {
			out[i] = math.NaN()
			st.Add(false)
			continue
		}
		v, err := graphtext.ParseSpectralAnswer(text)
		if err != nil {
			out[i] = math.NaN()
			if len(p.Failures[task]) < 5 {
				p.Failures[task] = append(p.Failures[task], fmt.Sprintf("%s: %v", id, err))
			}
		}
		if err == nil {
			out[i] = v
		}
		st.Add(err == nil)
	}
	return out, nil
}
