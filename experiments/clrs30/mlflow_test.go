package clrs30

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/nn"
)

// TestSignatureEveryAlgorithm builds the MLflow signature of a model of
// each CLRS-30 algorithm (with and without the reference's transforms):
// its inputs are a batch's features as a dataset file names them
// (FeatureNames: input/NAME, hint/NAME, lengths), its outputs the probes
// Model.Predict returns (output/NAME, after the transforms), every time,
// batch and node dimension -1 and every other dimension a size.
func TestSignatureEveryAlgorithm(t *testing.T) {
	if n := len(clrs.CLRS30()); n != 30 {
		t.Fatalf("%d CLRS-30 algorithms", n)
	}
	for _, algo := range clrs.CLRS30() {
		for _, transforms := range []bool{true, false} {
			mc := nn.DefaultConfig(algo, "mpnn")
			mc.Permutations, mc.PredAsInput = transforms, transforms
			sig, err := Signature(mc)
			if err != nil {
				t.Errorf("%s (transforms %v): %v", algo, transforms, err)
				continue
			}
			fb, err := sampleFeedback(mc)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, d := range fb.Outputs {
				out = append(out, "output/"+d.Name)
			}
			in, err := FeatureNames(algo)
			if err != nil {
				t.Fatal(err)
			}
			var gotIn, gotOut []string
			for _, s := range sig.Inputs {
				gotIn = append(gotIn, s.Name)
			}
			for _, s := range sig.Outputs {
				gotOut = append(gotOut, s.Name)
			}
			if !slices.Equal(gotIn, in) || !slices.Equal(gotOut, out) {
				t.Errorf("%s (transforms %v): signature inputs %v outputs %v; want %v, %v", algo, transforms, gotIn, gotOut, in, out)
			}
			// Every dimension that changes with the sample's size or the
			// trajectory's length is -1; the others are the arrays'.
			shapes := func(n int) map[string][]int {
				s, err := clrs.NewSampler(algo, clrs.Length(n), clrs.Seed(0), clrs.NumSamples(2))
				if err != nil {
					t.Fatal(err)
				}
				fb, err := s.Next(2)
				if err != nil {
					t.Fatal(err)
				}
				m := map[string][]int{"lengths": {2}}
				for _, d := range append(slices.Clone(fb.Inputs), fb.Hints...) {
					m[d.Stage.String()+"/"+d.Name] = d.Shape
				}
				return m
			}
			a, b := shapes(5), shapes(9)
			for _, s := range sig.Inputs {
				if len(s.Shape) == 0 || s.Shape[0] != -1 || s.DType == "" {
					t.Errorf("%s: input %s: shape %v dtype %q; want the first dimension -1", algo, s.Name, s.Shape, s.DType)
				}
				if len(s.Shape) != len(a[s.Name]) {
					t.Errorf("%s: input %s: shape %v; the arrays have %v", algo, s.Name, s.Shape, a[s.Name])
					continue
				}
				for i := 1; i < len(s.Shape); i++ {
					switch {
					case a[s.Name][i] != b[s.Name][i] && s.Shape[i] != -1:
						t.Errorf("%s: input %s: shape %v; dimension %d is %d or %d with the sample's size, want -1", algo, s.Name, s.Shape, i, a[s.Name][i], b[s.Name][i])
					case a[s.Name][i] == b[s.Name][i] && s.Shape[i] != -1 && s.Shape[i] != a[s.Name][i]:
						t.Errorf("%s: input %s: shape %v; dimension %d is %d", algo, s.Name, s.Shape, i, a[s.Name][i])
					}
				}
			}
			if _, err := json.Marshal(sig); err != nil {
				t.Error(err)
			}
		}
	}
}

// TestDigestTrajectories checks a split's digest: the same samples give
// the same digest (whatever run draws them), other samples another.
func TestDigestTrajectories(t *testing.T) {
	a, err := splitTrajectories("bfs", "val", 8)
	if err != nil {
		t.Fatal(err)
	}
	b, err := splitTrajectories("bfs", "val", 8)
	if err != nil {
		t.Fatal(err)
	}
	c, err := splitTrajectories("bfs", "val", 7)
	if err != nil {
		t.Fatal(err)
	}
	d, err := splitTrajectories("dfs", "val", 8)
	if err != nil {
		t.Fatal(err)
	}
	da, db, dc, dd := digestTrajectories(a), digestTrajectories(b), digestTrajectories(c), digestTrajectories(d)
	if da != db || len(da) != 32 {
		t.Errorf("the same samples: %s and %s; want one 32-digit digest", da, db)
	}
	if da == dc || da == dd {
		t.Errorf("other samples give the same digest %s (7 samples %s, dfs %s)", da, dc, dd)
	}
	// The same samples digested as they stream past (a split scored once).
	streamed := newSampleDigest()
	for _, err := range streamed.observe(clrs.SplitTrajectories("bfs", "val", 8)) {
		if err != nil {
			t.Fatal(err)
		}
	}
	steps := 0
	for _, tr := range a {
		steps = max(steps, tr.Length)
	}
	if streamed.sum() != da || streamed.samples != 8 || streamed.steps != steps {
		t.Errorf("streamed: digest %s, %d samples, longest %d steps; want %s, 8, %d", streamed.sum(), streamed.samples, streamed.steps, da, steps)
	}
}

// feedbackOfLength is a small batch of samples of length n, transformed as
// the model sees it.
func feedbackOfLength(mc nn.Config, n int) (*clrs.Feedback, error) {
	s, err := clrs.NewSampler(mc.Algorithm, clrs.Length(n), clrs.Seed(0), clrs.NumSamples(2))
	if err != nil {
		return nil, err
	}
	fb, err := s.Next(2)
	if err != nil {
		return nil, err
	}
	return mc.Transform(fb)
}
