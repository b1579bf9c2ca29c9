package clrstext

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/narlab/narlab/internal/fsutil"
)

// SizeSchedule is an ordered list of (algorithm, lengths) pairs, in the
// order the reference generator walks them.
type SizeSchedule []AlgoLengths

// AlgoLengths is one algorithm's sizes.
type AlgoLengths struct {
	Algo    string
	Lengths []int
}

var trainLengths = []int{4, 5, 10, 11, 12, 15, 19, 23, 28, 31}

func upTo(n int) []int { return slices.Clone(trainLengths[:n]) }

func rangeLengths(lo, hi int) []int {
	out := make([]int, 0, hi-lo)
	for i := lo; i < hi; i++ {
		out = append(out, i)
	}
	return out
}

// TrainSchedule is the paper's Table 1 (the reference's
// _DEFAULT_TRAIN_ALGOS_AND_LENGTHS), in the reference's order: 215
// (algorithm, size) pairs.
func TrainSchedule() SizeSchedule {
	return SizeSchedule{
		{"articulation_points", upTo(7)},
		{"activity_selector", upTo(10)},
		{"bellman_ford", upTo(10)},
		{"bfs", upTo(10)},
		{"binary_search", upTo(10)},
		{"bridges", upTo(2)},
		{"bubble_sort", upTo(3)},
		{"dag_shortest_paths", upTo(7)},
		{"dfs", upTo(8)},
		{"dijkstra", upTo(9)},
		{"find_maximum_subarray_kadane", upTo(10)},
		{"floyd_warshall", upTo(3)},
		{"graham_scan", upTo(10)},
		{"heapsort", upTo(3)},
		{"insertion_sort", upTo(10)},
		{"jarvis_march", upTo(5)},
		{"kmp_matcher", upTo(10)},
		{"lcs_length", upTo(3)},
		{"matrix_chain_order", upTo(3)},
		{"minimum", upTo(10)},
		{"mst_kruskal", upTo(3)},
		{"mst_prim", upTo(9)},
		{"naive_string_matcher", upTo(10)},
		{"optimal_bst", upTo(3)},
		{"quickselect", upTo(10)},
		{"quicksort", upTo(3)},
		{"segments_intersect", upTo(10)},
		{"strongly_connected_components", upTo(6)},
		{"task_scheduling", upTo(10)},
		{"topological_sort", upTo(8)},
	}
}

// TestSchedule is the reference's _DEFAULT_VAL_ALGOS_AND_LENGTHS (its
// `val` split, the paper's test sets): every size from 4 up to what fits
// in context (at most 64), 823 (algorithm, size) pairs.
func TestSchedule() SizeSchedule {
	return SizeSchedule{
		{"activity_selector", rangeLengths(4, 41)},
		{"articulation_points", rangeLengths(4, 20)},
		{"bellman_ford", rangeLengths(4, 33)},
		{"bfs", rangeLengths(4, 42)},
		{"binary_search", rangeLengths(4, 65)},
		{"bridges", rangeLengths(4, 8)},
		{"bubble_sort", rangeLengths(4, 12)},
		{"dag_shortest_paths", rangeLengths(4, 20)},
		{"dfs", rangeLengths(4, 21)},
		{"dijkstra", rangeLengths(4, 26)},
		{"find_maximum_subarray_kadane", rangeLengths(4, 65)},
		{"floyd_warshall", rangeLengths(4, 12)},
		{"graham_scan", rangeLengths(4, 32)},
		{"heapsort", rangeLengths(4, 12)},
		{"insertion_sort", rangeLengths(4, 26)},
		{"jarvis_march", rangeLengths(4, 14)},
		{"kmp_matcher", rangeLengths(4, 65)},
		{"lcs_length", rangeLengths(4, 13)},
		{"matrix_chain_order", rangeLengths(4, 13)},
		{"minimum", rangeLengths(4, 65)},
		{"mst_kruskal", rangeLengths(4, 11)},
		{"mst_prim", rangeLengths(4, 27)},
		{"naive_string_matcher", rangeLengths(4, 65)},
		{"optimal_bst", rangeLengths(4, 11)},
		{"quickselect", rangeLengths(4, 65)},
		{"quicksort", rangeLengths(4, 13)},
		{"segments_intersect", rangeLengths(4, 65)},
		{"strongly_connected_components", rangeLengths(4, 17)},
		{"task_scheduling", rangeLengths(4, 42)},
		{"topological_sort", rangeLengths(4, 22)},
	}
}

// Split defaults of the reference generator.
const (
	TrainSamples = 10_000
	TestSamples  = 125
)

