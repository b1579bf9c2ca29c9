package sweep

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func validSpec() Spec {
	return Spec{Name: "t", Algorithms: []string{"bfs"}, Processors: []string{"mpnn"}, Seeds: []int64{1}, Executor: "local"}
}

func TestSpecValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Spec)
		want   string // a part of the error; "" for none
	}{
		{"valid", func(*Spec) {}, ""},
		{"valid slurm", func(s *Spec) {
			s.Executor = "slurm"
			s.Slurm = SlurmConfig{Partition: "gpu", Time: "1:00:00", Mem: "8G", GPUs: 1, Throttle: 4, Sbatch: []string{"--account=x"}}
		}, ""},
		{"no name", func(s *Spec) { s.Name = "" }, "name"},
		{"name with a slash", func(s *Spec) { s.Name = "a/b" }, "name"},
		{"no algorithms", func(s *Spec) { s.Algorithms = nil }, "no algorithms"},
		{"no seeds", func(s *Spec) { s.Seeds = nil }, "no seeds"},
		{"seed twice", func(s *Spec) { s.Seeds = []int64{1, 1} }, `seed 1 given twice`},
		{"negative seed", func(s *Spec) { s.Seeds = []int64{-1} }, "seed -1: want an integer 1..4294967295"},
		{"seed 0", func(s *Spec) { s.Seeds = []int64{0} }, "seed 0: want an integer 1..4294967295"},
		{"seed past 32 bits", func(s *Spec) { s.Seeds = []int64{1 << 32} }, "seed 4294967296"},
		{"time in words", func(s *Spec) { s.Slurm.Time = "forever" }, `time "forever": want one of sbatch's formats`},
		{"time with days", func(s *Spec) { s.Slurm.Time = "2-12:30" }, ""},
		{"time in minutes", func(s *Spec) { s.Slurm.Time = "90" }, ""},
		{"time unlimited", func(s *Spec) { s.Slurm.Time = "UNLIMITED" }, ""},
		{"mem in words", func(s *Spec) { s.Slurm.Mem = "lots" }, `mem "lots": want a size`},
		{"mem in megabytes", func(s *Spec) { s.Slurm.Mem = "4000" }, ""},
		{"mem with a unit", func(s *Spec) { s.Slurm.Mem = "1.5G" }, `mem "1.5G"`},
		{"processor with a space", func(s *Spec) { s.Processors = []string{"m pnn"} }, "processors"},
		{"unknown executor", func(s *Spec) { s.Executor = "kubernetes" }, "executor"},
		{"no executor", func(s *Spec) { s.Executor = "" }, "executor"},
		{"flag set by the sweep", func(s *Spec) { s.Flags = map[string]string{"dir": "x"} }, `flag "dir"`},
		{"varied flag set by the sweep", func(s *Spec) { s.Vary = map[string][]string{"seed": {"1"}} }, `vary "seed"`},
		{"tracking server set by the spec", func(s *Spec) { s.Flags = map[string]string{"tracking": "http://x"} }, `flag "tracking": set by --tracking`},
		{"old spelling of the tracking flag", func(s *Spec) { s.Flags = map[string]string{"tracking-uri": "http://x"} }, `flag "tracking-uri": set by --tracking`},
		{"logging turned off by the spec", func(s *Spec) { s.Vary = map[string][]string{"no-mlflow": {"true"}} }, `vary "no-mlflow": set by the sweep`},
		{"flag with dashes", func(s *Spec) { s.Flags = map[string]string{"--steps": "1"} }, "not a flag name"},
		{"both varied and fixed", func(s *Spec) {
			s.Flags = map[string]string{"hidden": "8"}
			s.Vary = map[string][]string{"hidden": {"8", "16"}}
		}, "both varied and fixed"},
		{"empty vary axis", func(s *Spec) { s.Vary = map[string][]string{"hidden": {}} }, "no vary hidden values"},
		{"array in extra sbatch", func(s *Spec) { s.Slurm.Sbatch = []string{"--array=0-3"} }, "sets the array"},
		{"sbatch line that is not an option", func(s *Spec) { s.Slurm.Sbatch = []string{"account=x"} }, "want one option"},
		{"shell in partition", func(s *Spec) { s.Slurm.Partition = "gpu;rm" }, ""},
		{"quote in mem", func(s *Spec) { s.Slurm.Mem = "8G'" }, "shell characters"},
		{"negative gpus", func(s *Spec) { s.Slurm.GPUs = -1 }, "negative"},
		{"zero parallel", func(s *Spec) { s.Local.Parallel = -2 }, "parallel"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := validSpec()
			tt.change(&s)
			err := s.Validate(nil)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.want != "" && err == nil:
				t.Fatalf("no error; want one about %q", tt.want)
			case tt.want != "" && !strings.Contains(err.Error(), tt.want):
				t.Fatalf("error %q; want it to mention %q", err, tt.want)
			}
		})
	}
}

