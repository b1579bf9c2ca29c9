package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/narlab/narlab/internal/testenv"
	"github.com/narlab/narlab/lib/clrs"
)

var (
	cliOnce sync.Once
	cliPath string
	cliErr  error
)

// TestMain removes the binary narlabCLI built and stops the local MLflow
// server of sharedLocalData once the tests are done.
func TestMain(m *testing.M) {
	testenv.Main(m, func() {
		if localData != "" {
			if _, err := testenv.StopServers(localData); err != nil {
				fmt.Fprintln(os.Stderr, "stopping the shared local MLflow server:", err)
			}
			os.RemoveAll(localData)
		}
		if cliPath != "" {
			os.RemoveAll(filepath.Dir(cliPath))
		}
	})
}

var (
	localOnce sync.Once
	localData string
	localErr  error
)

// sharedLocalData is a data directory that the score tests share as
// NARLAB_DATA, with MLFLOW_TRACKING_URI unset: the first command that logs
// starts narlab's local MLflow server there, as a user's first command
// does, and the later ones find it running and log to it, as a user's next
// commands do (one server start for the package, not one per test). Each
// test logs to its own experiment and reads back the run it made; TestMain
// stops the server.
func sharedLocalData(t *testing.T) string {
	t.Helper()
	localOnce.Do(func() { localData, localErr = os.MkdirTemp("", "narlab-cli-local-") })
	if localErr != nil {
		t.Fatal(localErr)
	}
	return localData
}

// narlabCLI builds the narlab binary once, so the tests below see exactly
// what a user sees: the exit status and the messages on stderr.
func narlabCLI(t *testing.T) string {
	t.Helper()
	cliOnce.Do(func() {
		dir, err := os.MkdirTemp("", "narlab-cli")
		if err != nil {
			cliErr = err
			return
		}
		cliPath = filepath.Join(dir, "narlab")
		out, err := exec.Command("go", "build", "-o", cliPath, ".").CombinedOutput()
		if err != nil {
			cliErr = err
			t.Logf("%s", out)
		}
	})
	if cliErr != nil {
		t.Fatalf("building narlab: %v", cliErr)
	}
	return cliPath
}

// TestClrsRunInputs runs `narlab clrs run` on good and bad inputs: a bad
// input must exit non-zero with a message that names the problem, and
// print nothing on stdout.
func TestClrsRunInputs(t *testing.T) {
	t.Parallel()
	bin := narlabCLI(t)
	cases := []struct {
		name, algo, input string
		wantErr           []string // substrings of stderr; nil: must succeed
		wantOut           string   // substring of stdout on success
	}{
		{"insertion_sort ok", "insertion_sort", `{"key": [0.5, 0.2, 0.4, 0.3, 0.1]}`, nil, `"algorithm":"insertion_sort"`},
		{"bfs ok", "bfs", `{"A": [[0,1,0],[1,0,1],[0,1,0]], "s": 0}`, nil, `"pi"`},
		{"unknown algorithm", "bogo_sort", `{"key": [1]}`, []string{"bogo_sort"}, ""},
		{"not JSON", "insertion_sort", `[1, 2`, []string{"not a JSON object"}, ""},
		{"missing argument", "bfs", `{"A": [[0,1],[1,0]]}`, []string{`missing argument "s"`}, ""},
		{"unsorted binary search", "binary_search", `{"x": 0.5, "A": [0.1, 0.3, 0.2, 0.4]}`, []string{"not sorted"}, ""},
		{"non-square adjacency", "bellman_ford", `{"A": [[0,1,0],[1,0]], "s": 0}`, []string{"must be square"}, ""},
		{"source out of range", "dijkstra", `{"A": [[0,1],[1,0]], "s": 5}`, []string{"source node 5 is out of range"}, ""},
		{"negative weight", "dijkstra", `{"A": [[0,-1],[-1,0]], "s": 0}`, []string{"negative"}, ""},
		{"cycle for topological sort", "topological_sort", `{"A": [[0,1,0],[0,0,1],[1,0,0]]}`, []string{"cycle", "acyclic"}, ""},
		{"cycle for DAG shortest paths", "dag_shortest_paths", `{"A": [[0,1],[1,0]], "s": 0}`, []string{"cycle"}, ""},
		{"segments need four points", "segments_intersect", `{"xs": [0, 1, 2], "ys": [0, 1, 2]}`, []string{"want exactly 4"}, ""},
		{"points of unequal length", "graham_scan", `{"xs": [0, 1, 2], "ys": [0, 1]}`, []string{"different lengths"}, ""},
		{"wrong shape", "insertion_sort", `{"key": [[1, 2], [3, 4]]}`, []string{"argument key", "want array of numbers"}, ""},
		{"graph over the length bound", "floyd_warshall", `{"A": ` + zeroMatrix(300) + `}`,
			[]string{"argument A: has 300 elements; accepted at most 256 per dimension", "memory budget"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := filepath.Join(t.TempDir(), "in.json")
			if err := os.WriteFile(in, []byte(c.input), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, "clrs", "run", "--algo", c.algo, "--input", in)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			if c.wantErr == nil {
				if err != nil {
					t.Fatalf("exit %v; stderr: %s", err, errb.String())
				}
				if !strings.Contains(out.String(), c.wantOut) {
					t.Fatalf("stdout lacks %q: %.300s", c.wantOut, out.String())
				}
				return
			}
			if err == nil {
				t.Fatalf("exit status 0 for a bad input; stdout: %.300s", out.String())
			}
			if out.Len() != 0 {
				t.Errorf("bad input wrote to stdout: %.300s", out.String())
			}
			for _, w := range c.wantErr {
				if !strings.Contains(errb.String(), w) {
					t.Errorf("stderr %q does not mention %q", errb.String(), w)
				}
			}
		})
	}
}

