package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestGraphsSpectralCLI(t *testing.T) {
	t.Parallel()
	bin := narlabCLI(t)
	cases := []struct {
		name, input string
		args        []string
		wantErr     string
		check       func(t *testing.T, out map[string]float64)
	}{
		{name: "five-node", input: `{"n": 5, "edges": [[1,2],[1,3],[1,4],[1,5],[2,3],[2,4],[3,4],[4,5]]}`,
			check: func(t *testing.T, out map[string]float64) {
				if len(out) != 12 || out["sum_lambda_squared"] != 16 || out["n_components"] != 1 || out["algebraic_connectivity"] != 2 {
					t.Errorf("values %v", out)
				}
			}},
		{name: "normalized", input: `{"n": 5, "edges": [[1,2],[1,3],[1,4],[1,5],[2,3],[2,4],[3,4],[4,5]]}`,
			args: []string{"--algebraic-matrix", "normalized_laplacian"},
			check: func(t *testing.T, out map[string]float64) {
				if v := out["algebraic_connectivity"]; v < 0.8523 || v > 0.8524 {
					t.Errorf("ν₂ = %v; want 0.852333", v)
				}
			}},
		{name: "self-loop", input: `{"n": 2, "edges": [[1,1]]}`, wantErr: "self-loop"},
		{name: "out of range", input: `{"n": 2, "edges": [[1,3]]}`, wantErr: "outside 1..2"},
		{name: "duplicate", input: `{"n": 3, "edges": [[1,2],[2,1]]}`, wantErr: "duplicates"},
		{name: "bad matrix", input: `{"n": 2, "edges": [[1,2]]}`, args: []string{"--gap-matrix", "foo"}, wantErr: "spectral gap matrix"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, append([]string{"graphs", "spectral", "--graph", "-"}, tc.args...)...)
			cmd.Stdin = strings.NewReader(tc.input)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(stderr.String(), tc.wantErr) {
					t.Fatalf("err %v stderr %q; want exit 1 mentioning %q", err, stderr.String(), tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v: %s", err, stderr.String())
			}
			var v map[string]float64
			if err := json.Unmarshal(out, &v); err != nil {
				t.Fatalf("output is not JSON: %v\n%s", err, out)
			}
			tc.check(t, v)
		})
	}
}

// TestGraphsSpectralEvalOffline scores a predictions file and the mean
// baseline on a few generated graphs, without MLflow.
func TestGraphsSpectralEvalOffline(t *testing.T) {
	t.Parallel()
	bin := narlabCLI(t)
	dir := t.TempDir()
	preds := filepath.Join(dir, "llm.jsonl")
	var lines []string
	for i := 0; i < 8; i++ {
		lines = append(lines, `{"id": `+string(rune('0'+i))+`, "task": "sum_lambda_squared", "answer_text": "Therefore, the final answer is: $\\boxed{40}$."}`)
	}
	lines = append(lines, `{"id": "0", "task": "graph_energy", "answer_text": "I am not sure."}`)
	if err := os.WriteFile(preds, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "graphs", "spectral-eval", "--count", "8", "--train-count", "20", "--no-gnn",
		"--predictions", preds, "--no-mlflow", "--figures", dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	s := string(out)
	for _, want := range []string{"| sum_lambda_squared | Easy |", "parse_rate/llm", "llm graph_energy: parsed 0/8", "global error [mean llm]"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	for _, f := range []string{"densities.png", "table10.md"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"id": 1, "task": "graph_enrgy", "answer_text": "1"}`+"\n"), 0o644)
	out, err = exec.Command(bin, "graphs", "spectral-eval", "--count", "4", "--train-count", "4", "--no-gnn", "--predictions", bad, "--no-mlflow").CombinedOutput()
	if err == nil || !strings.Contains(string(out), `unknown task "graph_enrgy"`) {
		t.Errorf("bad predictions: err %v\n%s", err, out)
	}
}