// A ';' in a partition name is not a shell problem (it is not quoted in the
// script's #SBATCH lines, which bash does not run), and SLURM rejects the
// partition itself; the table above accepts it on purpose.

func TestSpecValidateChecksEveryCell(t *testing.T) {
	s := validSpec()
	s.Seeds = []int64{1, 2}
	s.Flags = map[string]string{"steps": "20"}
	var seen [][]string
	err := s.Validate(func(args []string) error {
		seen = append(seen, args)
		if args[len(args)-1] == "--steps=20" && args[5] == "2" {
			return fmt.Errorf("invalid value")
		}
		return nil
	})
	want := [][]string{
		{"--algo", "bfs", "--processor", "mpnn", "--seed", "1", "--steps=20"},
		{"--algo", "bfs", "--processor", "mpnn", "--seed", "2", "--steps=20"},
	}
	if !reflect.DeepEqual(seen, want) {
		t.Errorf("checked %q; want %q", seen, want)
	}
	if err == nil || !strings.Contains(err.Error(), "cell bfs-mpnn-s2") || !strings.Contains(err.Error(), "invalid value") {
		t.Errorf("error %v; want it to name cell bfs-mpnn-s2 and the check's error", err)
	}
}

func TestCells(t *testing.T) {
	s := Spec{Name: "t", Algorithms: []string{"bfs", "dfs"}, Processors: []string{"pgn"}, Seeds: []int64{7, 3},
		Vary: map[string][]string{"lr": {"0.01"}, "hidden": {"16", "8"}}, Flags: map[string]string{"steps": "5", "batch": "2"},
		Executor: "local"}
	if err := s.Validate(nil); err != nil {
		t.Fatal(err)
	}
	cells := s.Cells()
	var keys []string
	for i, c := range cells {
		if c.Index != i {
			t.Errorf("cell %d has index %d", i, c.Index)
		}
		keys = append(keys, c.Key)
	}
	wantKeys := []string{
		"bfs-pgn-s7-hidden=16-lr=0.01", "bfs-pgn-s7-hidden=8-lr=0.01",
		"bfs-pgn-s3-hidden=16-lr=0.01", "bfs-pgn-s3-hidden=8-lr=0.01",
		"dfs-pgn-s7-hidden=16-lr=0.01", "dfs-pgn-s7-hidden=8-lr=0.01",
		"dfs-pgn-s3-hidden=16-lr=0.01", "dfs-pgn-s3-hidden=8-lr=0.01",
	}
	if !reflect.DeepEqual(keys, wantKeys) {
		t.Errorf("keys\n%q\nwant\n%q", keys, wantKeys)
	}
	c := cells[5]
	wantArgs := []string{"--algo", "dfs", "--processor", "pgn", "--seed", "7", "--hidden=8", "--lr=0.01", "--batch=2", "--steps=5"}
	if !reflect.DeepEqual(c.Args, wantArgs) {
		t.Errorf("args %q; want %q", c.Args, wantArgs)
	}
	if c.Algorithm != "dfs" || c.Processor != "pgn" || c.Seed != 7 || c.Vary["hidden"] != "8" {
		t.Errorf("cell 5: %+v", c)
	}
	if m := c.Model(); m != "pgn hidden=8 lr=0.01" {
		t.Errorf("model %q", m)
	}
}

