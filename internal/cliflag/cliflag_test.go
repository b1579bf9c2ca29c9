package cliflag

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// newSet is a command "demo run" with one flag of each kind the rules
// check.
func newSet() *flag.FlagSet {
	fs := flag.NewFlagSet("demo run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Int("steps", 100, "training steps")
	fs.Int("count", 0, "rows (0: all)")
	fs.Float64("lr", 1e-3, "learning rate")
	fs.Int64("seed", 1, "seed")
	fs.String("algos", "bfs", "algorithms")
	fs.String("input", "", "input file")
	fs.String("out", "", "output file")
	fs.String("dir", "", "output directory")
	return fs
}

var testRules = Rules{
	Bounds: func(key string) (Bound, bool) {
		b, ok := map[string]Bound{
			"demo run --steps": {Min: 1, Max: 1000, Why: "steps"},
			"demo run --count": {Min: 1, Max: 10, Zero: "all", Why: "rows"},
			"demo run --lr":    {Min: 0, Max: 10, Why: "a rate"},
			"demo run --seed":  {NoCheck: true},
		}[key]
		return b, ok
	},
	Files: map[string]FileKind{"demo run --input": InFile, "demo run --out": OutFile, "demo run --dir": OutDir},
	Lists: map[string]bool{"demo run --algos": true},
}

func TestRulesCheck(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(in, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.jsonl")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		err  string // "" for none
	}{
		{[]string{"--steps", "10", "--count", "0", "--seed", "-5", "--algos", "bfs,dfs", "--input", in, "--out", filepath.Join(dir, "o.jsonl")}, ""},
		{[]string{"--steps", "0"}, "--steps 0: out of range; accepted 1..1000 (steps)"},
		{[]string{"--steps", "5000"}, "--steps 5000: out of range; accepted 1..1000 (steps)"},
		{[]string{"--count", "11"}, "accepted 1..10, or 0 (all) (rows)"},
		{[]string{"--lr", "NaN"}, "--lr NaN: not a finite number"},
		{[]string{"--algos", "bfs,,dfs"}, `--algos "bfs,,dfs": item 2 is empty`},
		{[]string{"--algos", "bfs,BFS"}, "BFS is listed twice"},
		{[]string{"--algos", ""}, `--algos "": empty value`},
		{[]string{"--input", filepath.Join(dir, "missing")}, "no such file or directory"},
		{[]string{"--input", empty}, "the file is empty"},
		{[]string{"--input", dir}, "not a regular file"},
		{[]string{"--out", dir}, "is a directory; expected a file name"},
		{[]string{"--dir", in}, "is a file; expected a directory"},
		{[]string{"--input", in, "--out", in}, "is the file --input reads"},
	} {
		fs := newSet()
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		err := testRules.Check(fs)
		if (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%v: %v; want %q", tc.args, err, tc.err)
		}
	}
}

func TestUsageChoice(t *testing.T) {
	fs := flag.NewFlagSet("demo run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.String("dir", "", "the directory (required)")
	fs.Int("steps", 100, "training steps")
	format := Choice(fs, "format", "text", "output format", "text", "json")
	var b strings.Builder
	PrintUsage(&b, "narlab", fs)
	u := b.String()
	for _, want := range []string{"usage: narlab demo run --dir STRING [flags]\n", "  --format string\n    \toutput format (accepted: text, json) (default text)\n",
		"  --steps int\n    \ttraining steps (default 100)\n"} {
		if !strings.Contains(u, want) {
			t.Errorf("usage lacks %q:\n%s", want, u)
		}
	}
	if err := fs.Parse([]string{"--format", "json"}); err != nil || *format != "json" {
		t.Errorf("--format json: %v, format %q", err, *format)
	}
	if err := fs.Parse([]string{"--format", "yaml"}); err == nil || !strings.Contains(err.Error(), `"yaml" is not accepted; accepted: text, json`) {
		t.Errorf("--format yaml: %v", err)
	}
}

func TestFormatBound(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		kind string
		want string
	}{{1, "integer", "1"}, {1e-3, "number", "0.001"}, {1.5e20, "number", "1.5e+20"}, {4e9, "duration", "4s"}} {
		if got := FormatBound(tc.x, tc.kind); got != tc.want {
			t.Errorf("FormatBound(%v, %s) = %q; want %q", tc.x, tc.kind, got, tc.want)
		}
	}
}
