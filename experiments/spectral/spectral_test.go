package spectral

import (
	"math"
	"strings"
	"testing"

	"github.com/narlab/narlab/lib/graphtext"
	"github.com/narlab/narlab/lib/spectralgnn"
)

func dataset(t testing.TB, seed uint64, n int) *Dataset {
	t.Helper()
	gs, err := graphtext.GenerateSet(seed, n, graphtext.GenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewDataset(gs, nil, graphtext.SpectralOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestGNNTrainsAndIsInvariant(t *testing.T) {
	train := dataset(t, 1, 256)
	test := dataset(t, 2, 64)
	task := graphtext.SumLambdaSquared
	m, err := spectralgnn.Train(nil, []string{task}, train.Graphs, train.Truth, spectralgnn.Config{Steps: 150, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if first, last := m.Losses[0], m.Losses[len(m.Losses)-1]; !(last < first/4) {
		t.Fatalf("training loss went from %v to %v; want a 4× drop", first, last)
	}
	p, err := NewGNNPredictor(m)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Evaluate(test, []Predictor{FitMean(train), p}, task)
	if err != nil {
		t.Fatal(err)
	}
	rel := rep.Results["gnn"][task].Metrics.RelMAE
	if !(rel < 0.5) {
		t.Fatalf("GNN RelMAE on %s = %v; want < 0.5", task, rel)
	}
	spread, err := OutputSpread(p, task, test, 3, 9)
	if err != nil {
		t.Fatal(err)
	}
	if spread > 1e-5 {
		t.Fatalf("GNN output spread under relabeling %v; want 0 up to float32 rounding", spread)
	}
	t.Logf("RelMAE %.3f spread %.2g", rel, spread)
}

func TestMeanPredictor(t *testing.T) {
	d := dataset(t, 3, 50)
	rep, err := Evaluate(d, []Predictor{FitMean(d)})
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range graphtext.SpectralTasks {
		if r := rep.Results["mean"][task].Metrics.RelMAE; math.Abs(r-1) > 1e-9 {
			t.Errorf("%s: in-sample mean predictor RelMAE %v; want 1", task, r)
		}
	}
	_ = strings.TrimSpace
}

func TestLoadPredictions(t *testing.T) {
	d := dataset(t, 4, 3)
	in := `{"id": 0, "task": "graph_energy", "answer_text": "so \\boxed{1.5}"}
{"id": "1", "task": "graph_energy", "answer_text": "no idea"}

{"id": 2, "task": "spectral_radius", "answer_text": "The answer is 2."}
`
	p, err := LoadPredictions("llm", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Predict(graphtext.GraphEnergy, d)
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != 1.5 || !math.IsNaN(got[1]) || !math.IsNaN(got[2]) {
		t.Fatalf("predictions %v; want [1.5 NaN NaN]", got)
	}
	if st := p.Parse[graphtext.GraphEnergy]; st.Parsed != 1 || st.Total != 3 {
		t.Fatalf("parse stats %+v; want 1/3", st)
	}
	rep, err := Evaluate(d, []Predictor{p}, graphtext.GraphEnergy, graphtext.SpectralRadius)
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Results["llm"][graphtext.SpectralRadius]; r.Parsed != 1 || math.Abs(r.ParseRate()-1.0/3) > 1e-12 {
		t.Fatalf("spectral_radius parsed %d", r.Parsed)
	}
	bad := []struct{ in, want string }{
		{`{"id": 1, "task": "energy", "answer_text": "1"}`, "unknown task"},
		{`{"task": "graph_energy", "answer_text": "1"}`, "no \"id\""},
		{`{"id": 1, "task": "graph_energy"}`, "no \"answer_text\""},
		{`{"id": 1, "task": "graph_energy", "answer_text": "1"}` + "\n" + `{"id": "1", "task": "graph_energy", "answer_text": "2"}`, "repeats id 1"},
		{`{"id": 1, "task": `, "line 1"},
	}
	for _, b := range bad {
		if _, err := LoadPredictions("x", strings.NewReader(b.in)); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("LoadPredictions(%q): error %v; want one mentioning %q", b.in, err, b.want)
		}
	}
}

func TestReportArtifacts(t *testing.T) {
	d := dataset(t, 5, 40)
	train := dataset(t, 6, 40)
	noisy := &shiftPredictor{}
	rep, err := Evaluate(d, []Predictor{FitMean(train), noisy})
	if err != nil {
		t.Fatal(err)
	}
	cols, rows := rep.Table()
	if len(rows) != 12 || len(cols) != 2+4*2+2 {
		t.Fatalf("table %d rows × %d cols", len(rows), len(cols))
	}
	if !strings.Contains(rep.Markdown(), "| von_neumann_entropy | Hard |") {
		t.Fatal("markdown lacks a task row")
	}
	ge, err := rep.GlobalError()
	if err != nil || len(ge) != 2 || !(ge[1] < ge[0]) {
		t.Fatalf("global error %v, %v; want the near-truth predictor lower", ge, err)
	}
	if w := rep.Wins("relmae"); w[1] != 12 {
		t.Fatalf("wins %v; want the near-truth predictor to win all 12", w)
	}
	g, err := rep.GroupMeans("shift", "smape")
	if err != nil || len(g) != 4 {
		t.Fatalf("group means %v, %v", g, err)
	}
	fig, err := rep.DensityFigure()
	if err != nil {
		t.Fatal(err)
	}
	png, err := fig.PNG()
	if err != nil || len(png) < 1000 {
		t.Fatalf("PNG %d bytes, %v", len(png), err)
	}
	if _, err := Evaluate(d, nil); err == nil {
		t.Error("Evaluate accepted no predictors")
	}
	if _, err := Evaluate(d, []Predictor{noisy}, "energy"); err == nil {
		t.Error("Evaluate accepted an unknown task")
	}
}

// shiftPredictor answers the truth times 1.1 (a near-truth predictor).
type shiftPredictor struct{}

func (*shiftPredictor) Name() string { return "shift" }
func (*shiftPredictor) Predict(task string, d *Dataset) ([]float64, error) {
	out := make([]float64, len(d.Graphs))
	for i, g := range d.Graphs {
		v, err := graphtext.SpectralValue(g, task, graphtext.SpectralOptions{})
		if err != nil {
			return nil, err
		}
		out[i] = 1.1*v + 0.01
	}
	return out, nil
}

func TestRelabelAndSpread(t *testing.T) {
	d := dataset(t, 8, 10)
	// The exact ground truth is invariant: spread 0.
	s, err := OutputSpread(&shiftPredictor{}, graphtext.GraphEnergy, d, 4, 1)
	if err != nil || s > 1e-9 {
		t.Fatalf("spread of an invariant predictor %v, %v; want 0", s, err)
	}
	// A predictor that reads node ids is not.
	s, err = OutputSpread(idPredictor{}, graphtext.GraphEnergy, d, 4, 1)
	if err != nil || !(s > 0.01) {
		t.Fatalf("spread of an id-reading predictor %v, %v; want > 0", s, err)
	}
	if _, err := OutputSpread(idPredictor{}, graphtext.GraphEnergy, d, 1, 1); err == nil {
		t.Error("spread with one relabeling accepted")
	}
	if _, err := Relabel(d.Graphs[0], []int{1, 1}); err == nil {
		t.Error("Relabel accepted a non-permutation")
	}
}

// idPredictor answers 10× the first edge's second endpoint: not invariant.
type idPredictor struct{}

func (idPredictor) Name() string { return "ids" }
func (idPredictor) Predict(task string, d *Dataset) ([]float64, error) {
	out := make([]float64, len(d.Graphs))
	for i, g := range d.Graphs {
		if len(g.Edges) > 0 {
			out[i] = 10 * float64(g.Edges[0].V)
		}
	}
	return out, nil
}