func TestID(t *testing.T) {
	base := validSpec()
	base.Flags = map[string]string{"steps": "20"}
	id := base.ID()
	if !strings.HasPrefix(id, "t-") || len(id) != len("t-")+8 {
		t.Errorf("id %q; want t- and 8 hex digits", id)
	}
	same := validSpec()
	same.Flags = map[string]string{"steps": "20"}
	same.Executor = "slurm"
	same.Slurm.Throttle = 9
	if same.ID() != id {
		t.Errorf("executor settings changed the id: %s vs %s", same.ID(), id)
	}
	for name, change := range map[string]func(*Spec){
		"flag value":     func(s *Spec) { s.Flags["steps"] = "21" },
		"another seed":   func(s *Spec) { s.Seeds = append(s.Seeds, 2) },
		"experiment":     func(s *Spec) { s.Experiment = "other" },
		"another name":   func(s *Spec) { s.Name = "u" },
		"a varied value": func(s *Spec) { s.Vary = map[string][]string{"hidden": {"8"}} },
	} {
		s := validSpec()
		s.Flags = map[string]string{"steps": "20"}
		change(&s)
		if s.ID()[2:] == id[2:] && name != "another name" || s.ID() == id {
			t.Errorf("%s: the id did not change (%s)", name, s.ID())
		}
	}
}

func TestReadSpec(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	os.WriteFile(good, []byte(`{"name": "s", "algorithms": ["bfs"], "processors": ["mpnn", "pgn"], "seeds": [1, 2],
		"flags": {"steps": "20"}, "executor": "slurm", "slurm": {"throttle": 2, "gpus": 1}}`), 0o644)
	s, err := ReadSpec(good)
	if err != nil {
		t.Fatal(err)
	}
	if s.Slurm.Throttle != 2 || s.Slurm.GPUs != 1 || len(s.Processors) != 2 || s.Flags["steps"] != "20" {
		t.Errorf("read %+v", s)
	}
	typo := filepath.Join(dir, "typo.json")
	os.WriteFile(typo, []byte(`{"name": "s", "algorithm": ["bfs"]}`), 0o644)
	if _, err := ReadSpec(typo); err == nil || !strings.Contains(err.Error(), "algorithm") {
		t.Errorf("a misspelt field: %v; want an error naming it", err)
	}
	if _, err := ReadSpec(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("a missing file: no error")
	}
}

func TestArrayRange(t *testing.T) {
	tests := []struct {
		idx  []int
		want string
	}{
		{[]int{0}, "0"},
		{[]int{0, 1, 2, 3}, "0-3"},
		{[]int{0, 2, 3, 4, 7, 9, 10}, "0,2-4,7,9-10"},
		{[]int{5, 6}, "5-6"},
	}
	for _, tt := range tests {
		if got := arrayRange(tt.idx); got != tt.want {
			t.Errorf("arrayRange(%v) = %q; want %q", tt.idx, got, tt.want)
		}
	}
}

