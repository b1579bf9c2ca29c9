package notebooks

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/narlab/narlab/internal/project"
	"github.com/narlab/narlab/internal/testenv"
	"github.com/narlab/narlab/kernel"
)

type notebook struct {
	Cells []struct {
		CellType string `json:"cell_type"`
		Source   any    `json:"source"`
		Metadata struct {
			Execution map[string]string `json:"execution"` // nbclient's timestamps
		} `json:"metadata"`
		Outputs []struct {
			OutputType string                     `json:"output_type"`
			Name       string                     `json:"name"`
			Data       map[string]json.RawMessage `json:"data"`
			Text       any                        `json:"text"`
			EName      string                     `json:"ename"`
			EValue     string                     `json:"evalue"`
		} `json:"outputs"`
	} `json:"cells"`
	Metadata struct {
		Kernelspec struct {
			Name string `json:"name"`
		} `json:"kernelspec"`
		Narlab struct {
			Expect map[string]int `json:"expect"`
		} `json:"narlab"`
	} `json:"metadata"`
}

// TestNotebooks executes every notebook with the installed "Go (narlab)"
// kernel (nbconvert, no --allow-errors: any failing cell fails the test)
// and checks that the outputs each notebook declares (images, HTML tables)
// are there. It sets NARLAB_NOTEBOOK_QUICK=1, with which a notebook that
// has a reader's size and a smaller one (07's prompts; each says so where
// it chooses) runs the smaller: every cell still runs, on less work. GoNB
// links each cell into a program of its own; the kernel's go commands get
// -ldflags=-w (no DWARF debugging tables, which take most of the link on a
// small machine, and which no cell's output uses). XLA compiles at its
// default optimization level, as for a reader: at backend optimization
// level 0 (faster to compile) lib/nn's reference checks on XLA failed
// (bfs's pointers all 0), so no test runs XLA at a level users do not.
func TestNotebooks(t *testing.T) {
	if testing.Short() {
		t.Skip("executes every notebook in a real Jupyter kernel; run without -short")
	}
	py, err := project.Python()
	if err != nil {
		t.Fatalf("%v (the notebook test needs the project's Jupyter environment)", err)
	}
	out, err := exec.Command(py, "-m", "jupyter_client.kernelspecapp", "list", "--json").Output()
	if err != nil || !strings.Contains(string(out), `"`+kernel.Name+`"`) {
		t.Fatalf("the %q kernel is not installed (run `make setup` or `bin/narlab kernel install`): %v", kernel.Name, err)
	}
	files, _ := filepath.Glob("*.ipynb")
	if len(files) == 0 {
		t.Fatal("no notebooks found")
	}
	// The notebooks start narlab's local servers as a reader's would (the
	// MLflow server; notebook 07 the llama.cpp server), in a data directory
	// of this test's own that they share; the test stops them at its end,
	// also when it fails.
	data := t.TempDir()
	t.Cleanup(func() {
		stopped, err := testenv.StopServers(data)
		if err != nil {
			t.Errorf("stopping the notebooks' local servers: %v", err)
		}
		for _, s := range stopped {
			t.Logf("stopped the server recorded in %s", s)
		}
	})
	for _, f := range files {
		t.Run(strings.TrimSuffix(f, ".ipynb"), func(t *testing.T) {
			var src notebook
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(raw, &src); err != nil {
				t.Fatalf("%s is not a notebook: %v", f, err)
			}
			if src.Metadata.Kernelspec.Name != kernel.Name {
				t.Fatalf("%s uses kernel %q, want %q", f, src.Metadata.Kernelspec.Name, kernel.Name)
			}
			dir := t.TempDir()
			start := time.Now()
			cmd := exec.Command(py, "-m", "nbconvert", "--to", "notebook", "--execute",
				"--ExecutePreprocessor.timeout=1200", "--ExecutePreprocessor.kernel_name="+kernel.Name,
				"--output-dir", dir, f)
			cmd.Env = append(os.Environ(), "NARLAB_ROOT="+rootDir(t), "NARLAB_DATA="+data, "NARLAB_NOTEBOOK_QUICK=1",
				"GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -ldflags=-w"))
			combined, err := cmd.CombinedOutput()
			elapsed := time.Since(start)
			if err != nil {
				t.Fatalf("executing %s failed after %v: %v\n%s", f, elapsed.Round(time.Second), err, tail(string(combined), 4000))
			}
			t.Logf("%s executed in %v", f, elapsed.Round(100*time.Millisecond))
			raw, err = os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			var done notebook
			if err := json.Unmarshal(raw, &done); err != nil {
				t.Fatal(err)
			}
			t.Logf("slowest cells: %s", slowestCells(done, 4))
			counts := map[string]int{}
			for i, c := range done.Cells {
				for _, o := range c.Outputs {
					if o.OutputType == "error" {
						t.Errorf("cell %d raised %s: %s", i, o.EName, o.EValue)
					}
					if o.OutputType == "stream" && strings.Contains(textOf(o.Text), "panic:") {
						t.Errorf("cell %d panicked: %s", i, tail(textOf(o.Text), 2000))
					}
					if o.OutputType == "stream" && o.Name == "stderr" && strings.TrimSpace(textOf(o.Text)) != "" {
						t.Errorf("cell %d wrote to stderr (a pink box in the notebook): %s", i, tail(textOf(o.Text), 500))
					}
					for mime := range o.Data {
						counts[mime]++
					}
					if raw, ok := o.Data["image/png"]; ok {
						if err := checkPNG(raw); err != nil {
							t.Errorf("cell %d: %v", i, err)
						}
					}
				}
			}
			for mime, n := range src.Metadata.Narlab.Expect {
				if counts[mime] < n {
					t.Errorf("%s produced %d outputs of type %s, want at least %d (all: %v)", f, counts[mime], mime, n, counts)
				}
			}
		})
	}
}

