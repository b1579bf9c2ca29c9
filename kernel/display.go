package kernel

import (
	"fmt"
	"html"
	"image/color"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/plots"
)

// Out receives the text rendering of displays when not running in a
// notebook; nil (the default) means standard output at the time of the
// call.
var Out io.Writer

func out() io.Writer {
	if Out != nil {
		return Out
	}
	return os.Stdout
}

// InNotebook reports whether the program runs inside a GoNB cell.
func InNotebook() bool { return gonbui.IsNotebook }

// Show displays a figure inline as a PNG image.
func Show(f *plots.Figure) error {
	png, err := f.PNG()
	if err != nil {
		return err
	}
	if InNotebook() {
		gonbui.DisplayPNG(png)
		gonbui.Sync()
	} else {
		fmt.Fprintf(out(), "[figure %q: %d bytes of PNG]\n", figureTitle(f), len(png))
	}
	return nil
}

// figureTitle is the figure's title, or its first panel's for a figure
// whose only title is on its panel.
func figureTitle(f *plots.Figure) string {
	if f.Title != "" {
		return f.Title
	}
	for _, row := range f.Panels {
		for _, p := range row {
			if p != nil {
				return p.Title.Text
			}
		}
	}
	return ""
}

// HTML displays raw HTML.
func HTML(s string) {
	if InNotebook() {
		gonbui.DisplayHTML(s)
		gonbui.Sync()
	} else {
		fmt.Fprintln(out(), s)
	}
}

// Markdown displays Markdown text.
func Markdown(s string) {
	if InNotebook() {
		gonbui.DisplayMarkdown(s)
		gonbui.Sync()
	} else {
		fmt.Fprintln(out(), s)
	}
}

// tableHTML renders a table as HTML (cells are escaped).
func tableHTML(headers []string, rows [][]string) string {
	var b strings.Builder
	// A wide table scrolls sideways inside its own box instead of being
	// cut off at the edge of the output area.
	b.WriteString(`<div style="overflow-x:auto;max-width:100%"><table class="narlab"><thead><tr>`)
	for _, h := range headers {
		b.WriteString("<th>" + html.EscapeString(h) + "</th>")
	}
	b.WriteString("</tr></thead><tbody>")
	for _, r := range rows {
		b.WriteString("<tr>")
		for _, c := range r {
			b.WriteString("<td>" + html.EscapeString(c) + "</td>")
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</tbody></table></div>")
	return b.String()
}

// Table displays a table (HTML in a notebook, aligned text elsewhere).
func Table(headers []string, rows [][]string) {
	if InNotebook() {
		gonbui.DisplayHTML(tableHTML(headers, rows))
		gonbui.Sync()
		return
	}
	width := make([]int, len(headers))
	for i, h := range headers {
		width[i] = len(h)
	}
	for _, r := range rows {
		for i, c := range r {
			if i < len(width) {
				width[i] = max(width[i], len(c))
			}
		}
	}
	line := func(cells []string) {
		var b strings.Builder
		for i, c := range cells[:min(len(cells), len(width))] {
			fmt.Fprintf(&b, "%-*s  ", width[i], c)
		}
		fmt.Fprintln(out(), strings.TrimRight(b.String(), " "))
	}
	line(headers)
	for _, r := range rows {
		line(r)
	}
}

// ShowResults displays a computed results table (best scores in bold).
func ShowResults(t *plots.ResultsTable) {
	if InNotebook() {
		gonbui.DisplayHTML(t.HTML())
		gonbui.Sync()
	} else {
		fmt.Fprint(out(), t.Markdown())
	}
}

// Trajectory displays an algorithm's hint sequence. For algorithms whose
// hints include a node pointer (pred_h for the sorting and searching
// algorithms), it draws the CLRS paper's Figure 2 picture: one row per
// step, nodes labelled with their keys, predecessor pointers as arrows and
// the one-hot iterators (i, j, …) as coloured rings. Other algorithms get a
// table of their hints, one row per step.
func Trajectory(t *clrs.Trajectory) error {
	f, err := TrajectoryFigure(t)
	if err == nil {
		return Show(f)
	}
	headers := []string{"step"}
	for _, h := range t.Hints {
		headers = append(headers, h.Name)
	}
	var rows [][]string
	for s := 0; s < t.Length; s++ {
		row := []string{strconv.Itoa(s)}
		for _, h := range t.Hints {
			row = append(row, formatStep(h, s))
		}
		rows = append(rows, row)
	}
	Table(headers, rows)
	return nil
}

func formatStep(h clrs.DataPoint, s int) string {
	v := h.Step(s)
	if h.Type == clrs.MaskOne && len(h.Shape) == 2 {
		for i, x := range v {
			if x == 1 {
				return strconv.Itoa(i)
			}
		}
	}
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.FormatFloat(x, 'g', 3, 64)
	}
	if len(parts) > 16 {
		parts = append(parts[:16], "…")
	}
	return strings.Join(parts, " ")
}

// TrajectoryFigure builds the Figure 2-style picture of a trajectory whose
// hints include a node pointer; it returns an error for other algorithms.
func TrajectoryFigure(t *clrs.Trajectory) (*plots.Figure, error) {
	var ptr *clrs.DataPoint
	for i, h := range t.Hints {
		if h.Location == clrs.Node && h.Type == clrs.Pointer && len(h.Shape) == 2 {
			if ptr == nil || h.Name == "pred_h" {
				ptr = &t.Hints[i]
			}
		}
	}
	if ptr == nil {
		return nil, fmt.Errorf("kernel: %s has no node-pointer hint to draw", t.Algorithm)
	}
	n := ptr.Shape[1]
	labels := make([]string, n)
	for i := range labels {
		labels[i] = strconv.Itoa(i)
	}
	if key, ok := t.Probe("key"); ok && key.Location == clrs.Node && len(key.Data) == n {
		for i, v := range key.Data {
			labels[i] = strconv.FormatFloat(v, 'g', 3, 64)
		}
	}
	colors := []color.Color{plots.MarkBlue, plots.MarkRed, color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
		color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}, color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff}}
	var steps []plots.ListStep
	for s := 0; s < t.Length; s++ {
		st := plots.ListStep{Title: fmt.Sprintf("%s, step %d", t.Algorithm, s)}
		for _, v := range ptr.Step(s) {
			st.Pointers = append(st.Pointers, int(v))
		}
		k := 0
		for _, h := range t.Hints {
			if h.Location != clrs.Node || h.Type != clrs.MaskOne || len(h.Shape) != 2 {
				continue
			}
			for i, v := range h.Step(s) {
				if v == 1 {
					st.Marks = append(st.Marks, plots.Mark{Node: i, Label: h.Name, Color: colors[k%len(colors)]})
				}
			}
			k++
		}
		steps = append(steps, st)
	}
	return plots.ListSteps(labels, steps)
}

