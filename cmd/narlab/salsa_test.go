package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/salsa"
)

// TestSalsaGenerate runs `narlab salsa generate` and checks that the
// manifest lists the files asked for, in order, and that each file holds
// exactly the archive the library writes for its algorithm and set.
func TestSalsaGenerate(t *testing.T) {
	t.Parallel()
	bin := narlabCLI(t)
	out := filepath.Join(t.TempDir(), "salsa")
	args := []string{"salsa", "generate", "--algos", "fast_mis,bfs", "--sets", "train,ws_80,delaunay_16", "--count", "7", "--seed", "3", "--out", out, "--quiet"}
	cmd := exec.Command(bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("narlab %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "wrote 6 files (42 samples)") {
		t.Errorf("stdout %q does not say what was written", stdout.String())
	}
	m, err := salsa.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	for _, algo := range []string{"fast_mis", "bfs"} {
		for _, name := range []string{"train", "ws_80", "delaunay_16"} {
			f := m.Files[i]
			i++
			if f.File != salsa.FileName(algo, name) || f.Samples != 7 || f.Hints != (name == "train") {
				t.Fatalf("manifest entry %+v, want %s on %s, 7 samples, hints only for train", f, algo, name)
			}
			set, _ := salsa.LookupSet(name)
			d, err := salsa.NewDataset(context.Background(), algo, set, 3, 7, name == "train", salsa.DatasetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			want := filepath.Join(t.TempDir(), "want.npz")
			if err := d.SaveNPZ(want, clrs.Compressed()); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(filepath.Join(out, f.File))
			if w, _ := os.ReadFile(want); !bytes.Equal(got, w) {
				t.Errorf("%s: the file differs from the library's archive", f.File)
			}
		}
	}
	raw, _ := os.ReadFile(filepath.Join(out, "manifest.json"))
	var generic map[string]any
	if err := json.Unmarshal(raw, &generic); err != nil || generic["seed"] != 3.0 {
		t.Errorf("manifest.json: %v, seed %v", err, generic["seed"])
	}
}

// TestSalsaGenerateBadInput checks that bad requests fail before any work,
// with a message naming the problem, and leave no output directory.
func TestSalsaGenerateBadInput(t *testing.T) {
	t.Parallel()
	bin := narlabCLI(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--algos", "bfx"}, `unknown algorithm "bfx"`},
		{[]string{"--sets", "er_17"}, `unknown set "er_17"`},
		{[]string{"--sets", "er-16"}, `unknown set "er-16"`},
		{[]string{"--algos", "bfs,bfs"}, "bfs is listed twice"},
		{[]string{"--sets", "val,"}, "--sets"},
		{[]string{"--algos", ""}, "--algos"},
		{[]string{"--seed", "4294967296"}, "--seed 4294967296: out of range"},
		{[]string{"--count", "-1"}, "--count -1"},
		{[]string{"--hints", "some"}, "--hints"},
		{[]string{"--algos", "dfs", "--sets", "er_1600", "--hints", "all"}, "dfs on er_1600 needs about"},
	} {
		out := filepath.Join(t.TempDir(), "out")
		args := append([]string{"salsa", "generate", "--out", out, "--quiet"}, c.args...)
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(bin, args...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if err == nil {
			t.Errorf("%v: exit 0, want an error", c.args)
			continue
		}
		if !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: stderr %q does not mention %q", c.args, stderr.String(), c.want)
		}
		if stdout.Len() != 0 {
			t.Errorf("%v: wrote to stdout: %q", c.args, stdout.String())
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: the failed run left its output directory", c.args)
		}
	}
	if msg, err := exec.Command(bin, "salsa", "generate").CombinedOutput(); err == nil || !strings.Contains(string(msg), "--out is required") {
		t.Errorf("no --out: %v, %q", err, msg)
	}
}

// TestSalsaSets lists the 17 sets.
func TestSalsaSets(t *testing.T) {
	var b bytes.Buffer
	old := stdout
	stdout = &b
	defer func() { stdout = old }()
	if err := salsaSets(nil); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 18 || !strings.HasPrefix(lines[1], "train ") || !strings.HasPrefix(lines[17], "delaunay_1600 ") {
		t.Errorf("salsa sets printed:\n%s", b.String())
	}
}

// TestSalsaGenerateInterruptLeavesNothing interrupts `salsa generate`
// once a file is in its batch: it exits 130 and leaves no file, no
// temporary file and not the output directory it made.
func TestSalsaGenerateInterruptLeavesNothing(t *testing.T) {
	bin := narlabCLI(t)
	out := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command(bin, "salsa", "generate", "--algos", "bfs", "--sets", "er_16,er_1600", "--out", out, "--quiet")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
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
		t.Fatalf("exit %v after SIGINT, want status 130:\n%s", err, stderr.String())
	}
	if ents, err := os.ReadDir(out); err == nil {
		t.Errorf("the interrupted run left its output directory with %d entries", len(ents))
	}
}