// TrainSeeds and TestSeeds are the reference's default seeds per split.
var (
	TrainSeeds = []int64{0}
	TestSeeds  = []int64{3, 14, 35, 81, 94}
)

// Job is one sampler of the generator: Count consecutive examples of a
// fresh sampler with this algorithm, length and seed.
type Job struct {
	Algo   string
	Length int
	Seed   int64
	Count  int
}

// SplitJobs returns the reference generator's jobs for a split ("train",
// or "test"/"val"), restricted to algos when given (kept in the
// schedule's order), with the split's default count and seeds unless
// count > 0 or seeds is non-empty. Jobs are ordered as the reference
// writes them: algorithms in schedule order, then lengths, then seeds.
func SplitJobs(split string, algos []string, count int, seeds []int64) ([]Job, error) {
	var sched SizeSchedule
	defCount, defSeeds := 0, []int64(nil)
	switch split {
	case "train":
		sched, defCount, defSeeds = TrainSchedule(), TrainSamples, TrainSeeds
	case "test", "val":
		sched, defCount, defSeeds = TestSchedule(), TestSamples, TestSeeds
	default:
		return nil, fmt.Errorf("clrstext: unknown split %q (want train or test; val is the reference's name for test)", split)
	}
	if count < 0 {
		return nil, fmt.Errorf("clrstext: count must be positive (or 0 for the split default), got %d", count)
	}
	if count == 0 {
		count = defCount
	}
	if len(seeds) == 0 {
		seeds = defSeeds
	}
	for _, s := range seeds {
		if s < 0 || s > 1<<32-1 {
			return nil, fmt.Errorf("clrstext: seed %d out of range [0, 2**32-1]", s)
		}
	}
	if len(algos) > 0 {
		var known []string
		for _, a := range sched {
			known = append(known, a.Algo)
		}
		for _, a := range algos {
			if !slices.Contains(known, a) {
				return nil, fmt.Errorf("clrstext: unknown algorithm %q in the %s schedule (it has: %s)", a, split, strings.Join(known, ", "))
			}
		}
	}
	var jobs []Job
	for _, a := range sched {
		if len(algos) > 0 && !slices.Contains(algos, a.Algo) {
			continue
		}
		for _, l := range a.Lengths {
			for _, s := range seeds {
				jobs = append(jobs, Job{Algo: a.Algo, Length: l, Seed: s, Count: count})
			}
		}
	}
	return jobs, nil
}

// Layout is the shape of a generated JSONL row.
type Layout uint8

// Row layouts.
const (
	// LayoutHF writes the Hugging Face generator's fields:
	// {"text", "question", "answer", "algo_name", "length", "use_hints"},
	// plus "seed".
	LayoutHF Layout = iota
	// LayoutReference writes one example of generate_clrs_text.py per line:
	// {"name": "clrs_text_<algo>", "prompt", "references": [answer],
	// "auxiliary": {"length", "seed", "use_hints"}}.
	LayoutReference
)

// ParseLayout parses "hf" or "reference".
func ParseLayout(s string) (Layout, error) {
	switch s {
	case "hf":
		return LayoutHF, nil
	case "reference":
		return LayoutReference, nil
	}
	return 0, fmt.Errorf("clrstext: unknown layout %q (want hf or reference)", s)
}

// GenerateConfig configures Generate.
type GenerateConfig struct {
	Jobs    []Job
	Options Options
	Layout  Layout
	// Workers is the number of jobs generated at once (default GOMAXPROCS).
	Workers int
	// Progress, when set, is called (from one goroutine at a time) after
	// every finished job with the rows written so far and the total.
	Progress func(rows, total int)
}

// Rows returns the number of rows the jobs produce.
func Rows(jobs []Job) int {
	n := 0
	for _, j := range jobs {
		n += j.Count
	}
	return n
}

