package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestEveryNumericFlagHasABound runs every command with -h, collects its
// flags and checks that each numeric one has a documented range in
// flagBounds whose defaults lie inside it, and that every entry of the
// table names a real flag.
func TestEveryNumericFlagHasABound(t *testing.T) {
	seen, seenAll := map[string]bool{}, map[string]bool{}
	for _, c := range commands {
		var sets []*flag.FlagSet
		flagSetHook = func(fs *flag.FlagSet) { fs.SetOutput(io.Discard); sets = append(sets, fs) }
		_ = c.run([]string{"-h"})
		flagSetHook = nil
		for _, fs := range sets {
			fs.VisitAll(func(f *flag.Flag) {
				seenAll[fs.Name()+" --"+f.Name] = true
				v, _, ok := numeric(f)
				if !ok {
					return
				}
				key := fs.Name() + " --" + f.Name
				seen[key] = true
				b, known := flagBounds[key]
				if !known {
					t.Errorf("%s: numeric flag without a documented range in flagBounds", key)
					return
				}
				if b.noCheck || v == 0 && b.zero != "" || b.unset != "" {
					return
				}
				if v < b.min || v > b.max {
					t.Errorf("%s: default %s outside its own range %v..%v", key, f.DefValue, b.min, b.max)
				}
				if b.zero != "" && !strings.Contains(f.Usage, "0") {
					t.Errorf("%s: 0 means %q but the flag's help does not say so: %q", key, b.zero, f.Usage)
				}
			})
		}
	}
	for key := range fileFlags {
		if !seenAll[key] {
			t.Errorf("fileFlags names %q, which no command has", key)
		}
	}
	for key := range flagBounds {
		if !seen[key] {
			t.Errorf("flagBounds names %q, which no command has", key)
		}
	}
	for key := range listFlags {
		if !seenAll[key] {
			t.Errorf("listFlags names %q, which no command has", key)
		}
	}
}

// TestCheckListFlag checks that a list flag refuses empty items and items
// given twice (in one value or across repeats of a repeatable list), and
// that other flags and well-formed lists pass.
func TestCheckListFlag(t *testing.T) {
	tests := []struct {
		cmd  string
		args []string
		err  string // "" for no error
	}{
		{"clrs generate", []string{"--algos", "bfs,dfs"}, ""},
		{"clrs generate", []string{"--algos", " bfs , dfs "}, ""},
		{"clrs generate", []string{"--algos", "all"}, ""},
		{"clrs generate", []string{"--algos", "bfs,bfs"}, `--algos "bfs,bfs": bfs is listed twice; expected: algorithms`},
		{"clrs generate", []string{"--algos", "bfs, BFS"}, "BFS is listed twice"},
		{"clrs generate", []string{"--algos", "bfs,,dfs"}, `--algos "bfs,,dfs": item 2 is empty`},
		{"clrs generate", []string{"--algos", "bfs,"}, "item 2 is empty"},
		{"clrs generate", []string{"--algos", ",bfs"}, "item 1 is empty"},
		{"clrstext generate", []string{"--seeds", "3,14,3"}, "3 is listed twice"},
		{"sweep run", []string{"--seeds", "1", "--seeds", "2"}, ""},
		{"sweep run", []string{"--seeds", "1,2", "--seeds", "2"}, "2 is listed twice"},
		{"sweep run", []string{"--seeds", "1,,2"}, "item 2 is empty"},
		// not a list flag: a repeated length weighs it
		{"train", []string{"--train-lengths", "16,16,4"}, ""},
	}
	for _, tc := range tests {
		fs := flag.NewFlagSet(tc.cmd, flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.String("algos", "all", "algorithms")
		fs.String("train-lengths", "4,7", "lengths")
		if tc.cmd == "sweep run" {
			var seeds listFlag
			fs.Var(&seeds, "seeds", "seeds")
		} else {
			fs.String("seeds", "", "seeds")
		}
		_, err := parseFlags(fs, tc.args)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s %v: err = %v, want %q", tc.cmd, tc.args, err, tc.err)
		}
	}
}

func TestCheckFlag(t *testing.T) {
	tests := []struct {
		args []string
		err  string // "" for no error
	}{
		{[]string{"--length", "16"}, ""},
		{[]string{"--length", "0"}, "accepted 1..256"},
		{[]string{"--length", "-3"}, "accepted 1..256"},
		{[]string{"--length", "100000"}, "out of range"},
		{[]string{"--batch", "0"}, ""},
		{[]string{"--batch", "-1"}, "or 0 (print the whole set)"},
		{[]string{"--truncate-decimals", "-5"}, "accepted 1..15"},
	}
	for _, tc := range tests {
		fs := flag.NewFlagSet("clrs sample", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Int("length", 16, "")
		fs.Int("batch", 0, "")
		fs.Int("truncate-decimals", 0, "")
		_, err := parseFlags(fs, tc.args)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%v: err = %v, want %q", tc.args, err, tc.err)
		}
	}
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	fs.Float64("teacher-forcing", 0.5, "")
	for _, v := range []string{"NaN", "Inf", "-Inf", "+Inf"} {
		if _, err := parseFlags(fs, []string{"--teacher-forcing", v}); err == nil || !strings.Contains(err.Error(), "not a finite number") {
			t.Errorf("--teacher-forcing %s: %v", v, err)
		}
	}
}