func TestScript(t *testing.T) {
	s := validSpec()
	s.Executor = "slurm"
	s.Seeds = []int64{1, 2, 3, 4}
	s.Slurm = SlurmConfig{Partition: "gpu", Time: "02:00:00", Mem: "16G", CPUs: 4, GPUs: 2, Throttle: 3,
		Sbatch: []string{"--account=clrs", "--qos=high"}}
	if err := s.Validate(nil); err != nil {
		t.Fatal(err)
	}
	sw := &Sweep{ID: s.ID(), Spec: s, Cells: s.Cells(), Dir: "/shared/sw", Tracking: "http://mlflow.lab:5000",
		Narlab: "/opt/narlab/bin/narlab", Root: "/opt/narlab"}
	script, err := sw.Script([]Cell{sw.Cells[3], sw.Cells[0], sw.Cells[1]})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"#!/bin/bash\n",
		"#SBATCH --job-name=narlab-" + sw.ID + "\n",
		"#SBATCH --array=0-1,3%3\n",
		"#SBATCH --output=/shared/sw/logs/%x-%A_%a.out\n",
		"#SBATCH --partition=gpu\n", "#SBATCH --time=02:00:00\n", "#SBATCH --mem=16G\n",
		"#SBATCH --cpus-per-task=4\n", "#SBATCH --gres=gpu:2\n",
		"#SBATCH --account=clrs\n#SBATCH --qos=high\n",
		"#   3: bfs-mpnn-s4\n",
		"export MLFLOW_TRACKING_URI='http://mlflow.lab:5000'\n",
		"export NARLAB_ROOT='/opt/narlab'\n",
		"exec '/opt/narlab/bin/narlab' sweep cell --dir '/shared/sw' --index \"$SLURM_ARRAY_TASK_ID\"\n",
	} {
		if !strings.Contains(script, want) {
			t.Errorf("script lacks %q:\n%s", want, script)
		}
	}
	// Every #SBATCH line comes before the first command (sbatch stops
	// reading options there).
	lines := strings.Split(script, "\n")
	first := -1
	for i, l := range lines {
		if first < 0 && l != "" && !strings.HasPrefix(l, "#") {
			first = i
		}
		if first >= 0 && strings.HasPrefix(l, "#SBATCH") {
			t.Errorf("#SBATCH line %d after the first command (line %d)", i, first)
		}
	}
	if _, err := sw.Script(nil); err == nil {
		t.Error("a script of no cells: no error")
	}
}

func TestShellQuote(t *testing.T) {
	if got, want := shellQuote("it's"), `'it'\''s'`; got != want {
		t.Errorf("shellQuote = %s; want %s", got, want)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "holds no sweep") {
		t.Errorf("an empty directory: %v", err)
	}
	os.WriteFile(filepath.Join(dir, stateFile), []byte(`{"id": "x"}`), 0o644)
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "incomplete") {
		t.Errorf("an incomplete sweep.json: %v", err)
	}
}

func TestLockCell(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cells", "a.lock")
	f, err := lockCell(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lockCell(path); err != ErrCellBusy {
		t.Errorf("second lock: %v; want ErrCellBusy", err)
	}
	f.Close()
	g, err := lockCell(path)
	if err != nil {
		t.Errorf("lock after release: %v", err)
	} else {
		g.Close()
	}
}

// TestResubmitOtherOrder: the same grid given again with its algorithms in
// another order is a resubmission (the recorded cell order kept); a grid
// with other cells is refused.
func TestResubmitOtherOrder(t *testing.T) {
	dir := t.TempDir()
	first := validSpec()
	first.Algorithms = []string{"bfs", "dfs", "articulation_points"}
	sw, err := Plan(dir, &first, Options{Narlab: "/bin/true"})
	if err != nil {
		t.Fatal(err)
	}
	sw.Tracking, sw.ExperimentID, sw.ParentRunID = "http://127.0.0.1:1", "0", "p"
	if err := sw.save(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		algos []string
		want  string // a part of the error; "" for a resubmission
	}{
		{"same order", []string{"bfs", "dfs", "articulation_points"}, ""},
		{"sorted", []string{"articulation_points", "bfs", "dfs"}, ""},
		{"one fewer", []string{"bfs", "dfs"}, "a different grid"},
		{"another algorithm", []string{"bfs", "dfs", "bridges"}, "a different grid"},
	}
	for _, tt := range tests {
		again := validSpec()
		again.Algorithms = tt.algos
		got, err := Plan(dir, &again, Options{})
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want == "" && (got.ID != sw.ID || fmt.Sprint(got.Cells) != fmt.Sprint(sw.Cells)):
			t.Errorf("%s: sweep %s with cells %v; want the recorded %s, %v", tt.name, got.ID, got.Cells, sw.ID, sw.Cells)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: error %v; want %q", tt.name, err, tt.want)
		}
	}
}
