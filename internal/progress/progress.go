// Package progress reports how far a long command has got, in a form that
// fits where the output goes: on a terminal, one line redrawn in place (a
// bar, the count, the rate and the time left); anywhere else (a log file, a
// pipe, a notebook cell), a plain line now and then — every Every steps or
// Interval, whichever comes first, and with KeepAlive at least every
// Interval even while the task is stuck on one step — with no carriage
// returns or ANSI codes, so a log stays one line per report. A task that
// stops early ends with Stop ("interrupted after 1m05s") instead of Done
// ("done in 1m05s").
//
//	p := progress.New(os.Stderr, "generating bfs/train", 1000)
//	for i := range 1000 {
//		...
//		p.Update(i+1, "")
//	}
//	p.Done()
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
)

// Defaults for the plain (non-terminal) form.
const (
	// DefaultEvery is how many steps pass between two plain lines at most:
	// a tenth of the total (at least one step).
	DefaultEvery = 10
	// DefaultInterval is the longest time between two plain lines.
	DefaultInterval = 30 * time.Second
	// redraw is the shortest time between two redraws of the terminal bar.
	redraw   = 100 * time.Millisecond
	barWidth = 24
)

// Bar reports the progress of one task of known (or, with total ≤ 0,
// unknown) size. Its methods are safe for concurrent use; a nil *Bar does
// nothing.
type Bar struct {
	mu       sync.Mutex
	w        io.Writer
	label    string
	total    int
	tty      bool
	start    time.Time
	now      func() time.Time
	last     time.Time // last line written
	lastDone int       // steps at the last plain line
	base     int       // steps done before this report began (Resume)
	done     int
	extra    string
	width    int // the terminal line last drawn, to blank it when it shrinks
	finished bool
	stopped  string        // why the task stopped before its end (Stop)
	updated  time.Time     // the last Update (or the start)
	waiting  time.Duration // set while a KeepAlive line is written
	quit     chan struct{} // closed to end KeepAlive's goroutine

	// Every is the most steps between two plain lines (default: a tenth of
	// the total); Interval the most time (default DefaultInterval). Set
	// them before the first Update.
	Every    int
	Interval time.Duration
}

// New starts a report on w for a task of total steps labelled label. The
// form is chosen by w: a terminal gets the redrawn bar, anything else plain
// lines.
func New(w io.Writer, label string, total int) *Bar {
	return newBar(w, label, total, IsTerminal(w), time.Now)
}

func newBar(w io.Writer, label string, total int, tty bool, now func() time.Time) *Bar {
	every := 0
	if total > 0 {
		every = max(1, total/DefaultEvery)
	}
	t := now()
	return &Bar{w: w, label: label, total: total, tty: tty, start: t, now: now, last: t, updated: t,
		Every: every, Interval: DefaultInterval}
}

// IsTerminal reports whether w is a terminal (an *os.File on a tty).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Resume records that done steps were complete before this report began
// (a resumed training): the counts start there, and the rate and the time
// left count only the steps done since, so a run resumed at 500 of 1,000
// does not report the first 500 as done in no time. Call it before the
// first Update.
func (b *Bar) Resume(done int) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.base, b.done, b.lastDone = done, done, done
}

// Update records that done steps are complete; extra (may be empty) is
// shown after the counts, e.g. "loss 0.41".
func (b *Bar) Update(done int, extra string) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return
	}
	b.done, b.extra = done, extra
	now := b.now()
	b.updated = now
	if b.tty {
		if now.Sub(b.last) >= redraw || (b.total > 0 && done >= b.total) {
			b.drawTTY(now)
		}
		return
	}
	due := (b.Every > 0 && done-b.lastDone >= b.Every) || (b.Interval > 0 && now.Sub(b.last) >= b.Interval)
	if due && done > b.lastDone {
		b.plainLine(now, false)
	}
}

// Done ends the report with a last line giving the steps done and the time
// taken. Later calls do nothing.
func (b *Bar) Done() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return
	}
	b.finished = true
	b.stopKeepAlive()
	now := b.now()
	if b.tty {
		b.drawTTY(now)
		fmt.Fprintln(b.w)
		return
	}
	b.plainLine(now, true)
}

// Stop ends the report of a task that did not complete, with a last line
// that says so: "…, interrupted after 1m05s" for Stop("interrupted")
// where Done would say "done in 1m05s". Later calls (and Done) do
// nothing.
func (b *Bar) Stop(why string) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return
	}
	b.finished, b.stopped = true, why
	b.stopKeepAlive()
	now := b.now()
	if b.tty {
		b.drawTTY(now)
		fmt.Fprintln(b.w)
		return
	}
	b.plainLine(now, true)
}

