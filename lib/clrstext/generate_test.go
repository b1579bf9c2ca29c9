package clrstext

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSplitJobs(t *testing.T) {
	cases := []struct {
		split       string
		algos       []string
		count       int
		seeds       []int64
		jobs, rows  int
		first, last Job
	}{
		{"train", nil, 0, nil, 215, 2_150_000,
			Job{"articulation_points", 4, 0, 10000}, Job{"topological_sort", 23, 0, 10000}},
		{"test", nil, 0, nil, 823 * 5, 823 * 125 * 5,
			Job{"activity_selector", 4, 3, 125}, Job{"topological_sort", 21, 94, 125}},
		{"val", []string{"bridges"}, 0, nil, 4 * 5, 4 * 125 * 5,
			Job{"bridges", 4, 3, 125}, Job{"bridges", 7, 94, 125}},
		{"train", []string{"bubble_sort", "bfs"}, 7, []int64{1, 2}, (10 + 3) * 2, (10 + 3) * 2 * 7,
			Job{"bfs", 4, 1, 7}, Job{"bubble_sort", 10, 2, 7}},
	}
	for _, c := range cases {
		jobs, err := SplitJobs(c.split, c.algos, c.count, c.seeds)
		if err != nil {
			t.Fatal(err)
		}
		if len(jobs) != c.jobs || Rows(jobs) != c.rows || jobs[0] != c.first || jobs[len(jobs)-1] != c.last {
			t.Errorf("%s %v: %d jobs, %d rows, first %+v, last %+v", c.split, c.algos, len(jobs), Rows(jobs), jobs[0], jobs[len(jobs)-1])
		}
	}
	for _, bad := range []struct {
		split string
		algos []string
		seeds []int64
	}{{"dev", nil, nil}, {"train", []string{"sorting"}, nil}, {"test", nil, []int64{-1}}} {
		if _, err := SplitJobs(bad.split, bad.algos, 0, bad.seeds); err == nil {
			t.Errorf("SplitJobs(%q, %v, %v) should fail", bad.split, bad.algos, bad.seeds)
		}
	}
}

func TestGenerate(t *testing.T) {
	jobs := []Job{{"insertion_sort", 5, 0, 3}, {"bfs", 6, 1, 4}, {"segments_intersect", 4, 2, 2}, {"kmp_matcher", 9, 3, 5}}
	o := Options{Format: Current, Decimals: 3, Hints: true}
	var one, many bytes.Buffer
	n1, err := Generate(context.Background(), &one, GenerateConfig{Jobs: jobs, Options: o, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	progress := 0
	n2, err := Generate(context.Background(), &many, GenerateConfig{Jobs: jobs, Options: o, Workers: 3,
		Progress: func(rows, total int) { progress = rows }})
	if err != nil {
		t.Fatal(err)
	}
	if n1 != 14 || n2 != 14 || progress != 14 || !bytes.Equal(one.Bytes(), many.Bytes()) {
		t.Fatalf("rows %d/%d, progress %d, identical %v", n1, n2, progress, bytes.Equal(one.Bytes(), many.Bytes()))
	}
	lines := strings.Split(strings.TrimSuffix(one.String(), "\n"), "\n")
	k := 0
	for _, j := range jobs {
		want, err := Sample(j.Algo, j.Length, j.Seed, j.Count, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, ex := range want {
			var row struct {
				Text, Question, Answer string
				AlgoName               string `json:"algo_name"`
				Length                 int
				Seed                   int64
				UseHints               bool `json:"use_hints"`
			}
			if err := json.Unmarshal([]byte(lines[k]), &row); err != nil {
				t.Fatal(err)
			}
			if row.Question != ex.Question || row.Answer != ex.Answer || row.Text != ex.Text() || row.AlgoName != j.Algo ||
				row.Length != j.Length || row.Seed != j.Seed || !row.UseHints {
				t.Fatalf("row %d = %+v, want %+v of %+v", k, row, ex, j)
			}
			k++
		}
	}

	var ref bytes.Buffer
	if _, err := Generate(context.Background(), &ref, GenerateConfig{Jobs: jobs[:1], Options: o, Layout: LayoutReference}); err != nil {
		t.Fatal(err)
	}
	var row struct {
		Name       string
		Prompt     string
		References []string
		Auxiliary  struct {
			Length   int
			Seed     int64
			UseHints bool `json:"use_hints"`
		}
	}
	if err := json.Unmarshal([]byte(strings.SplitN(ref.String(), "\n", 2)[0]), &row); err != nil {
		t.Fatal(err)
	}
	first, _ := Sample("insertion_sort", 5, 0, 1, o)
	if row.Name != "clrs_text_insertion_sort" || row.Prompt != first[0].Question || len(row.References) != 1 ||
		row.References[0] != first[0].Answer || row.Auxiliary.Length != 5 || !row.Auxiliary.UseHints {
		t.Fatalf("reference layout row %+v", row)
	}
}

func TestGenerateErrors(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	jobs, _ := SplitJobs("test", []string{"minimum"}, 0, nil)
	if _, err := Generate(ctx, io.Discard, GenerateConfig{Jobs: jobs}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: err = %v", err)
	}
	if _, err := Generate(context.Background(), io.Discard, GenerateConfig{Jobs: []Job{{"nope", 4, 0, 1}}}); err == nil ||
		!strings.Contains(err.Error(), "unknown algorithm") {
		t.Errorf("unknown algorithm: err = %v", err)
	}
	if _, err := Generate(context.Background(), io.Discard, GenerateConfig{Options: Options{Format: Legacy, Decimals: 3}}); err == nil {
		t.Error("legacy with decimals should fail")
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.jsonl")
	boom := errors.New("boom")
	err := WriteFileAtomic(path, func(w io.Writer) error {
		io.WriteString(w, "partial")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("a failed write left %v", entries)
	}
	if err := WriteFileAtomic(path, func(w io.Writer) error { _, err := io.WriteString(w, "done\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "done\n" {
		t.Fatalf("file holds %q", b)
	}
}

// BenchmarkGenerate measures generation throughput (rows/s) on a slice of
// the training schedule: every algorithm at its two smallest training
// sizes, 200 rows each, in the legacy format without hints (the published
// training set's settings) and with hints.
func BenchmarkGenerate(b *testing.B) {
	var jobs []Job
	for _, a := range TrainSchedule() {
		for _, l := range a.Lengths[:2] {
			jobs = append(jobs, Job{a.Algo, l, 0, 200})
		}
	}
	for _, hints := range []bool{false, true} {
		name := "nohints"
		if hints {
			name = "hints"
		}
		b.Run(name, func(b *testing.B) {
			rows := 0
			for b.Loop() {
				n, err := Generate(context.Background(), io.Discard, GenerateConfig{Jobs: jobs, Options: Options{Format: Legacy, Hints: hints}})
				if err != nil {
					b.Fatal(err)
				}
				rows += n
			}
			b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