// TestClrsGenerateWritesEveryFileInOrder runs `narlab clrs generate` (which
// writes several files at once) and checks that the manifest lists the
// files in the order asked for, with the split's settings, and that each
// file holds exactly the archive the library writes for that split.
func TestClrsGenerateWritesEveryFileInOrder(t *testing.T) {
	t.Parallel()
	bin := narlabCLI(t)
	algos := []string{"insertion_sort", "bfs", "minimum", "binary_search", "lcs_length"}
	for _, tc := range []struct {
		name  string
		flags []string
		opts  []clrs.NPZOption
	}{
		{"compressed, the default", nil, []clrs.NPZOption{clrs.Compressed()}},
		{"stored", []string{"--compress=false"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			args := append([]string{"clrs", "generate", "--split", "val", "--algos", strings.Join(algos, ","), "--out", out, "--quiet"}, tc.flags...)
			if msg, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
				t.Fatalf("narlab %s: %v\n%s", strings.Join(args, " "), err, msg)
			}
			raw, err := os.ReadFile(filepath.Join(out, "manifest.json"))
			if err != nil {
				t.Fatal(err)
			}
			var m clrs.Manifest
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Fatal(err)
			}
			if m.Compressed != (len(tc.opts) > 0) {
				t.Errorf("manifest says compressed=%v, want %v", m.Compressed, len(tc.opts) > 0)
			}
			if len(m.Files) != len(algos) {
				t.Fatalf("manifest lists %d files, want %d", len(m.Files), len(algos))
			}
			for i, algo := range algos {
				f := m.Files[i]
				set, err := clrs.CLRS30Split(algo, "val")
				if err != nil {
					t.Fatal(err)
				}
				if f.Algorithm != algo || f.File != algo+"_val.npz" || f.NumSamples != set.NumSamples || f.Seed != set.Seed || f.Length != set.Length {
					t.Errorf("manifest entry %d = %+v, want %s with the val split's settings %+v", i, f, algo, set)
				}
				s, err := clrs.NewSplitSampler(algo, "val")
				if err != nil {
					t.Fatal(err)
				}
				want := filepath.Join(t.TempDir(), "want.npz")
				if err := clrs.SaveTrajectoriesNPZ(want, s.Trajectories(), tc.opts...); err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(filepath.Join(out, f.File))
				if err != nil {
					t.Fatal(err)
				}
				if wantBytes, _ := os.ReadFile(want); !bytes.Equal(got, wantBytes) {
					t.Errorf("%s: %d bytes differ from the library's archive of the split (%d bytes)", f.File, len(got), len(wantBytes))
				}
			}
		})
	}
}

