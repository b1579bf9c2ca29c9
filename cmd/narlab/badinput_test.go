package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBadInput feeds every command classes of bad input, as a careless or
// hostile user would, and checks what the user sees: a non-zero exit, a
// message naming the problem (and the accepted range where there is one),
// no Go panic or runtime crash, within 30 s and 2 GiB of address space.
func TestBadInput(t *testing.T) {
	bin := narlabCLI(t)
	tmp := t.TempDir()
	file := filepath.Join(tmp, "file")
	dir := filepath.Join(tmp, "dir")
	empty := filepath.Join(tmp, "empty.jsonl")
	os.WriteFile(file, []byte("not json\n"), 0o644)
	os.Mkdir(dir, 0o755)
	os.WriteFile(empty, nil, 0o644)
	under := filepath.Join(file, "sub") // a path below a regular file can never be created
	missing := filepath.Join(tmp, "missing")
	graph := func(name, s string) string {
		p := filepath.Join(tmp, name+".json")
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	g5 := graph("g5", `{"n": 3, "edges": [[1, 2], [2, 3]]}`)
	huge := graph("huge", `{"n": 9223372036854775807, "edges": []}`)
	big := graph("big", `{"n": 100000000, "edges": [[1, 2]]}`)

	type tc struct {
		name  string
		args  []string
		stdin string
		want  []string // substrings of stderr, all required
	}
	tests := []tc{
		// unknown names
		{"unknown command", []string{"nosuch"}, "", []string{`unknown command "nosuch"`}},
		{"unknown subcommand", []string{"clrs", "nosuch"}, "", []string{`unknown command "clrs" "nosuch"`}},
		{"unknown flag", []string{"clrs", "sample", "--nosuch", "1"}, "", []string{"flag provided but not defined: -nosuch"}},
		{"unknown algorithm", []string{"clrs", "sample", "--algo", "nosuch"}, "", []string{`unknown algorithm "nosuch"`, "insertion_sort"}},
		{"unknown format", []string{"clrs", "sample", "--algo", "bfs", "--format", "xml"}, "", []string{`--format "xml"`, "reference-json, text or npz"}},
		{"npz to stdout", []string{"clrs", "sample", "--algo", "bfs", "--format", "npz"}, "", []string{"--format npz writes a file", "--out FILE.npz"}},
		{"npz of transformed samples", []string{"clrs", "sample", "--algo", "insertion_sort", "--format", "npz", "--permutations", "--out", "x.npz"}, "", []string{"--format npz writes the spec's probes", "--permutations"}},
		{"generate split and lengths", []string{"clrs", "generate", "--split", "val", "--lengths", "8", "--out", "x"}, "", []string{"--split writes the official CLRS-30 splits", "give one or the other"}},
		{"generate length 0", []string{"clrs", "generate", "--lengths", "0", "--out", "x"}, "", []string{`--lengths "0"`, "lengths 1..256"}},
		{"generate length twice", []string{"clrs", "generate", "--lengths", "8,8", "--out", "x"}, "", []string{`--lengths "8,8": 8 is listed twice`}},
		{"generate seed too large", []string{"clrs", "generate", "--seeds", "4294967296", "--out", "x"}, "", []string{`--seeds "4294967296"`, "0..4294967295"}},
		{"generate name of two files", []string{"clrs", "generate", "--lengths", "8,9", "--name", "mine", "--out", "x"}, "", []string{`--name "mine" names one file`}},
		{"generate count 0", []string{"clrs", "generate", "--count", "-1", "--out", "x"}, "", []string{"--count -1"}},
		{"generate too large", []string{"clrs", "generate", "--algos", "floyd_warshall", "--lengths", "200", "--count", "100", "--out", "x"}, "", []string{"100 floyd_warshall samples of length 200", "more than the"}},
		{"eval predictions without data", []string{"eval", "--checkpoint", ".", "--predictions", "p.npz"}, "", []string{"--predictions writes the predictions on a --data file"}},
		{"unknown train algorithm", []string{"train", "--algo", "nosuch", "--no-mlflow", "--dir", filepath.Join(tmp, "tr1")}, "", []string{`unknown --algo "nosuch"`, "clrs algos"}},
		{"unknown processor", []string{"train", "--algo", "bfs", "--processor", "nosuch", "--no-mlflow"}, "", []string{`unknown --processor "nosuch"`, "mpnn"}},
		{"decimals negative", []string{"clrstext", "sample", "--algo", "bfs", "--decimals", "-3"}, "", []string{`--decimals "-3"`, "accepted 1..15 or none"}},
		{"unknown dsr structure", []string{"dsr", "generate", "--structure", "nosuch", "--operation", "x", "--out", "-"}, "", []string{`unknown structure "nosuch"`, "expected one of"}},
		{"unknown graph task", []string{"graphs", "truth", "--task", "nosuch", "--graph", g5}, "", []string{"nosuch"}},
		{"unknown clrstext algorithm", []string{"clrstext", "sample", "--algo", "nosuch"}, "", []string{"nosuch"}},
		// zero
		{"train steps 0", []string{"train", "--algo", "bfs", "--steps", "0"}, "", []string{"--steps 0", "accepted 1.."}},
		{"train batch 0", []string{"train", "--algo", "bfs", "--batch", "0"}, "", []string{"--batch 0", "accepted 1.."}},
		{"train hidden 0", []string{"train", "--algo", "bfs", "--hidden", "0"}, "", []string{"--hidden 0", "accepted 1.."}},
		{"train eval-every 0", []string{"train", "--algo", "bfs", "--eval-every", "0"}, "", []string{"--eval-every 0", "accepted 1.."}},
		{"clrs num-samples 0", []string{"clrs", "sample", "--algo", "bfs", "--count", "0"}, "", []string{"--count 0", "accepted 1.."}},
		{"dsr dim 0", []string{"dsr", "generate", "--structure", "kd_tree", "--operation", "construct", "--dim", "0", "--out", "-"}, "", []string{"--dim 0", "accepted 1..64"}},
		{"spectral-eval hidden 0", []string{"graphs", "spectral-eval", "--hidden", "0", "--no-mlflow"}, "", []string{"--hidden 0", "accepted 1..1024"}},
		{"demo steps 0", []string{"demo", "--steps", "0", "--no-mlflow", "--out", filepath.Join(tmp, "demo0")}, "", []string{"--steps 0", "accepted 1.."}},
		{"train offline and a server", []string{"train", "--algo", "bfs", "--no-mlflow", "--tracking", "http://127.0.0.1:1", "--dir", filepath.Join(tmp, "tr2")}, "", []string{"--no-mlflow and --tracking http://127.0.0.1:1 contradict"}},
		{"demo offline and a server", []string{"demo", "--no-mlflow", "--tracking", "http://127.0.0.1:1", "--out", filepath.Join(tmp, "demo2")}, "", []string{"--no-mlflow and --tracking http://127.0.0.1:1 contradict"}},
		{"spectral-eval offline and a server", []string{"graphs", "spectral-eval", "--no-mlflow", "--tracking", "http://127.0.0.1:1"}, "", []string{"graphs spectral-eval: --no-mlflow and --tracking http://127.0.0.1:1 contradict"}},
		{"mlflow example steps 0", []string{"mlflow", "example", "--steps", "0"}, "", []string{"--steps 0", "accepted 2.."}},
		{"graphs prompts instances 0", []string{"graphs", "prompts", "--count", "0", "--out", filepath.Join(tmp, "p.jsonl")}, "", []string{"--count 0", "accepted 1.."}},
		// negative
		{"clrs batch -1", []string{"clrs", "sample", "--algo", "bfs", "--batch", "-1"}, "", []string{"--batch -1", "accepted 1..", "or 0"}},
		{"clrs truncate -5", []string{"clrs", "sample", "--algo", "bfs", "--truncate-decimals", "-5"}, "", []string{"--truncate-decimals -5", "accepted 1..15"}},
		{"clrs length -3", []string{"clrs", "sample", "--algo", "bfs", "--length", "-3"}, "", []string{"--length -3", "accepted 1..256"}},
		{"eval samples -1", []string{"eval", "--checkpoint", dir, "--count", "-1"}, "", []string{"--count -1", "accepted 1.."}},
		{"train train-length -1", []string{"train", "--algo", "bfs", "--train-length", "-1"}, "", []string{"--train-length -1", "accepted 2..64"}},
		{"demo steps -1", []string{"demo", "--steps", "-1", "--no-mlflow", "--out", filepath.Join(tmp, "demo1")}, "", []string{"--steps -1", "accepted 1.."}},
		{"clrstext count -1", []string{"clrstext", "sample", "--algo", "bfs", "--count", "-1"}, "", []string{"--count -1", "accepted 1.."}},
		{"prompts relabel -1", []string{"graphs", "prompts", "--relabel", "-1", "--out", filepath.Join(tmp, "p.jsonl")}, "", []string{"--relabel -1", "accepted 0..100"}},
		{"mlflow sync timeout -1s", []string{"mlflow", "sync", "--timeout", "-1s"}, "", []string{"--timeout -1s", "accepted 1s.."}},
		{"maximum_flow negative capacity", []string{"graphs", "truth", "--task", "maximum_flow", "--graph", "-"},
			`{"n": 3, "edges": [[1, 2, -5], [2, 3, 2]], "directed": true, "params": {"source": 1, "target": 3}}`, []string{"weight -5", "must be ≥ 0"}},
		// huge
		{"clrs length huge", []string{"clrs", "sample", "--algo", "bfs", "--length", "100000"}, "", []string{"--length 100000", "accepted 1..256"}},
		{"clrs num-samples huge", []string{"clrs", "sample", "--algo", "bfs", "--count", "1000000000"}, "", []string{"--count 1000000000", "accepted 1..1000000"}},
		{"clrs memory", []string{"clrs", "sample", "--algo", "floyd_warshall", "--length", "200", "--count", "100"}, "", []string{"100 floyd_warshall samples of length 200", "more than the 128.0 MiB"}},
		{"clrs memory one sample", []string{"clrs", "sample", "--algo", "floyd_warshall", "--length", "256"}, "", []string{"1 floyd_warshall samples of length 256", "even one is too large"}},
		{"train-length memory", []string{"train", "--algo", "floyd_warshall", "--train-length", "64", "--no-mlflow"}, "", []string{"--train-length 64", "1000 floyd_warshall samples"}},
		{"clrstext length huge", []string{"clrstext", "sample", "--algo", "bfs", "--length", "100000"}, "", []string{"--length 100000", "accepted 1..256"}},
		{"train hidden huge", []string{"train", "--algo", "bfs", "--hidden", "1000000"}, "", []string{"--hidden 1000000", "accepted 1..256"}},
		{"train hidden × batch", []string{"train", "--algo", "bfs", "--hidden", "256", "--batch", "4096", "--no-mlflow"}, "", []string{"--hidden 256 with --batch 4096", "lower --hidden or --batch"}},
		{"train train-length huge", []string{"train", "--algo", "bfs", "--train-length", "100000"}, "", []string{"--train-length 100000", "accepted 2..64"}},
		{"dsr count huge", []string{"dsr", "generate", "--structure", "queue", "--operation", "enqueue", "--count", "1000000000", "--out", "-"}, "", []string{"--count 1000000000", "accepted 1..5000"}},
		{"prompts instances huge", []string{"graphs", "prompts", "--count", "1000000000", "--out", filepath.Join(tmp, "p.jsonl")}, "", []string{"--count 1000000000", "accepted 1..10000"}},
		{"prompts product huge", []string{"graphs", "prompts", "--tasks", "all", "--encoding", "all", "--syntax", "all", "--count", "10000", "--relabel", "100", "--seeds", "100", "--out", filepath.Join(tmp, "p.jsonl")}, "", []string{"prompts", "accepted at most 5000000", "lower --count, --relabel or --seeds"}},
		{"graph n maxint", []string{"graphs", "truth", "--task", "node_number", "--graph", huge}, "", []string{`"n": 9223372036854775807`, "at most 1000 nodes"}},
		{"graph n 1e8", []string{"graphs", "truth", "--task", "node_number", "--graph", big}, "", []string{`"n": 100000000`, "at most 1000 nodes"}},
		{"spectral n 1e8", []string{"graphs", "spectral", "--graph", big}, "", []string{`"n": 100000000`, "at most 1000 nodes"}},
		{"spectral-eval count huge", []string{"graphs", "spectral-eval", "--count", "1000000000", "--no-mlflow"}, "", []string{"--count 1000000000", "accepted 1..10000"}},
		{"graph endpoint huge", []string{"graphs", "truth", "--task", "edge_number", "--graph", "-"}, `{"n": 3, "edges": [[1, 1e300]]}`, []string{"outside 1..3"}},
		{"graph edges too many", []string{"graphs", "truth", "--task", "edge_number", "--graph", "-"}, `{"n": 2, "edges": [[1, 2], [2, 1], [1, 2]]}`, []string{"at most 2"}},
		// NaN and infinities
		{"teacher-forcing NaN", []string{"train", "--algo", "bfs", "--teacher-forcing", "NaN"}, "", []string{"--teacher-forcing NaN", "not a finite number", "accepted 0..1"}},
		{"lr Inf", []string{"train", "--algo", "bfs", "--lr", "Inf"}, "", []string{"--lr +Inf", "not a finite number"}},
		{"heat-time NaN", []string{"graphs", "spectral", "--graph", g5, "--heat-time", "NaN"}, "", []string{"--heat-time NaN", "not a finite number"}},
		{"log base 1", []string{"graphs", "spectral", "--graph", g5, "--entropy-log-base", "1"}, "", []string{"--entropy-log-base 1", "not 1"}},
		{"log base -Inf", []string{"graphs", "spectral", "--graph", g5, "--entropy-log-base", "-Inf"}, "", []string{"not a finite number"}},
		// malformed JSON
		{"graph JSON torn", []string{"graphs", "truth", "--task", "node_number", "--graph", "-"}, `{"n":`, []string{"reading graph JSON", `want {"n": N`}},
		{"graph JSON array", []string{"graphs", "spectral", "--graph", "-"}, `[1, 2]`, []string{"reading graph JSON"}},
		{"clrs run JSON torn", []string{"clrs", "run", "--algo", "insertion_sort", "--input", "-"}, `{`, []string{"insertion_sort", "expected arguments"}},
		{"kwargs torn", []string{"clrs", "sample", "--algo", "bfs", "--kwargs", "{"}, "", []string{"--kwargs", "expected one such as"}},
		{"clrs run inline JSON", []string{"clrs", "run", "--algo", "insertion_sort", "--input", `{"key": [1]}`}, "", []string{"--input names a file", "--input -"}},
		{"kwargs bad key", []string{"clrs", "sample", "--algo", "bfs", "--kwargs", "{bad"}, "", []string{`--kwargs "{bad"`, "expected a JSON object such as"}},
		{"prompts file not JSON", []string{"graphs", "score", "--prompts", file, "--predictions", file, "--no-mlflow"}, "", []string{"line 1"}},
		{"spectral predictions not JSON", []string{"graphs", "spectral-eval", "--count", "2", "--no-gnn", "--predictions", file, "--no-mlflow"}, "", []string{"predictions line 1"}},
		// empty input
		{"graph JSON empty", []string{"graphs", "truth", "--task", "node_number", "--graph", "-"}, "", []string{"reading graph JSON"}},
		{"clrs run empty", []string{"clrs", "run", "--algo", "insertion_sort", "--input", "-"}, "", []string{"expected arguments"}},
		{"spectral-eval no graphs", []string{"graphs", "spectral-eval", "--graphs", empty, "--no-mlflow"}, "", []string{"--graphs " + empty, "the file is empty"}},
		{"clrstext score empty", []string{"clrstext", "score", "--data", empty, "--predictions", empty, "--no-mlflow"}, "", []string{"--data " + empty, "the file is empty"}},
		{"dsr verify empty", []string{"dsr", "verify", "--input", empty}, "", []string{"--input " + empty, "the file is empty"}},
		{"graphs score empty predictions", []string{"graphs", "score", "--prompts", file, "--predictions", empty, "--no-mlflow"}, "", []string{"--predictions " + empty, "the file is empty"}},
		{"graphs predict unknown predictor", []string{"graphs", "predict", "--prompts", file, "--predictor", "nosuch", "--out", filepath.Join(tmp, "o.jsonl")}, "", []string{`--predictor "nosuch"`, "oracle, constant or noisy"}},
		{"clrs run unknown format", []string{"clrs", "run", "--algo", "insertion_sort", "--input", "-", "--format", "xml"}, `{"key": [1]}`, []string{`--format "xml"`}},
		// missing and unreadable files
		{"graph missing", []string{"graphs", "truth", "--task", "node_number", "--graph", missing}, "", []string{"--graph " + missing, "no such file"}},
		{"graph is a directory", []string{"graphs", "truth", "--task", "node_number", "--graph", dir}, "", []string{"--graph " + dir, "not a regular file"}},
		{"clrstext data missing", []string{"clrstext", "score", "--data", missing, "--predictions", empty, "--no-mlflow"}, "", []string{"--data " + missing, "no such file"}},
		{"dsr instances missing", []string{"dsr", "verify", "--input", missing}, "", []string{"--input " + missing, "no such file"}},
		{"eval checkpoint missing", []string{"eval", "--checkpoint", missing}, "", []string{"--checkpoint " + missing, "no such file"}},
		{"sync dir missing", []string{"mlflow", "sync", "--dir", missing}, "", []string{"--dir " + missing, "no such file"}},
		{"clrs run input missing", []string{"clrs", "run", "--algo", "insertion_sort", "--input", missing}, "", []string{"--input " + missing, "no such file"}},
		// unwritable output
		{"prompts out unwritable", []string{"graphs", "prompts", "--out", filepath.Join(under, "p.jsonl")}, "", []string{"--out " + filepath.Join(under, "p.jsonl"), "not a directory"}},
		{"train dir unwritable", []string{"train", "--algo", "bfs", "--no-mlflow", "--dir", under}, "", []string{"--dir " + under, "not a directory"}},
		{"clrs generate out unwritable", []string{"clrs", "generate", "--out", under}, "", []string{"--out " + under}},
		{"dsr out unwritable", []string{"dsr", "generate", "--structure", "queue", "--operation", "enqueue", "--out", filepath.Join(under, "x.jsonl")}, "", []string{"--out "}},
		{"demo out unwritable", []string{"demo", "--no-mlflow", "--out", under}, "", []string{"--out " + under}},
		{"figure unwritable", []string{"clrstext", "score", "--data", empty, "--predictions", empty, "--figure", filepath.Join(under, "f.png"), "--no-mlflow"}, "", []string{"--figure "}},
		// an empty value (an unset shell variable) is not the default
		{"generate algos empty", []string{"clrstext", "generate", "--split", "test", "--algos", "", "--out", filepath.Join(tmp, "ct.jsonl")}, "", []string{`--algos "": empty value; expected: comma-separated algorithms`}},
		{"llm endpoint empty", []string{"llm", "run", "--suite", "dsr", "--endpoint", "", "--model", "m"}, "", []string{`--endpoint "": empty value`, "default: $OPENAI_BASE_URL if set, else local"}},
		{"train experiment empty", []string{"train", "--algo", "bfs", "--experiment", ""}, "", []string{`--experiment "": empty value`, "default: clrs-baselines"}},
		{"prompts tasks empty", []string{"graphs", "prompts", "--tasks", " ", "--out", filepath.Join(tmp, "p.jsonl")}, "", []string{`--tasks "": empty value`}},
		{"seed negative", []string{"dsr", "generate", "--structure", "queue", "--operation", "enqueue", "--seed", "-5", "--out", filepath.Join(tmp, "q.jsonl")}, "", []string{"--seed -5", "accepted 0..9223372036854775807 "}},
		{"clrstext generate unknown algorithm", []string{"clrstext", "generate", "--split", "test", "--algos", "nope", "--out", filepath.Join(tmp, "ct.jsonl")}, "", []string{`unknown algorithm "nope" in the test schedule (it has: `, "bfs"}},
		{"empty command", []string{""}, "", []string{`unknown command ""`}},
		{"spectral-eval name without predictions", []string{"graphs", "spectral-eval", "--name", "foo", "--no-gnn", "--no-mlflow"}, "", []string{`--name "foo" names the --predictions predictor`}},
		{"train parent run offline", []string{"train", "--algo", "bfs", "--parent-run", "abc", "--no-mlflow"}, "", []string{"--parent-run, --tag and --register place the run in MLflow"}},
		{"train register offline", []string{"train", "--algo", "bfs", "--register", "bfs-model", "--no-mlflow"}, "", []string{"--register place the run in MLflow", "--no-mlflow"}},
		{"train register name with spaces", []string{"train", "--algo", "bfs", "--register", " bfs "}, "", []string{`--register " bfs "`, "without surrounding spaces"}},
		{"dsr dimension on a list", []string{"dsr", "generate", "--structure", "array", "--operation", "access", "--dim", "3", "--out", filepath.Join(tmp, "d.jsonl")}, "", []string{"dsr generate: dsr: array/access: dimension and distribution apply only to the spatial tasks"}},
		{"prompts syntax without its encoding", []string{"graphs", "prompts", "--syntax", "json", "--encoding", "E2", "--out", filepath.Join(tmp, "p.jsonl")}, "", []string{"graphs prompts: serialization: no valid encoding × syntax combination"}},
		{"kernel install into a file", []string{"kernel", "install", "--jupyter-dir", file}, "", []string{"--jupyter-dir " + file, "is a file"}},
		// an output that is an input
		{"dsr baseline out is its input", []string{"dsr", "baseline", "--input", file, "--out", file}, "", []string{"--out " + file + " is the file --input reads"}},
		{"predict out is its prompts", []string{"graphs", "predict", "--prompts", file, "--out", file}, "", []string{"--out " + file + " is the file --prompts reads"}},
		// existing output of the wrong kind
		{"prompts out is a directory", []string{"graphs", "prompts", "--out", dir}, "", []string{"--out " + dir, "is a directory"}},
		{"generate out is a file", []string{"clrs", "generate", "--out", file}, "", []string{"--out " + file, "is a file"}},
		{"predict out is a directory", []string{"graphs", "predict", "--prompts", file, "--out", dir}, "", []string{"--out " + dir, "is a directory"}},
	}
	for _, c := range tests {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			// 2 GiB of address space: a command that tries to allocate more fails instead of swapping.
			cmd := exec.CommandContext(ctx, "sh", append([]string{"-c", `ulimit -v 2097152; exec "$0" "$@"`, bin}, c.args...)...)
			cmd.Env = append(os.Environ(), "NARLAB_DATA="+filepath.Join(tmp, "data"), "MLFLOW_TRACKING_URI=http://127.0.0.1:1")
			cmd.Stdin = strings.NewReader(c.stdin)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			start := time.Now()
			err := cmd.Run()
			msg := stderr.String()
			if ctx.Err() != nil {
				t.Fatalf("narlab %s: still running after 30 s", strings.Join(c.args, " "))
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() <= 0 {
				t.Fatalf("narlab %s: exit %v, want a non-zero exit status; stderr:\n%s", strings.Join(c.args, " "), err, msg)
			}
			for _, crash := range []string{"goroutine ", "panic:", "fatal error", "runtime error"} {
				if strings.Contains(msg, crash) {
					t.Fatalf("narlab %s crashed (%q):\n%s", strings.Join(c.args, " "), crash, msg)
				}
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("narlab %s: stderr does not say %q:\n%s", strings.Join(c.args, " "), w, msg)
				}
			}
			t.Logf("%.2fs", time.Since(start).Seconds())
		})
	}
}

