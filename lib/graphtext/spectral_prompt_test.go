package graphtext

import (
	"strings"
	"testing"
)

func TestSpectralPrompt(t *testing.T) {
	path, err := New(3, false, false, []Edge{{U: 1, V: 2}, {U: 2, V: 3}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := SpectralPrompt(path, SpectralRadius, SpectralOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "The task is to determine the spectral radius of the graph. The spectral radius is the largest absolute value " +
		"of an eigenvalue of the adjacency matrix. Here is an undirected graph containing nodes from 1 to 3. The edges are: " +
		"(1, 2), (2, 3). Question: What is the spectral radius of the graph? You need to format your answer as a float number."
	if got != want {
		t.Errorf("prompt\n%q\nwant\n%q", got, want)
	}
	seen := map[string]string{}
	for _, task := range SpectralTasks {
		p, err := SpectralPrompt(path, task, SpectralOptions{})
		if err != nil {
			t.Fatalf("%s: %v", task, err)
		}
		if !strings.Contains(p, "The edges are: (1, 2), (2, 3).") || !strings.HasSuffix(p, "as a float number.") {
			t.Errorf("%s: %q lacks the graph or the format sentence", task, p)
		}
		if prev, dup := seen[p]; dup {
			t.Errorf("%s and %s have the same prompt", task, prev)
		}
		seen[p] = task
	}
	// The open choices are stated in the question.
	for _, tc := range []struct {
		task string
		opts SpectralOptions
		want string
	}{
		{AlgebraicConnectivity, SpectralOptions{}, "second smallest eigenvalue of the Laplacian matrix L = D − A"},
		{AlgebraicConnectivity, SpectralOptions{AlgebraicMatrix: NormalizedLaplacian}, "second smallest eigenvalue of the normalized Laplacian"},
		{SpectralGap, SpectralOptions{}, "largest and the second largest eigenvalue of the adjacency matrix"},
		{SpectralGap, SpectralOptions{GapMatrix: LaplacianMatrix}, "second smallest eigenvalue of the Laplacian matrix"},
		{HeatTraceT1, SpectralOptions{HeatTime: 0.5}, "at time t = 0.5"},
		{HeatTraceT1, SpectralOptions{HeatMatrix: NormalizedLaplacian}, "normalized Laplacian"},
		{VonNeumannEntropy, SpectralOptions{}, "natural logarithm"},
		{VonNeumannEntropy, SpectralOptions{EntropyLogBase: 2}, "logarithm to base 2"},
	} {
		p, err := SpectralPrompt(path, tc.task, tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(p, tc.want) {
			t.Errorf("%s %+v: %q does not say %q", tc.task, tc.opts, p, tc.want)
		}
	}
	directed, _ := New(2, true, false, []Edge{{U: 1, V: 2}})
	for _, tc := range []struct {
		g    *Graph
		task string
		opts SpectralOptions
		want string
	}{
		{path, "diameter", SpectralOptions{}, "unknown spectral task"},
		{directed, GraphEnergy, SpectralOptions{}, "directed"},
		{path, HeatTraceT1, SpectralOptions{HeatMatrix: AdjacencyMatrix}, "heat trace matrix"},
	} {
		if _, err := SpectralPrompt(tc.g, tc.task, tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", tc.task, err, tc.want)
		}
	}
}