// Generate writes the jobs' examples as JSONL to w, in job order, running
// up to Workers jobs in parallel (each job is one sequential random
// stream, so the output does not depend on Workers). It returns the
// number of rows written.
func Generate(ctx context.Context, w io.Writer, cfg GenerateConfig) (int, error) {
	if err := cfg.Options.validate(); err != nil {
		return 0, err
	}
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	for _, j := range cfg.Jobs {
		if j.Count < 0 {
			return 0, fmt.Errorf("clrstext: %s length %d: negative count %d", j.Algo, j.Length, j.Count)
		}
	}
	total := Rows(cfg.Jobs)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	type result struct {
		buf []byte
		err error
	}
	results := make([]chan result, len(cfg.Jobs))
	for i := range results {
		results[i] = make(chan result, 1)
	}
	// A window of jobs in flight bounds memory while keeping every worker
	// busy when jobs differ in cost.
	window := make(chan struct{}, 4*workers)
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				buf, err := runJob(ctx, cfg.Jobs[i], cfg.Options, cfg.Layout)
				results[i] <- result{buf, err}
			}
		}()
	}
	go func() {
		defer close(next)
		for i := range cfg.Jobs {
			select {
			case window <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	bw := bufio.NewWriterSize(w, 1<<20)
	rows := 0
	var err error
	for i := range cfg.Jobs {
		var r result
		select {
		case r = <-results[i]:
		case <-ctx.Done():
			err = ctx.Err()
		}
		if err != nil {
			break
		}
		<-window
		if r.err != nil {
			err = r.err
			break
		}
		if _, werr := bw.Write(r.buf); werr != nil {
			err = fmt.Errorf("clrstext: writing: %w", werr)
			break
		}
		rows += cfg.Jobs[i].Count
		if cfg.Progress != nil {
			cfg.Progress(rows, total)
		}
	}
	// Cancelling stops the feeder, which closes next and so ends the
	// workers (result channels are buffered, so no worker blocks).
	cancel()
	wg.Wait()
	if err != nil {
		return rows, err
	}
	if err := bw.Flush(); err != nil {
		return rows, fmt.Errorf("clrstext: writing: %w", err)
	}
	return rows, nil
}

func runJob(ctx context.Context, j Job, o Options, layout Layout) ([]byte, error) {
	s, err := NewSampler(j.Algo, j.Length, j.Seed, o)
	if err != nil {
		return nil, err
	}
	var buf []byte
	for k := 0; k < j.Count; k++ {
		if k%256 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		ex, err := s.Next()
		if err != nil {
			return nil, fmt.Errorf("clrstext: %s length %d seed %d: %w", j.Algo, j.Length, j.Seed, err)
		}
		buf = appendRow(buf, ex, j, o.Hints, layout)
	}
	return buf, nil
}

func appendRow(b []byte, ex Example, j Job, hints bool, layout Layout) []byte {
	switch layout {
	case LayoutReference:
		b = append(b, `{"name": "clrs_text_`...)
		b = append(b, j.Algo...)
		b = append(b, `", "prompt": `...)
		b = appendJSONString(b, ex.Question)
		b = append(b, `, "references": [`...)
		b = appendJSONString(b, ex.Answer)
		b = append(b, `], "auxiliary": {"length": `...)
		b = strconv.AppendInt(b, int64(j.Length), 10)
		b = append(b, `, "seed": `...)
		b = strconv.AppendInt(b, j.Seed, 10)
		b = append(b, `, "use_hints": `...)
		b = strconv.AppendBool(b, hints)
		b = append(b, "}}\n"...)
	default:
		b = append(b, `{"text": `...)
		b = appendJSONString(b, ex.Question+ex.Answer)
		b = append(b, `, "question": `...)
		b = appendJSONString(b, ex.Question)
		b = append(b, `, "answer": `...)
		b = appendJSONString(b, ex.Answer)
		b = append(b, `, "algo_name": "`...)
		b = append(b, j.Algo...)
		b = append(b, `", "length": `...)
		b = strconv.AppendInt(b, int64(j.Length), 10)
		b = append(b, `, "seed": `...)
		b = strconv.AppendInt(b, j.Seed, 10)
		b = append(b, `, "use_hints": `...)
		b = strconv.AppendBool(b, hints)
		b = append(b, "}\n"...)
	}
	return b
}

// appendJSONString appends s as a JSON string the way Python's json.dumps
// writes ASCII text (control characters as \n, \t or \u00XX).
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\n':
			b = append(b, '\\', 'n')
		case '\t':
			b = append(b, '\\', 't')
		case '\r':
			b = append(b, '\\', 'r')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// WriteFileAtomic writes a dataset to path through narlab's one atomic
// writer (internal/fsutil, with its data-file mode): nothing appears at
// path unless write returns nil. Code inside the module calls fsutil.Write
// directly; this is for notebooks and other modules, which cannot import
// an internal package.
func WriteFileAtomic(path string, write func(w io.Writer) error) error {
	return fsutil.Write(path, fsutil.DataMode, write)
}

// SampleLine returns the JSON line `narlab clrstext sample` prints for an
// example: {"algo": …, "text": question + answer}, spaced like Python's
// json.dumps, ending in a newline.
func SampleLine(ex Example) []byte {
	b := append([]byte(nil), `{"algo": `...)
	b = appendJSONString(b, ex.Algo)
	b = append(b, `, "text": `...)
	b = appendJSONString(b, ex.Question+ex.Answer)
	return append(b, "}\n"...)
}
