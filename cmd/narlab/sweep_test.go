package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Bad sweeps and server settings fail with a clear error before anything
// is written, submitted or started. (The sweeps themselves run in
// package sweep's tests, against a real SLURM cluster and MLflow on
// PostgreSQL.)
func TestSweepAndServeRejectBadInput(t *testing.T) {
	t.Setenv("MLFLOW_TRACKING_URI", "http://127.0.0.1:9") // never reached: every case fails before
	grid := []string{"--algos", "bfs", "--processors", "mpnn", "--seeds", "1,2"}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"bad train value", append(append([]string{"sweep", "run"}, grid...), "--set", "steps=many"), `invalid value "many" for flag -steps`},
		{"unknown train flag", append(append([]string{"sweep", "run"}, grid...), "--vary", "widht=8,16"), "flag provided but not defined: -widht"},
		{"flag the sweep sets", append(append([]string{"sweep", "run"}, grid...), "--set", "dir=/tmp"), `flag "dir": set by the sweep directory`},
		{"seed not a number", []string{"sweep", "run", "--algos", "bfs", "--processors", "mpnn", "--seeds", "one"}, `"one" is not an integer`},
		{"negative seed", []string{"sweep", "run", "--algos", "bfs", "--processors", "mpnn", "--seeds", "-1"}, "seed -1: want an integer 1..4294967295"},
		{"unknown algorithm", []string{"sweep", "run", "--algos", "nope", "--processors", "mpnn", "--seeds", "1"}, `unknown --algo "nope"`},
		{"unknown processor", []string{"sweep", "run", "--algos", "bfs", "--processors", "nope", "--seeds", "1"}, `unknown --processor "nope"`},
		{"train value out of range", append(append([]string{"sweep", "run"}, grid...), "--set", "steps=0"), "--steps 0: out of range"},
		{"slurm time in words", append(append([]string{"sweep", "run"}, grid...), "--time", "forever"), `time "forever"`},
		{"slurm mem in words", append(append([]string{"sweep", "run"}, grid...), "--mem", "lots"), `mem "lots"`},
		{"malformed tracking server", append(append([]string{"sweep", "run"}, grid...), "--tracking", "ht!tp://::"), "--tracking: mlflow: tracking URI"},
		{"unknown algorithm, dry run", []string{"sweep", "run", "--algos", "nope", "--processors", "mpnn", "--seeds", "1", "--dry-run"}, `unknown --algo "nope"`},
		{"spec and grid flags", append([]string{"sweep", "run", "--spec", "x.json"}, grid...), "not both"},
		{"no grid, no sweep", []string{"sweep", "run"}, "holds no sweep"},
		{"unknown executor", append(append([]string{"sweep", "run"}, grid...), "--executor", "pbs"), `executor "pbs"`},
		{"status of nothing", []string{"sweep", "status"}, "holds no sweep"},
		{"report of nothing", []string{"sweep", "report"}, "holds no sweep"},
		{"cell of nothing", []string{"sweep", "cell", "--index", "0"}, "holds no sweep"},
		{"train tag without a value", []string{"train", "--algo", "bfs", "--tag", "narlab.sweep.id"}, "invalid usage"},
		{"serve without artifacts", []string{"mlflow", "serve", "--backend-store", "postgresql://u@h/db"}, "--artifacts are required"},
		{"serve on a file store", []string{"mlflow", "serve", "--backend-store", "/tmp/mlruns", "--artifacts", "ART"}, "want a database URI"},
		{"serve state dir under a file", []string{"mlflow", "serve", "--backend-store", "postgresql://u@h/db", "--artifacts", "ART", "--dir", "/dev/null/x"}, "--dir: output directory /dev/null/x"},
		{"serve on a bad port", []string{"mlflow", "serve", "--backend-store", "postgresql://u@h/db", "--artifacts", "ART", "--port", "70000"}, "port 70000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "sweep")
			args := append([]string(nil), tt.args...)
			for i, a := range args {
				if a == "ART" {
					args[i] = filepath.Join(dir, "artifacts")
				}
			}
			if args[0] == "sweep" {
				args = append(args, "--dir", dir)
			}
			err := run(args)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("narlab %s: %v; want an error with %q", strings.Join(args, " "), err, tt.want)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("%s was created (%v); nothing should be written", dir, err)
			}
		})
	}
}

// --dry-run prints the whole grid's job script and writes nothing.
func TestSweepDryRun(t *testing.T) {
	t.Setenv("MLFLOW_TRACKING_URI", "http://mlflow.lab:5000")
	dir := filepath.Join(t.TempDir(), "fig3")
	var out strings.Builder
	stdout = &out
	defer func() { stdout = os.Stdout }()
	err := run([]string{"sweep", "run", "--dir", dir, "--algos", "bfs,dfs", "--processors", "mpnn", "--seeds", "1,2,3",
		"--set", "steps=100", "--gpus", "1", "--throttle", "4", "--sbatch=--account=clrs", "--dry-run"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"#SBATCH --array=0-5%4\n", "#SBATCH --gres=gpu:1\n", "#SBATCH --account=clrs\n",
		"#   5: dfs-mpnn-s3\n", "export MLFLOW_TRACKING_URI='http://mlflow.lab:5000'\n", "sweep cell --dir '" + dir + "'"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("script lacks %q:\n%s", want, out.String())
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("--dry-run created %s (%v)", dir, err)
	}
}

// --algos all is the 30 CLRS-30 algorithms, one cell each.
func TestSweepAllAlgorithms(t *testing.T) {
	t.Setenv("MLFLOW_TRACKING_URI", "http://mlflow.lab:5000")
	var out strings.Builder
	stdout = &out
	defer func() { stdout = os.Stdout }()
	err := run([]string{"sweep", "run", "--dir", filepath.Join(t.TempDir(), "all"), "--algos", "all",
		"--processors", "triplet_gmpnn", "--seeds", "42", "--dry-run"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"#SBATCH --array=0-29\n", ": activity_selector-triplet_gmpnn-s42\n",
		": topological_sort-triplet_gmpnn-s42\n", ": bubble_sort-triplet_gmpnn-s42\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("script lacks %q:\n%s", want, out.String())
		}
	}
}