// KeepAlive makes sure that, away from a terminal, a line is written at
// least every Interval even while no Update comes (a long step, a
// compilation, an evaluation): such a line ends with how long the bar has
// waited since its last update. It returns the function that stops it; Done
// and Stop stop it too. On a terminal it does nothing: the bar stays on
// screen.
func (b *Bar) KeepAlive() (stop func()) {
	if b == nil || b.tty || b.Interval <= 0 {
		return func() {}
	}
	b.mu.Lock()
	if b.quit != nil { // already kept alive
		b.mu.Unlock()
		return func() {}
	}
	quit := make(chan struct{})
	b.quit = quit
	interval := b.Interval
	b.mu.Unlock()
	tick := max(interval/6, time.Millisecond)
	go func() {
		t := time.NewTicker(tick)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				b.mu.Lock()
				if b.finished {
					b.mu.Unlock()
					return
				}
				// Updates still coming write the line themselves (one is
				// due by Interval); this one is for a task stuck on a step.
				if now := b.now(); now.Sub(b.last) >= b.Interval && now.Sub(b.updated) >= tick {
					b.waiting = now.Sub(b.updated)
					b.plainLine(now, false)
					b.waiting = 0
				}
				b.mu.Unlock()
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { b.mu.Lock(); b.stopKeepAlive(); b.mu.Unlock() }) }
}

// stopKeepAlive ends the KeepAlive goroutine, if any (b.mu held).
func (b *Bar) stopKeepAlive() {
	if b.quit != nil {
		close(b.quit)
		b.quit = nil
	}
}

// plainLine writes "label: 120/1000 (12%) 35.2/s, 25s left, extra".
func (b *Bar) plainLine(now time.Time, final bool) {
	var s strings.Builder
	s.WriteString(b.label)
	s.WriteString(": ")
	s.WriteString(b.counts())
	elapsed := now.Sub(b.start)
	if r := b.rate(elapsed); r != "" {
		s.WriteString(" " + r)
	}
	switch {
	case final && b.stopped != "":
		s.WriteString(", " + b.stopped + " after " + fmtDuration(elapsed))
	case final:
		s.WriteString(", done in " + fmtDuration(elapsed))
	default:
		if eta, ok := b.eta(elapsed); ok {
			s.WriteString(", " + fmtDuration(eta) + " left")
		}
	}
	if b.extra != "" {
		s.WriteString(", " + b.extra)
	}
	if b.waiting > 0 {
		s.WriteString("; no update for " + fmtDuration(b.waiting))
	}
	s.WriteByte('\n')
	io.WriteString(b.w, s.String())
	b.last, b.lastDone = now, b.done
}

// drawTTY redraws the one-line bar in place.
func (b *Bar) drawTTY(now time.Time) {
	elapsed := now.Sub(b.start)
	var s strings.Builder
	s.WriteString("\r" + b.label + " ")
	if b.total > 0 {
		fill := min(barWidth, barWidth*b.done/b.total)
		s.WriteString("[" + strings.Repeat("█", fill) + strings.Repeat("·", barWidth-fill) + "] ")
	}
	s.WriteString(b.counts())
	if r := b.rate(elapsed); r != "" {
		s.WriteString(" " + r)
	}
	if b.stopped != "" {
		s.WriteString(" " + b.stopped + " after " + fmtDuration(elapsed))
	} else if b.total > 0 && b.done >= b.total {
		s.WriteString(" in " + fmtDuration(elapsed))
	} else if eta, ok := b.eta(elapsed); ok {
		s.WriteString(" ETA " + fmtDuration(eta))
	}
	if b.extra != "" {
		s.WriteString("  " + b.extra)
	}
	line := s.String()
	n := len([]rune(line))
	if n < b.width {
		line += strings.Repeat(" ", b.width-n) // blank what the last line left
	}
	b.width = n
	io.WriteString(b.w, line)
	b.last = now
}

func (b *Bar) counts() string {
	if b.total > 0 {
		return fmt.Sprintf("%d/%d (%d%%)", b.done, b.total, 100*b.done/b.total)
	}
	return fmt.Sprintf("%d", b.done)
}

func (b *Bar) rate(elapsed time.Duration) string {
	if elapsed <= 0 || b.done <= b.base {
		return ""
	}
	r := float64(b.done-b.base) / elapsed.Seconds()
	switch {
	case r >= 100:
		return fmt.Sprintf("%.0f/s", r)
	case r >= 1:
		return fmt.Sprintf("%.1f/s", r)
	default:
		return fmt.Sprintf("%.1fs each", 1/r)
	}
}

func (b *Bar) eta(elapsed time.Duration) (time.Duration, bool) {
	if b.total <= 0 || b.done <= b.base || b.done >= b.total {
		return 0, false
	}
	per := elapsed / time.Duration(b.done-b.base)
	return per * time.Duration(b.total-b.done), true
}

// fmtDuration writes d as 4s, 1m05s or 2h03m.
func fmtDuration(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	default:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
}