// limitsDoc renders docs/limits.md from flagBounds, fileFlags and listFlags.
func limitsDoc() string {
	var b strings.Builder
	b.WriteString(`# Limits on what a user can give narlab

Every number a command takes is checked before the command does any work,
against the range below (` + "`cmd/narlab/limits.go`" + `); a value outside it, a
NaN or an infinity is an error that names the flag, the value, the accepted
range and where the limit comes from. Counts that multiply a measured size
(` + "`clrs sample`" + ` samples × the bytes of one sample) are also
checked against a memory budget of 128 MiB of data (about 400 MB resident
at the peak; with the 1.6 GiB of address space the Go runtime reserves, a
command stays within ` + "`ulimit -v 2097152`" + `); one ` + "`graphs prompts`" + ` run
writes at most 5,000,000 prompts (tasks × encodings × syntaxes × count ×
labelings × seeds; a prompt is 1–20 KB of JSON). Sizes of CLRS samples are
measured (above length 32, extrapolated from lengths 16 and 32), never
allocated to be checked. Graph JSON is limited to ` + "`n`" + ` ≤ 1000 nodes, n(n−1) edges and 64 MiB,
checked before anything is allocated; ` + "`clrs run`" + ` inputs to 16 MiB and 256
elements per dimension. Regenerate this file with
` + "`NARLAB_WRITE_LIMITS_DOC=1 go test ./cmd/narlab -run TestLimitsDoc`" + `.

| command and flag | accepted | 0 means | why |
|---|---|---|---|
`)
	keys := make([]string, 0, len(flagBounds))
	for k := range flagBounds {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		bd := flagBounds[k]
		rng := "any"
		if !bd.noCheck {
			kind := "integer"
			if strings.HasSuffix(k, "timeout") {
				kind = "duration"
			} else if bd.min != math.Trunc(bd.min) || bd.max != math.Trunc(bd.max) || bd.max == math.MaxFloat64 {
				kind = "number"
			}
			rng = formatBound(bd.min, kind) + " .. " + formatBound(bd.max, kind)
		}
		why := bd.why
		if bd.unset != "" {
			why += "; not given: " + bd.unset
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", k, rng, bd.zero, why)
	}
	b.WriteString("\nPaths are checked before any work too: inputs must exist and be readable, non-empty regular files (or directories where a\nfolder is accepted; `-` is standard input where the help says so), outputs must be creatable in a writable\ndirectory and must not be an existing directory (files) or file (directories).\n\n| command and flag | must be |\n|---|---|\n")
	names := map[fileKind]string{inFile: "a readable file", inFileStdin: "a readable file, or - (standard input)", inPath: "a readable file or directory",
		inDir: "a readable directory", outFile: "a writable file", outFileStdout: "a writable file, or - (standard output)", outDir: "a writable directory (created if needed)"}
	keys = keys[:0]
	for k := range fileFlags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "| `%s` | %s |\n", k, names[fileFlags[k]])
	}
	b.WriteString("\nLists (comma-separated) are checked the same way: an empty item (`bfs,,dfs`, `bfs,`) or an item given twice\n" +
		"(letter case aside; for encodings and syntaxes also a code and a name of the same one, and for graph tasks a task\n" +
		"and its category) is an error naming it, since it would do the work twice and write duplicate rows, files or\n" +
		"runs. `train --train-lengths` is not such a list: its lengths are cycled in order, so repeating one weighs it.\n\n" +
		"| command and flag |\n|---|\n")
	keys = keys[:0]
	for k := range listFlags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "| `%s` |\n", k)
	}
	return b.String()
}

// TestLimitsDoc keeps docs/limits.md in step with the limits the commands
// enforce.
func TestLimitsDoc(t *testing.T) {
	p := filepath.Join("..", "..", "docs", "limits.md")
	want := limitsDoc()
	if os.Getenv("NARLAB_WRITE_LIMITS_DOC") != "" {
		if err := os.WriteFile(p, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("docs/limits.md is out of date; regenerate it with NARLAB_WRITE_LIMITS_DOC=1 go test ./cmd/narlab -run TestLimitsDoc")
	}
}
