package kernel

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/protocol"
	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/plots"
)

// The tests in this file share the package's Out and gonbui's global
// notebook state, so none of them runs in parallel.

// capture sends the text renderings to a buffer for the test.
func capture(t *testing.T) *bytes.Buffer {
	var b bytes.Buffer
	old := Out
	Out = &b
	t.Cleanup(func() { Out = old })
	return &b
}

func testFigure(t *testing.T) *plots.Figure {
	t.Helper()
	fig, err := plots.Bars([]string{"a", "b"}, []plots.BarGroup{{Label: "x", Values: []float64{1, 2}}}, plots.BarOptions{Title: "two bars"})
	if err != nil {
		t.Fatal(err)
	}
	return fig
}

// handTrajectory has one scalar hint and one mask_one hint over three
// steps, and no node pointer, so Trajectory falls back to a table.
func handTrajectory() *clrs.Trajectory {
	return &clrs.Trajectory{
		Algorithm: "hand",
		Length:    3,
		Hints: []clrs.DataPoint{
			{Probe: clrs.Probe{Name: "x", Stage: clrs.Hint, Location: clrs.Graph, Type: clrs.Scalar},
				Array: clrs.Array{Shape: []int{3, 1}, Data: []float64{0.5, 0.25, 1.0 / 3}}},
			{Probe: clrs.Probe{Name: "i", Stage: clrs.Hint, Location: clrs.Node, Type: clrs.MaskOne},
				Array: clrs.Array{Shape: []int{3, 3}, Data: []float64{1, 0, 0, 0, 0, 1, 0, 1, 0}}},
		},
	}
}

func TestTextRendering(t *testing.T) {
	if InNotebook() {
		t.Skip("running inside a notebook")
	}
	tests := []struct {
		name string
		show func(t *testing.T) error
		want string
	}{
		{"table aligns columns", func(*testing.T) error {
			Table([]string{"algo", "score"}, [][]string{{"bfs", "99.5"}, {"insertion_sort", "7"}})
			return nil
		}, "algo            score\nbfs             99.5\ninsertion_sort  7\n"},
		{"html as is", func(*testing.T) error { HTML("<b>x</b>"); return nil }, "<b>x</b>\n"},
		{"markdown as is", func(*testing.T) error { Markdown("# T"); return nil }, "# T\n"},
		{"run link", func(*testing.T) error { RunLink("http://h/#/experiments/1/runs/ab", ""); return nil },
			"MLflow run: http://h/#/experiments/1/runs/ab\n"},
		{"trajectory without a pointer hint", func(*testing.T) error { return Trajectory(handTrajectory()) },
			"step  x      i\n0     0.5    0\n1     0.25   2\n2     0.333  1\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := capture(t)
			if err := tc.show(t); err != nil {
				t.Fatal(err)
			}
			if out.String() != tc.want {
				t.Errorf("printed\n%q\nwant\n%q", out.String(), tc.want)
			}
		})
	}
}