// Figures must fill a notebook's output column and show something.
const (
	minFigureWidth  = 700 // pixels
	minFigureHeight = 200
)

// checkPNG decodes an image/png output (base64 in a JSON string) and
// checks it is notebook-sized and not blank: at least minFigureWidth wide,
// and with ink on at least 1 % of its pixels, in more than two colours.
func checkPNG(raw json.RawMessage) error {
	var b64 string
	if err := json.Unmarshal(raw, &b64); err != nil {
		return fmt.Errorf("image/png output is not a string: %w", err)
	}
	data, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(b64, "\n", ""))
	if err != nil {
		return fmt.Errorf("image/png output is not base64: %w", err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("image/png output does not decode: %w", err)
	}
	return checkFigure(img)
}

// checkFigure is checkPNG's test of a decoded image.
func checkFigure(img image.Image) error {
	r := img.Bounds()
	if r.Dx() < minFigureWidth || r.Dy() < minFigureHeight {
		return fmt.Errorf("figure is %d×%d px, want at least %d×%d", r.Dx(), r.Dy(), minFigureWidth, minFigureHeight)
	}
	bg := img.At(r.Min.X, r.Min.Y)
	colours := map[color.RGBA64]bool{}
	ink := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := img.At(x, y)
			if c != bg {
				ink++
			}
			if len(colours) < 3 {
				colours[color.RGBA64Model.Convert(c).(color.RGBA64)] = true
			}
		}
	}
	if frac := float64(ink) / float64(r.Dx()*r.Dy()); frac < 0.01 || len(colours) < 3 {
		return fmt.Errorf("figure looks blank: %.2f %% of its pixels differ from the background, %d colours", 100*frac, len(colours))
	}
	return nil
}

// slowestCells lists the n code cells of an executed notebook that took
// longest (index and seconds, from nbclient's execution timestamps), to
// show where a notebook's time goes.
func slowestCells(nb notebook, n int) string {
	type cell struct {
		i int
		d time.Duration
	}
	var cells []cell
	for i, c := range nb.Cells {
		start, err1 := time.Parse(time.RFC3339Nano, c.Metadata.Execution["iopub.execute_input"])
		end, err2 := time.Parse(time.RFC3339Nano, c.Metadata.Execution["shell.execute_reply"])
		if err1 == nil && err2 == nil {
			cells = append(cells, cell{i, end.Sub(start)})
		}
	}
	sort.Slice(cells, func(a, b int) bool { return cells[a].d > cells[b].d })
	var parts []string
	for _, c := range cells[:min(n, len(cells))] {
		parts = append(parts, fmt.Sprintf("cell %d %.1fs", c.i, c.d.Seconds()))
	}
	return strings.Join(parts, ", ")
}

func rootDir(t *testing.T) string {
	r, err := project.Root()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func textOf(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		var b strings.Builder
		for _, s := range x {
			b.WriteString(s.(string))
		}
		return b.String()
	}
	return ""
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