// TestClrsGenerateInterruptLeavesNothing interrupts `clrs generate` once
// it has written files into its batch: it exits 130 (after SIGINT) and
// leaves neither a file nor a temporary file, nor the output directory it
// made; over an existing directory, the files there are untouched.
func TestClrsGenerateInterruptLeavesNothing(t *testing.T) {
	bin := narlabCLI(t)
	for _, existing := range []bool{false, true} {
		parent := t.TempDir()
		out := filepath.Join(parent, "out")
		keep := filepath.Join(out, "bfs_train.npz")
		if existing {
			if err := os.MkdirAll(out, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(keep, []byte("an older file"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command(bin, "clrs", "generate", "--split", "all", "--compress=false", "--out", out, "--quiet")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait for the first temporary file: the batch holds written files.
		deadline := time.Now().Add(60 * time.Second)
		for {
			ents, _ := os.ReadDir(out)
			if slices.ContainsFunc(ents, func(e os.DirEntry) bool { return strings.Contains(e.Name(), ".tmp-") }) {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatalf("no file written within 60 s:\n%s", stderr.String())
			}
			time.Sleep(5 * time.Millisecond)
		}
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Fatalf("existing=%v: exit %v after SIGINT, want status 130:\n%s", existing, err, stderr.String())
		}
		ents, err := os.ReadDir(out)
		switch {
		case !existing && err == nil:
			names := []string{}
			for _, e := range ents {
				names = append(names, e.Name())
			}
			t.Errorf("the interrupted run left its output directory, holding %v", names)
		case existing:
			if len(ents) != 1 {
				t.Errorf("the interrupted run left %d entries in the existing directory, want only the older file", len(ents))
			}
			if b, _ := os.ReadFile(keep); string(b) != "an older file" {
				t.Errorf("the older file now holds %d bytes, want it untouched", len(b))
			}
		}
	}
}

// TestClrsGenerateRerunRemovesKilledTemps kills `clrs generate` with
// SIGKILL once it has written temporary files (it cannot clean up), then
// reruns it into the same directory: the rerun removes what the killed
// run left, and writes its own files.
func TestClrsGenerateRerunRemovesKilledTemps(t *testing.T) {
	bin := narlabCLI(t)
	out := filepath.Join(t.TempDir(), "out")
	temps := func() []string {
		ents, _ := os.ReadDir(out)
		var names []string
		for _, e := range ents {
			if strings.Contains(e.Name(), ".tmp-") {
				names = append(names, e.Name())
			}
		}
		return names
	}
	cmd := exec.Command(bin, "clrs", "generate", "--split", "all", "--compress=false", "--out", out, "--quiet")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for len(temps()) == 0 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no temporary file within 60 s:\n%s", stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	left := temps()
	if len(left) == 0 {
		t.Fatal("the killed run left no temporary file: nothing to test")
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"another split and algorithm", []string{"--split", "val", "--algos", "minimum"}},
		{"again, nothing left", []string{"--split", "val", "--algos", "minimum"}},
	} {
		args := append([]string{"clrs", "generate", "--out", out, "--quiet"}, tc.args...)
		if msg, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
			t.Fatalf("%s: rerun: %v\n%s", tc.name, err, msg)
		}
		if got := temps(); len(got) > 0 {
			t.Errorf("%s: after the rerun, %v are still there (the killed run left %v)", tc.name, got, left)
		}
		if _, err := os.Stat(filepath.Join(out, "minimum_val.npz")); err != nil {
			t.Errorf("%s: the rerun's file: %v", tc.name, err)
		}
	}
}

// zeroMatrix is an n×n JSON matrix of zeros.
func zeroMatrix(n int) string {
	row := "[" + strings.TrimSuffix(strings.Repeat("0,", n), ",") + "]"
	return "[" + strings.TrimSuffix(strings.Repeat(row+",", n), ",") + "]"
}