// TestBadInputLeavesNothing gives commands a new output path and a bad
// value that is only found after the paths are checked: the command fails
// and the output path still does not exist (no empty directory, no run
// directory holding a lock file).
func TestBadInputLeavesNothing(t *testing.T) {
	bin := narlabCLI(t)
	tmp := t.TempDir()
	for _, c := range []struct {
		name string
		args func(out string) []string
	}{
		{"generate, unknown algorithm", func(o string) []string { return []string{"clrs", "generate", "--out", o, "--algos", "nope"} }},
		{"generate, unknown split", func(o string) []string { return []string{"clrs", "generate", "--out", o, "--split", "foo"} }},
		{"train, unknown backend", func(o string) []string { return []string{"train", "--algo", "bfs", "--backend", "foo", "--dir", o} }},
		{"train, unknown hint re-prediction", func(o string) []string { return []string{"train", "--algo", "bfs", "--hint-repred", "foo", "--dir", o} }},
		{"train, malformed tracking server", func(o string) []string {
			return []string{"train", "--algo", "bfs", "--tracking", "ht!tp://::", "--dir", o}
		}},
		{"demo, unknown backend", func(o string) []string { return []string{"demo", "--backend", "foo", "--no-mlflow", "--out", o} }},
		{"dsr score, missing input", func(o string) []string {
			return []string{"dsr", "score", "--input", filepath.Join(tmp, "missing"), "--predictions", filepath.Join(tmp, "missing"), "--figures", o, "--no-mlflow"}
		}},
		{"prompts, unknown task", func(o string) []string {
			return []string{"graphs", "prompts", "--tasks", "nope", "--out", filepath.Join(o, "p.jsonl")}
		}},
		{"generate, an algorithm listed twice", func(o string) []string {
			return []string{"clrs", "generate", "--out", o, "--split", "val", "--algos", "bfs,dfs,bfs"}
		}},
		{"prompts, one encoding by code and by name", func(o string) []string {
			return []string{"graphs", "prompts", "--encoding", "E0,edge-erdos", "--out", filepath.Join(o, "p.jsonl")}
		}},
		{"prompts, a task by name and by category", func(o string) []string {
			return []string{"graphs", "prompts", "--tasks", "easy,node_number", "--out", filepath.Join(o, "p.jsonl")}
		}},
		{"clrstext generate, a seed listed twice", func(o string) []string {
			return []string{"clrstext", "generate", "--split", "test", "--seeds", "3,3", "--out", filepath.Join(o, "t.jsonl")}
		}},
		{"salsa generate, unknown set", func(o string) []string {
			return []string{"salsa", "generate", "--out", o, "--sets", "er_17"}
		}},
		{"salsa generate, hints too large to hold", func(o string) []string {
			return []string{"salsa", "generate", "--out", o, "--algos", "dfs", "--sets", "ws_1600", "--hints", "all"}
		}},
		{"sweep run, a value of --vary listed twice", func(o string) []string {
			return []string{"sweep", "run", "--dir", o, "--algos", "bfs", "--processors", "mpnn", "--vary", "hidden=64,64"}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(tmp, strings.ReplaceAll(c.name, " ", "_"), "new")
			cmd := exec.Command(bin, c.args(out)...)
			cmd.Env = append(os.Environ(), "NARLAB_DATA="+filepath.Join(tmp, "data"), "MLFLOW_TRACKING_URI=")
			msg, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() <= 0 {
				t.Fatalf("exit %v, want a non-zero exit status:\n%s", err, msg)
			}
			if _, err := os.Stat(filepath.Dir(out)); err == nil {
				t.Errorf("the failed command left %s behind:\n%s", filepath.Dir(out), msg)
			}
		})
	}
}