// Progress is a progress line updated in place in a notebook (or printed
// at most once a second elsewhere).
type Progress struct {
	mu    sync.Mutex
	id    string
	label string
	start time.Time
	last  time.Time
	base  int // steps done before this display began (Resume)
}

// NewProgress starts a progress display.
func NewProgress(label string) *Progress {
	p := &Progress{label: label, start: time.Now()}
	if InNotebook() {
		p.id = "narlab-progress-" + gonbui.UniqueID()
		gonbui.UpdateHTML(p.id, html.EscapeString(label))
	}
	return p
}

// Resume records that done steps were complete before this display began
// (a resumed training), so that the rate counts only the steps done since.
func (p *Progress) Resume(done int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.base, p.start = done, time.Now()
}

// Update shows done of total with a rate and extra information (for
// example the latest scores).
func (p *Progress) Update(done, total int, info string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if !InNotebook() && now.Sub(p.last) < time.Second && done < total {
		return
	}
	p.last = now
	rate := float64(max(done-p.base, 0)) / now.Sub(p.start).Seconds()
	pct := 100 * float64(done) / float64(max(total, 1))
	text := fmt.Sprintf("%s: %d/%d (%.0f%%, %.1f/s) %s", p.label, done, total, pct, rate, info)
	if InNotebook() {
		gonbui.UpdateHTML(p.id, fmt.Sprintf(
			`<div style="font-family:monospace">%s <progress value="%d" max="%d"></progress></div>`,
			html.EscapeString(text), done, total))
	} else {
		fmt.Fprintln(out(), text)
	}
}

// RunLink displays a link to an MLflow run's page. url is the address
// MLflow's client builds (tracking.Run.URL, mlflow.Client.RunURL), so
// notebooks, the CLI and logs all link to the same page; text defaults to
// "MLflow run".
func RunLink(url, text string) {
	if text == "" {
		text = "MLflow run"
	}
	if InNotebook() {
		gonbui.DisplayHTML(runLinkHTML(url, text))
		gonbui.Sync()
	} else {
		fmt.Fprintf(out(), "%s: %s\n", text, url)
	}
}

func runLinkHTML(url, text string) string {
	return fmt.Sprintf(`<a href="%s" target="_blank">%s</a>`, html.EscapeString(url), html.EscapeString(text))
}
