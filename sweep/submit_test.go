package sweep

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestGridSpec(t *testing.T) {
	tests := []struct {
		name string
		g    Grid
		want Spec
		err  string
	}{
		{"axes, set and vary", Grid{Algorithms: []string{"bfs"}, Processors: []string{"mpnn", "pgn"}, Seeds: []string{"1", "2"},
			Set: []string{"steps=500", "--batch=8"}, Vary: []string{"hidden=64, 128"}},
			Spec{Algorithms: []string{"bfs"}, Processors: []string{"mpnn", "pgn"}, Seeds: []int64{1, 2}, Executor: "slurm",
				Flags: map[string]string{"steps": "500", "batch": "8"}, Vary: map[string][]string{"hidden": {"64", "128"}}}, ""},
		{"seed in words", Grid{Seeds: []string{"one"}}, Spec{}, `--seeds: "one" is not an integer`},
		{"set without a value", Grid{Set: []string{"steps"}}, Spec{}, `--set "steps": want flag=value`},
		{"set twice", Grid{Set: []string{"steps=1", "--steps=2"}}, Spec{}, "--set --steps given twice"},
		{"vary without values", Grid{Vary: []string{"hidden"}}, Spec{}, `--vary "hidden": want flag=v1,v2`},
		{"vary with an empty value", Grid{Vary: []string{"hidden=64,"}}, Spec{}, "item 2 is empty"},
		{"vary with a value twice", Grid{Vary: []string{"processor=MPNN,mpnn"}}, Spec{}, "mpnn is listed twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.g.Spec()
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v; want one with %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("spec %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestRequestSpec: a new grid takes its name from the directory unless
// named, the executor settings given replace the grid's and only those;
// a resubmission keeps the grid in the directory and refuses grid
// settings.
func TestRequestSpec(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mysweep")
	grid := &Grid{Algorithms: []string{"bfs"}, Processors: []string{"mpnn"}, Seeds: []string{"1"}}
	exec := Executor{Executor: "local", Slurm: SlurmConfig{Time: "01:00:00", GPUs: 2}, Local: LocalConfig{Parallel: 3},
		Given: map[string]bool{"executor": true, "gpus": true}}
	s, err := Request{Dir: dir, Grid: grid, Executor: exec}.spec()
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "mysweep" || s.Executor != "local" || s.Slurm.GPUs != 2 || s.Slurm.Time != "" || s.Local.Parallel != 0 {
		t.Errorf("spec %+v: want name mysweep, executor local, 2 GPUs, and nothing else given", s)
	}
	if s, err := (Request{Dir: dir, Grid: grid, Name: "other", Experiment: "e"}).spec(); err != nil || s.Name != "other" || s.Experiment != "e" {
		t.Errorf("named: %+v, %v", s, err)
	}
	file := filepath.Join(t.TempDir(), "spec.json")
	if err := os.WriteFile(file, []byte(`{"name": "fromfile", "algorithms": ["bfs"], "processors": ["mpnn"], "seeds": [1], "executor": "slurm"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err := (Request{Dir: dir, SpecFile: file}).spec(); err != nil || s.Name != "fromfile" {
		t.Errorf("from a file: %+v, %v; want the file's name", s, err)
	}
	for _, tt := range []struct {
		name string
		r    Request
		err  string
	}{
		{"file and grid", Request{Dir: dir, SpecFile: file, Grid: grid}, "not both"},
		{"resubmission with a name", Request{Dir: dir, Name: "x"}, "part of the grid"},
		{"resubmission of nothing", Request{Dir: dir}, "holds no sweep"},
	} {
		if _, err := tt.r.spec(); err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: error %v; want one with %q", tt.name, err, tt.err)
		}
	}
}
