package progress

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// clock is a fake time source advanced by the test.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// TestPlainLines checks the non-terminal form: a line every tenth of the
// total (or every Interval), no carriage returns or escape codes, an ETA,
// and a last line with the time taken.
func TestPlainLines(t *testing.T) {
	for _, tc := range []struct {
		name      string
		total     int
		stepEvery time.Duration // time per step
		interval  time.Duration
		wantLines int // progress lines before Done's
		wantIn    []string
	}{
		{"a line per tenth", 100, time.Millisecond, time.Hour, 10, []string{"gen: 10/100 (10%)", "left", "gen: 100/100 (100%)"}},
		{"a line per interval", 1000, time.Second, 30 * time.Second, 33, []string{"gen: 30/1000 (3%) 1.0/s, 16m10s left"}},
		{"unknown total", 0, time.Second, 10 * time.Second, 5, []string{"gen: 10 1.0/s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			c := &clock{t: time.Unix(0, 0)}
			b := newBar(&buf, "gen", tc.total, false, c.now)
			b.Interval = tc.interval
			n := tc.total
			if n == 0 {
				n = 50
			}
			for i := 1; i <= n; i++ {
				c.t = c.t.Add(tc.stepEvery)
				b.Update(i, "")
			}
			before := strings.Count(buf.String(), "\n")
			b.Done()
			b.Done() // a second Done writes nothing
			out := buf.String()
			if before != tc.wantLines {
				t.Errorf("%d lines before Done, want %d:\n%s", before, tc.wantLines, out)
			}
			if got := strings.Count(out, "\n"); got != before+1 {
				t.Errorf("Done wrote %d lines, want 1", got-before)
			}
			if strings.ContainsAny(out, "\r\x1b") {
				t.Errorf("plain output holds a carriage return or an escape code: %q", out)
			}
			for _, w := range tc.wantIn {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if last := out[strings.LastIndex(strings.TrimSuffix(out, "\n"), "\n")+1:]; !strings.Contains(last, "done in") {
				t.Errorf("last line %q does not say how long it took", last)
			}
		})
	}
}

// TestResume checks a report that starts part-way (a resumed training):
// the counts start there, and the rate and the time left count only the
// steps done in this report, on both forms.
func TestResume(t *testing.T) {
	for _, tc := range []struct {
		name string
		tty  bool
		want string
	}{
		{"plain", false, "train: 530/1000 (53%) 1.0/s, 7m50s left"},
		{"terminal", true, "530/1000 (53%) 1.0/s ETA 7m50s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			c := &clock{t: time.Unix(0, 0)}
			b := newBar(&buf, "train", 1000, tc.tty, c.now)
			b.Resume(500)
			for i := 501; i <= 530; i++ {
				c.t = c.t.Add(time.Second)
				b.Update(i, "")
			}
			if out := buf.String(); !strings.Contains(out, tc.want) {
				t.Errorf("output %q lacks %q", out, tc.want)
			}
		})
	}
}

// TestTerminalBar checks the terminal form: one line redrawn in place
// with a bar and an ETA, at most every 100 ms, ended by a newline.
func TestTerminalBar(t *testing.T) {
	var buf bytes.Buffer
	c := &clock{t: time.Unix(0, 0)}
	b := newBar(&buf, "gen", 40, true, c.now)
	for i := 1; i <= 40; i++ {
		c.t = c.t.Add(50 * time.Millisecond) // two steps per redraw
		b.Update(i, "bfs/train")
	}
	b.Done()
	out := buf.String()
	if n := strings.Count(out, "\r"); n < 15 || n > 25 {
		t.Errorf("%d redraws for 40 steps of 50 ms, want about 20", n)
	}
	if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") {
		t.Errorf("want exactly one newline, at the end: %q", out)
	}
	if !strings.Contains(out, "ETA") || !strings.Contains(out, "█") || !strings.Contains(out, "bfs/train") {
		t.Errorf("no bar, ETA or extra text in %q", out)
	}
	if last := out[strings.LastIndex(out, "\r"):]; !strings.Contains(last, "40/40 (100%)") || !strings.Contains(last, " in 2s") {
		t.Errorf("final redraw %q, want 40/40 and the time taken", last)
	}
}

// TestNilBar checks a nil *Bar (a --quiet command) does nothing.
func TestNilBar(t *testing.T) {
	var b *Bar
	b.Update(1, "x")
	b.Done()
}

func TestIsTerminal(t *testing.T) {
	if IsTerminal(&bytes.Buffer{}) {
		t.Error("a bytes.Buffer is not a terminal")
	}
}

func TestFmtDuration(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{{4 * time.Second, "4s"}, {65 * time.Second, "1m05s"}, {2*time.Hour + 3*time.Minute, "2h03m"}, {400 * time.Millisecond, "0s"}} {
		if got := fmtDuration(tc.d); got != tc.want {
			t.Errorf("fmtDuration(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

// TestStop checks the last line of a task that stopped early, in both
// forms: it says why and after how long, never "done".
func TestStop(t *testing.T) {
	for _, tc := range []struct {
		name  string
		tty   bool
		why   string
		want  string
		avoid string
	}{
		{"plain, interrupted", false, "interrupted", "gen: 3/10 (30%) 1.0/s, interrupted after 3s", "done in"},
		{"plain, failed", false, "failed", "failed after 3s", "done in"},
		{"terminal, interrupted", true, "interrupted", "3/10 (30%) 1.0/s interrupted after 3s", " in 3s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			c := &clock{t: time.Unix(0, 0)}
			b := newBar(&buf, "gen", 10, tc.tty, c.now)
			for i := 1; i <= 3; i++ {
				c.t = c.t.Add(time.Second)
				b.Update(i, "")
			}
			b.Stop(tc.why)
			b.Done() // after Stop: nothing
			out := buf.String()
			last := out[strings.LastIndexAny(strings.TrimSuffix(out, "\n"), "\n\r")+1:]
			if !strings.Contains(last, tc.want) || strings.Contains(last, tc.avoid) {
				t.Errorf("last line %q, want %q and no %q", last, tc.want, tc.avoid)
			}
			if !strings.HasSuffix(out, "\n") {
				t.Errorf("output does not end its line: %q", out)
			}
		})
	}
}

// syncBuffer is a bytes.Buffer safe for KeepAlive's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestKeepAlive checks that away from a terminal a kept-alive bar writes a
// line every Interval while no Update comes, saying how long it has
// waited, and stops with Done; on a terminal it writes nothing.
func TestKeepAlive(t *testing.T) {
	for _, tc := range []struct {
		name      string
		tty       bool
		wantLines bool
	}{
		{"plain", false, true},
		{"terminal", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf syncBuffer
			b := newBar(&buf, "train", 100, tc.tty, time.Now)
			b.Interval = 20 * time.Millisecond
			b.Update(1, "loss 0.5")
			stop := b.KeepAlive()
			time.Sleep(150 * time.Millisecond) // a long step: no Update
			b.Done()
			stop() // after Done: nothing more
			n := strings.Count(buf.String(), "no update for")
			if got := n > 0; got != tc.wantLines {
				t.Errorf("%d kept-alive lines, want some: %v\n%s", n, tc.wantLines, buf.String())
			}
			if tc.wantLines && !strings.Contains(buf.String(), "train: 1/100 (1%)") {
				t.Errorf("kept-alive lines do not show the count:\n%s", buf.String())
			}
			after := buf.String()
			time.Sleep(60 * time.Millisecond)
			if buf.String() != after {
				t.Errorf("lines written after Done:\n%s", buf.String()[len(after):])
			}
		})
	}
}