func TestShowText(t *testing.T) {
	out := capture(t)
	if err := Show(testFigure(t)); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^\[figure "two bars": [1-9][0-9]* bytes of PNG\]\n$`).MatchString(out.String()) {
		t.Errorf("printed %q", out.String())
	}
}

func TestProgressText(t *testing.T) {
	out := capture(t)
	p := NewProgress("train")
	p.Update(1, 4, "loss 0.5")
	p.Update(2, 4, "too soon: not printed")
	p.Update(4, 4, "done")
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "train: 1/4 (25%, ") || !strings.HasSuffix(lines[0], "/s) loss 0.5") ||
		!strings.HasPrefix(lines[1], "train: 4/4 (100%, ") || !strings.HasSuffix(lines[1], "/s) done") {
		t.Errorf("printed %q; want the first update and the last (the middle one is within a second)", lines)
	}
}

// TestProgressResumed checks that a display resumed at step 900 rates
// only the steps done since: one step in 0.2 s is at most 5/s, not 4,500.
func TestProgressResumed(t *testing.T) {
	out := capture(t)
	p := NewProgress("train")
	p.Resume(900)
	time.Sleep(200 * time.Millisecond)
	p.Update(901, 1000, "")
	var rate float64
	if _, err := fmt.Sscanf(out.String(), "train: 901/1000 (90%%, %f/s)", &rate); err != nil || rate > 5 {
		t.Errorf("printed %q (rate %v, %v); want at most 5/s", out.String(), rate, err)
	}
}

func TestTrajectoryFigure(t *testing.T) {
	s, err := clrs.NewSampler("insertion_sort", clrs.Length(4), clrs.Seed(1), clrs.NumSamples(1))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := s.Sample()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := TrajectoryFigure(tr); err != nil {
		t.Errorf("insertion_sort has pred_h: %v", err)
	}
	if _, err := TrajectoryFigure(handTrajectory()); err == nil || !strings.Contains(err.Error(), "no node-pointer hint") {
		t.Errorf("err = %v, want no node-pointer hint", err)
	}
}

// gonbEnd plays GoNB's end of the pipes a notebook program writes display
// data to: it decodes every bundle, answers gonbui's sync requests and
// hands the other bundles to the test.
func gonbEnd(t *testing.T) <-chan protocol.DisplayData {
	dir := t.TempDir()
	toKernel, fromKernel := filepath.Join(dir, "out"), filepath.Join(dir, "back")
	for _, p := range []string{toKernel, fromKernel} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skipf("no named pipes here: %v", err)
		}
	}
	t.Setenv(protocol.GONB_PIPE_ENV, toKernel)
	t.Setenv(protocol.GONB_PIPE_BACK_ENV, fromKernel)
	got := make(chan protocol.DisplayData, 16)
	go func() {
		defer close(got)
		in, err := os.OpenFile(toKernel, os.O_RDONLY, 0)
		if err != nil {
			return
		}
		back, err := os.OpenFile(fromKernel, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		dec, enc := gob.NewDecoder(in), gob.NewEncoder(back)
		for {
			var d protocol.DisplayData
			if err := dec.Decode(&d); err != nil {
				return
			}
			var cv *protocol.CommValue
			switch v := d.Data[protocol.MIMECommValue].(type) {
			case protocol.CommValue:
				cv = &v
			case *protocol.CommValue:
				cv = v
			}
			if cv != nil && cv.Address == protocol.GonbuiSyncAddress {
				if enc.Encode(&protocol.CommValue{Address: protocol.GonbuiSyncAckAddress, Value: cv.Value}) != nil {
					return
				}
				continue
			}
			got <- d
		}
	}()
	return got
}

func TestNotebookBundles(t *testing.T) {
	if gonbui.IsNotebook {
		t.Skip("running inside a notebook")
	}
	got := gonbEnd(t)
	gonbui.IsNotebook = true
	t.Cleanup(func() { gonbui.IsNotebook = false })
	next := func(t *testing.T) protocol.DisplayData {
		t.Helper()
		select {
		case d, ok := <-got:
			if !ok {
				t.Fatal("the pipe to GoNB closed")
			}
			return d
		case <-time.After(20 * time.Second):
			t.Fatal("no display data within 20s")
		}
		return protocol.DisplayData{}
	}
	html := func(t *testing.T, d protocol.DisplayData) string {
		t.Helper()
		s, ok := d.Data[protocol.MIMETextHTML].(string)
		if !ok || len(d.Data) != 1 {
			t.Fatalf("bundle %v: want only text/html", d.Data)
		}
		return s
	}
	out := capture(t)

	t.Run("table", func(t *testing.T) {
		Table([]string{"a", "b & c"}, [][]string{{"1", "<x>"}})
		want := `<div style="overflow-x:auto;max-width:100%"><table class="narlab"><thead><tr><th>a</th><th>b &amp; c</th></tr></thead>` +
			`<tbody><tr><td>1</td><td>&lt;x&gt;</td></tr></tbody></table></div>`
		if s := html(t, next(t)); s != want {
			t.Errorf("html\n%s\nwant\n%s", s, want)
		}
	})
	t.Run("printf", func(t *testing.T) {
		Printf("%d < %s\n", 3, "4")
		want := `<pre style="margin:0;padding:0;background:none">3 &lt; 4</pre>`
		if s := html(t, next(t)); s != want {
			t.Errorf("html %q, want %q", s, want)
		}
	})
	t.Run("html", func(t *testing.T) {
		HTML("<i>raw</i>")
		if s := html(t, next(t)); s != "<i>raw</i>" {
			t.Errorf("html %q", s)
		}
	})
	t.Run("markdown", func(t *testing.T) {
		Markdown("**bold**")
		d := next(t)
		if s, ok := d.Data[protocol.MIMETextMarkdown].(string); !ok || s != "**bold**" || len(d.Data) != 1 {
			t.Errorf("bundle %v: want text/markdown **bold**", d.Data)
		}
	})
	t.Run("figure", func(t *testing.T) {
		if err := Show(testFigure(t)); err != nil {
			t.Fatal(err)
		}
		d := next(t)
		png, ok := d.Data[protocol.MIMEImagePNG].([]byte)
		if !ok || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
			t.Errorf("bundle holds %T, want PNG bytes", d.Data[protocol.MIMEImagePNG])
		}
	})
	t.Run("run link", func(t *testing.T) {
		RunLink("http://h:5000/#/experiments/1/runs/ab?workflowType=machine_learning", "run <ab>")
		want := `<a href="http://h:5000/#/experiments/1/runs/ab?workflowType=machine_learning" target="_blank">run &lt;ab&gt;</a>`
		if s := html(t, next(t)); s != want {
			t.Errorf("html\n%s\nwant\n%s", s, want)
		}
	})
	t.Run("progress updates one block", func(t *testing.T) {
		p := NewProgress("fit <model>")
		first := next(t)
		if !strings.HasPrefix(first.DisplayID, "narlab-progress-") || html(t, first) != "fit &lt;model&gt;" {
			t.Fatalf("first block %q: %v", first.DisplayID, first.Data)
		}
		p.Update(3, 4, "loss 0.1")
		d := next(t)
		if d.DisplayID != first.DisplayID {
			t.Errorf("update went to block %q, want %q", d.DisplayID, first.DisplayID)
		}
		s := html(t, d)
		if !regexp.MustCompile(`^<div style="font-family:monospace">fit &lt;model&gt;: 3/4 \(75%, [0-9.]+/s\) loss 0.1 <progress value="3" max="4"></progress></div>$`).MatchString(s) {
			t.Errorf("html %s", s)
		}
	})
	if out.Len() != 0 {
		t.Errorf("a notebook display also printed %q", out.String())
	}
}
