package mlflow

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A spool whose records were partly delivered from memory has gaps in its
// sequence numbers: OpenSpool accepts a gap that state.json acknowledges,
// and refuses one it does not (records would be missing).
func TestSpoolGaps(t *testing.T) {
	tests := []struct {
		name    string
		seqs    []int64
		acked   int64
		wantErr string // "" : opens
		pending int64
	}{
		{"no gap", []int64{1, 2, 3, 4}, 2, "", 2},
		{"a gap acknowledged", []int64{1, 2, 5, 6}, 4, "", 2},
		{"a gap acknowledged, all delivered", []int64{1, 2, 5, 6}, 6, "", 0},
		{"two gaps acknowledged", []int64{1, 4, 7, 8}, 6, "", 2},
		{"a gap not acknowledged", []int64{1, 2, 5, 6}, 3, "sequence 5 after 2", 0},
		{"a gap with nothing acknowledged", []int64{1, 2, 5}, 0, "sequence 5 after 2", 0},
		{"a repeated number", []int64{1, 2, 2, 3}, 1, "sequence 2 after 2", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := newSpoolDir(t)
			s, err := CreateSpool(dir, SpoolMeta{Experiment: "e", Tracking: "http://x"})
			if err != nil {
				t.Fatal(err)
			}
			s.state.Acked = tt.acked
			if err := s.writeState(); err != nil {
				t.Fatal(err)
			}
			s.Close()
			var data []byte
			for _, seq := range tt.seqs {
				line, err := encodeRecord(record{Seq: seq, Op: opLogBatch, Body: []byte(`{"metrics":[]}`)})
				if err != nil {
					t.Fatal(err)
				}
				data = append(data, line...)
			}
			// A last record that follows: a damaged line before it is an
			// error, not a torn last line.
			last, _ := encodeRecord(record{Seq: tt.seqs[len(tt.seqs)-1] + 1, Op: opLogBatch, Body: []byte(`{"metrics":[]}`)})
			data = append(data, last...)
			if err := os.WriteFile(filepath.Join(dir, requestsFile), data, 0o644); err != nil {
				t.Fatal(err)
			}
			s, err = OpenSpool(dir)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("OpenSpool: %v; want an error saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if got := s.Pending(); got != tt.pending+1 {
				t.Errorf("pending %d; want %d", got, tt.pending+1)
			}
			// The reader gives the records after the acknowledged ones, in
			// order.
			rd, err := s.reader()
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			var got []int64
			for {
				rec, ok, err := s.nextRecord(rd)
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					break
				}
				got = append(got, rec.Seq)
				if err := s.ack(rec, nil); err != nil {
					t.Fatal(err)
				}
			}
			var want []int64
			for _, seq := range append(tt.seqs, tt.seqs[len(tt.seqs)-1]+1) {
				if seq > tt.acked {
					want = append(want, seq)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("records read %v; want %v", got, want)
			}
		})
	}
}

func TestLostErrorMessage(t *testing.T) {
	disk := &DiskError{Dir: "/d/spool", What: "writing requests.jsonl", FS: "the filesystem tmpfs on /d, 0 B free of 64 KiB",
		Err: &os.PathError{Op: "write", Path: "/d/spool/requests.jsonl", Err: syscall.ENOSPC}}
	tests := []struct {
		name string
		err  *LostError
		want []string
	}{
		{"points and the end", &LostError{Points: map[string]int64{"val/score": 2, "train/loss": 30}, Other: []string{"the run's end status (it stays RUNNING on the server)"},
			Disk: disk, Server: errors.New("connection refused")},
			[]string{"32 metric points (train/loss: 30, val/score: 2)", "1 other requests (the run's end status", "writing requests.jsonl in /d/spool: no space left on device (the filesystem tmpfs on /d, 0 B free of 64 KiB)", "connection refused"}},
		{"only other requests", &LostError{Other: []string{"artifact a.png"}},
			[]string{"1 other requests (artifact a.png)", "the spool's disk did not take them,"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := tt.err.Error()
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%q lacks %q", msg, w)
				}
			}
			if !errors.Is(tt.err, ErrLost) {
				t.Error("a LostError does not wrap ErrLost")
			}
		})
	}
}

func TestBytesText(t *testing.T) {
	for n, want := range map[uint64]string{0: "0 B", 1023: "1023 B", 1024: "1 KiB", 65536: "64 KiB", 1536: "1.5 KiB", 3 << 30: "3 GiB"} {
		if got := bytesText(n); got != want {
			t.Errorf("bytesText(%d) = %q; want %q", n, got, want)
		}
	}
}
