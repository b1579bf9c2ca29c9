package clrs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/narlab/narlab/internal/flock"
)

func TestIsDatasetTemp(t *testing.T) {
	for _, tc := range []struct {
		name string
		want bool
	}{
		{".bfs_train.npz.tmp-123456", true},
		{".floyd_warshall_test.npz.tmp-1", true},
		{".manifest.json.tmp-99", true},
		{"bfs_train.npz.tmp-1", false},     // not fsutil's hidden name
		{".bfs_train.npz", false},          // no .tmp- suffix
		{".bfs_n32_s7.npz.tmp-1", true},    // a setting of one's own (DatasetOptions.Settings)
		{".bfs_my-set.npz.tmp-1", true},    // a named setting
		{".bfs_no.split.npz.tmp-1", false}, // not a split nor a setting's name
		{".bfs_.npz.tmp-1", false},         // no name
		{".nosuch_val.npz.tmp-1", false},   // not an algorithm
		{".notes.txt.tmp-1", false},        // another file's temporary
		{".results.md.tmp-7", false},       // another command's
		{"bfs_train.npz", false},
		{"manifest.json", false},
	} {
		if got := isDatasetTemp(tc.name); got != tc.want {
			t.Errorf("isDatasetTemp(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestWriteDatasetRemovesStaleTemps checks that WriteDataset removes the
// temporary files a killed run left, and only those, unless another run
// holds the directory.
func TestWriteDatasetRemovesStaleTemps(t *testing.T) {
	stale := []string{".bfs_val.npz.tmp-4242", ".dfs_train.npz.tmp-1", ".manifest.json.tmp-77"}
	kept := []string{".notes.txt.tmp-1", "notes.txt", "dfs_train.npz"}
	for _, tc := range []struct {
		name     string
		busy     bool // another WriteDataset holds the directory
		wantGone bool
	}{
		{"alone", false, true},
		{"another run writing", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, n := range append(slices.Clone(stale), kept...) {
				if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tc.busy {
				d, err := os.Open(dir)
				if err != nil {
					t.Fatal(err)
				}
				defer d.Close()
				if err := flock.Share(d); err != nil {
					t.Fatal(err)
				}
			}
			m, err := WriteDataset(context.Background(), dir, DatasetOptions{Splits: []string{"val"}, Algorithms: []string{"minimum"}})
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Files) != 1 || m.Files[0].File != "minimum_val.npz" {
				t.Fatalf("manifest files %+v, want minimum_val.npz", m.Files)
			}
			for _, n := range stale {
				_, err := os.Stat(filepath.Join(dir, n))
				if gone := errors.Is(err, os.ErrNotExist); gone != tc.wantGone {
					t.Errorf("%s: removed %v, want %v", n, gone, tc.wantGone)
				}
			}
			for _, n := range append(slices.Clone(kept), "minimum_val.npz", "manifest.json") {
				if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
					t.Errorf("%s: %v, want it kept", n, err)
				}
			}
		})
	}
}

// TestWriteDatasetLeavesNothing checks that a cancelled or refused
// WriteDataset writes nothing: no file, no temporary file, no directory it
// made.
func TestWriteDatasetLeavesNothing(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		opts DatasetOptions
	}{
		{"cancelled", cancelled, DatasetOptions{Splits: []string{"val"}, Algorithms: []string{"bfs"}}},
		{"unknown split", context.Background(), DatasetOptions{Splits: []string{"dev"}}},
		{"unknown algorithm", context.Background(), DatasetOptions{Algorithms: []string{"bogosort"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			if _, err := WriteDataset(tc.ctx, dir, tc.opts); err == nil {
				t.Fatal("WriteDataset succeeded")
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the directory is there (%v), want none", err)
			}
		})
	}
}

// TestWriteDatasetProgress checks the progress reports: every sample of
// every file counted once, over the whole dataset, labelled by file.
func TestWriteDatasetProgress(t *testing.T) {
	var labels []string
	last, total := 0, 0
	_, err := WriteDataset(context.Background(), t.TempDir(), DatasetOptions{Splits: []string{"val", "test"},
		Algorithms: []string{"minimum", "bfs"}, Uncompressed: true,
		Progress: func(done, tot int, label string) {
			if done < last {
				t.Errorf("progress went back from %d to %d", last, done)
			}
			last, total = done, tot
			if !slices.Contains(labels, label) {
				labels = append(labels, label)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, sp := range []string{"val", "test"} {
		for _, a := range []string{"minimum", "bfs"} {
			set, _ := CLRS30Split(a, sp)
			want += set.NumSamples
		}
	}
	sort.Strings(labels)
	if last != want || total != want || !slices.Equal(labels, []string{"bfs/test", "bfs/val", "minimum/test", "minimum/val"}) {
		t.Errorf("progress ended at %d of %d over %v; want %d of %d over the four files", last, total, labels, want, want)
	}
}

func TestLargestFirst(t *testing.T) {
	for _, tc := range []struct {
		sizes []int64
		want  []int
	}{
		{nil, []int{}},
		{[]int64{5}, []int{0}},
		{[]int64{1, 3, 2}, []int{1, 2, 0}},
		{[]int64{2, 7, 2, 7}, []int{1, 3, 0, 2}}, // equals keep their order
	} {
		got, err := largestFirst(len(tc.sizes), func(i int) (int64, error) { return tc.sizes[i], nil })
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("largestFirst(%v) = %v, %v; want %v", tc.sizes, got, err, tc.want)
		}
	}
	if _, err := largestFirst(2, func(int) (int64, error) { return 0, errors.New("no estimate") }); err == nil {
		t.Error("largestFirst passed over a failed estimate")
	}
}

// TestWriteQueueTakesLargestFirst checks that writers take the waiting
// file with the most bytes, that push waits while the queue is full, and
// that a failure stops both sides.
func TestWriteQueueTakesLargestFirst(t *testing.T) {
	var files []*SplitFile
	for _, algo := range []string{"minimum", "floyd_warshall", "bfs"} {
		f, err := SampleSplitFile(algo, "val")
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	bySize := slices.Clone(files)
	slices.SortFunc(bySize, func(a, b *SplitFile) int { return int(b.Bytes() - a.Bytes()) })
	q := newWriteQueue(3)
	for i, f := range files {
		if !q.push(i, f) {
			t.Fatal("push refused")
		}
	}
	// The push that waits for room brings the smallest file, so that
	// whenever it lands (after the first pop, perhaps before the second)
	// the two largest are still the two taken.
	pushed := make(chan bool)
	go func() { pushed <- q.push(3, bySize[2]) }()
	select {
	case <-pushed:
		t.Fatal("push into a full queue did not wait")
	case <-time.After(50 * time.Millisecond):
	}
	var got []string
	for range 2 {
		_, f, ok := q.pop()
		if !ok {
			t.Fatal("pop found nothing")
		}
		got = append(got, f.Algorithm)
	}
	if !<-pushed {
		t.Fatal("push refused once there was room")
	}
	if want := []string{bySize[0].Algorithm, bySize[1].Algorithm}; !slices.Equal(got, want) {
		t.Errorf("taken %v, want %v (the most bytes first)", got, want)
	}
	q.fail()
	if _, _, ok := q.pop(); ok {
		t.Error("pop after a failure handed out a file")
	}
	if q.push(4, files[0]) {
		t.Error("push after a failure was accepted")
	}
}
