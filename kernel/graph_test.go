package kernel

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/narlab/narlab/internal/fsutil"
	"github.com/narlab/narlab/lib/clrs"
)

// TestGraphTrajectoryFigure draws BFS and DFS on a small graph and checks
// the PNG is notebook-sized; other algorithms are refused.
func TestGraphTrajectoryFigure(t *testing.T) {
	A := clrs.NewMatrix(5)
	A.Int = true
	for _, e := range [][2]int{{0, 1}, {1, 2}, {2, 3}, {0, 2}} {
		A.Set(e[0], e[1], 1)
		A.Set(e[1], e[0], 1)
	}
	for _, tc := range []struct {
		algo string
		args clrs.Args
	}{
		{"bfs", clrs.Args{A, 0}},
		{"dfs", clrs.Args{A}},
	} {
		t.Run(tc.algo, func(t *testing.T) {
			tr, err := clrs.Run(tc.algo, tc.args)
			if err != nil {
				t.Fatal(err)
			}
			f, err := GraphTrajectoryFigure(tr)
			if err != nil {
				t.Fatal(err)
			}
			b, err := f.PNG()
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if w := img.Bounds().Dx(); w < 700 {
				t.Errorf("%s figure is %d px wide, want ≥ 700", tc.algo, w)
			}
			if dir := os.Getenv("NARLAB_FIGURE_DIR"); dir != "" {
				// To look at the figures: NARLAB_FIGURE_DIR=/tmp/figs go test -run GraphTrajectory ./kernel
				if err := fsutil.WriteFile(filepath.Join(dir, tc.algo+".png"), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
	tr, err := clrs.InsertionSort([]float64{3, 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := GraphTrajectoryFigure(tr); err == nil {
		t.Error("insertion_sort: want an error (no adjacency to draw)")
	}
}

// TestTrajectoryFigureSize checks insertion sort's Figure 2 drawing is
// notebook-sized.
func TestTrajectoryFigureSize(t *testing.T) {
	tr, err := clrs.InsertionSort([]float64{5, 2, 4, 3, 1})
	if err != nil {
		t.Fatal(err)
	}
	f, err := TrajectoryFigure(tr)
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.PNG()
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if w := img.Bounds().Dx(); w < 700 {
		t.Errorf("insertion sort figure is %d px wide, want ≥ 700", w)
	}
	if dir := os.Getenv("NARLAB_FIGURE_DIR"); dir != "" {
		if err := fsutil.WriteFile(filepath.Join(dir, "insertion_sort.png"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
