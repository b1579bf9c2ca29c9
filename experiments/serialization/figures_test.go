package serialization

import (
	"bytes"
	"testing"

	"github.com/narlab/narlab/lib/graphtext"
)

func TestPaperFigures(t *testing.T) {
	figs := map[string]func() (interface{ PNG() ([]byte, error) }, error){
		"fig4":  func() (interface{ PNG() ([]byte, error) }, error) { return PaperSyntaxMeans() },
		"fig8b": func() (interface{ PNG() ([]byte, error) }, error) { return PaperSyntaxDelta("G1-7B") },
		"fig3": func() (interface{ PNG() ([]byte, error) }, error) {
			return PaperEncodingDelta("G1-7B", []graphtext.Encoding{"E1", "A1", "M"})
		},
		"fig7": func() (interface{ PNG() ([]byte, error) }, error) { return PaperEncodingHeatmap("Qwen-7B") },
	}
	for name, mk := range figs {
		f, err := mk()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		png, err := f.PNG()
		if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := PaperSyntaxDelta("GPT-5"); err == nil {
		t.Error("unknown model accepted")
	}
}

func TestReportFigures(t *testing.T) {
	tasks, _ := graphtext.ParseTasks("degree,density,has_cycle")
	recs := genPrompts(t, Spec{Tasks: tasks, Encodings: []graphtext.Encoding{"E0", "A1"}, Syntaxes: []graphtext.Syntax{"erdos", "pyg"}, Relabel: 2, Instances: 3})
	rep, err := Score(recs, predictAll(t, recs, PredictNoisy), graphtext.ExtractOptions{})
	if err != nil {
		t.Fatal(err)
	}
	figs := reportFigures(rep)
	for _, name := range []string{"delta_vs_baseline", "syntax_means", "relabel_spread", "relabel_accuracy"} {
		f, ok := figs[name]
		if !ok {
			t.Errorf("no %s figure", name)
			continue
		}
		if png, err := f.PNG(); err != nil || len(png) < 100 {
			t.Errorf("%s: %v", name, err)
		}
	}
}
