package results

import (
	"fmt"
	"io"
	"time"
)

// TrainingHeader writes the demo's line that opens its training (the line
// `narlab demo` prints, and the README's transcript starts with).
func (d *Demo) TrainingHeader(w io.Writer) {
	fmt.Fprintf(w, "== 2/3 training an %s on %s (%d steps, hidden %d, batch %d, CLRS-30 train split at n=%d) on %s\n",
		processorName(d.Processor), d.Algo, d.Steps, d.Hidden, d.Batch, d.TrainNodes, d.Backend)
}

// Summary writes the demo's summary: its figures beside the paper's and
// chance. `narlab demo` prints it, and the README shows it from the
// committed row, so the two cannot disagree.
func (d *Demo) Summary(w io.Writer) {
	name := processorName(d.Processor)
	fmt.Fprintf(w, "== 3/3 summary (%s in all)\n", time.Duration(d.TotalS*float64(time.Second)).Round(time.Second))
	fmt.Fprintf(w, "  %-34s %6.1f%%  (best validation %.1f%% at step %d, n=%d)\n",
		fmt.Sprintf("narlab %s, test at n=%d:", name, d.TestNodes), 100*d.Test, 100*d.BestVal, d.BestStep, d.TrainNodes)
	if d.PaperTest > 0 {
		fmt.Fprintf(w, "  %-34s %6.1f%%  (± %.1f, 10,000 steps, CLRS paper Table 2)\n",
			fmt.Sprintf("paper's %s, test at n=%d:", name, d.TestNodes), d.PaperTest, d.PaperStd)
	}
	if d.TestNodes > 0 {
		fmt.Fprintf(w, "  %-34s %6.1f%%  (a uniformly random parent pointer among %d nodes)\n", "chance:", 100.0/float64(d.TestNodes), d.TestNodes)
	}
	fmt.Fprintf(w, "  %-34s %.2f steps/s steady state on %s (first step, with compilation: %.1fs; training and test %s)\n", "speed:",
		d.StepsPerS, d.Backend, d.FirstStepS, time.Duration(d.TrainS*float64(time.Second)).Round(time.Second))
}

func processorName(p string) string {
	switch p {
	case "mpnn":
		return "MPNN"
	case "pgn":
		return "PGN"
	}
	return p
}
