package salsa

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/narlab/narlab/internal/project"
)

// pythonBlocks returns the ```python blocks of a Markdown file.
func pythonBlocks(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	parts := strings.Split(string(raw), "```python\n")
	for _, p := range parts[1:] {
		code, _, ok := strings.Cut(p, "```")
		if !ok {
			t.Fatalf("%s: a ```python block is not closed", path)
		}
		blocks = append(blocks, code)
	}
	return blocks
}

// TestDocSnippet runs the Python of docs/salsa.md with the environment of
// scripts/setup-pybridge.sh: the redrawing of a graph from its stream (its
// edges must be narlab's), and the PyTorch Geometric loader on the files
// of the page's own `salsa generate` example, each Data object checked
// against the arrays.
func TestDocSnippet(t *testing.T) {
	py := salsaPython(t)
	root, err := project.Root()
	if err != nil {
		t.Fatal(err)
	}
	blocks := pythonBlocks(t, filepath.Join(root, "docs", "salsa.md"))
	var redraw, loader string
	for _, b := range blocks {
		switch {
		case strings.Contains(b, "def load_salsa"):
			loader = b
		case strings.Contains(b, "RandomState(["):
			redraw = b
		}
	}
	if redraw == "" || loader == "" {
		t.Fatalf("docs/salsa.md lacks the redrawing or the loading snippet (%d python blocks)", len(blocks))
	}
	run := func(dir, code string) []byte {
		t.Helper()
		cmd := exec.Command(py, "-W", "ignore", "-c", code)
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("the snippet failed: %v\n%s\n--- code:\n%s", err, stderr.Bytes(), code)
		}
		return out
	}

	out := run(t.TempDir(), redraw+"\nimport json\nprint(json.dumps(sorted([min(e), max(e)] for e in G.edges())))\n")
	var edges [][2]int
	if err := json.Unmarshal(out, &edges); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	set, _ := LookupSet("er_80")
	want, _, err := Sample("bfs", set, 0, 5, false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(edges, want.Graph.UndirectedEdges()) {
		t.Errorf("the redrawn graph has %d edges, narlab's sample %d", len(edges), len(want.Graph.UndirectedEdges()))
	}

	// The page's example: --algos bfs,fast_mis --sets train,er_16,delaunay_16 --count 100 --out data/salsa
	dir := t.TempDir()
	if _, err := Generate(context.Background(), Config{Out: filepath.Join(dir, "data", "salsa"), Algorithms: []string{"bfs", "fast_mis"},
		Sets: []string{"train", "er_16", "delaunay_16"}, Count: 100, Compress: true}); err != nil {
		t.Fatal(err)
	}
	check := `
import numpy as np
checked = 0
for file in ["bfs_train.npz", "bfs_er_16.npz", "bfs_delaunay_16.npz", "fast_mis_train.npz", "fast_mis_delaunay_16.npz"]:
    gs = load_salsa("data/salsa", file)
    z = np.load(os.path.join("data/salsa", file))
    assert len(gs) == 100, (file, len(gs))
    for b, g in enumerate(gs):
        n0, n1 = z["node_ptr"][b], z["node_ptr"][b + 1]
        e0, e1 = z["edge_ptr"][b], z["edge_ptr"][b + 1]
        n, T = n1 - n0, int(z["lengths"][b])
        assert g.num_nodes == n and g.edge_index.shape == (2, e1 - e0) and g.length == T
        assert np.array_equal(g.pos.numpy(), z["input/pos"][n0:n1].astype(np.float32))
        src, dst = z["edge_index"][:, e0:e1]
        if file.startswith("bfs"):
            pi = z["output/pi"][n0:n1]
            mask = g.pi.numpy()
            assert mask.shape == (e1 - e0,) and np.array_equal(np.nonzero(mask)[0], np.flatnonzero(pi[src] == dst))
            assert np.array_equal(np.bincount(src[mask == 1], minlength=n), np.ones(n))  # one pointer edge a node
            if "train" in file:
                assert g.reach_h.shape == (n, T) and g.pi_h.shape == (e1 - e0, T)
                assert np.array_equal(g.reach_h.numpy(), z["hint/reach_h"][:T, n0:n1].T)
            else:
                assert "reach_h" not in g
        else:
            assert g.randomness.shape == (n, T) and g.inmis.shape == (n,)
            if "train" in file:
                assert g.Ain_h.shape == (e1 - e0, T) and g.phase_h.shape == (1, T)
        checked += 1
print(checked)
`
	got := strings.TrimSpace(string(run(dir, loader+check)))
	if !strings.HasSuffix(got, "\n500") {
		t.Errorf("the loader snippet printed %q; want its own output, then 500 graphs checked", got)
	}
}
