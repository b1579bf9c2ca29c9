package results

import (
	"strings"
	"testing"
)

// TestSteadySummaries checks the steady-state sentences and the FLOP table
// on hand-made rows: which rows count (the CPU's, the default execution),
// the speed-ups' range and median, the rows under 2×, failed sides, the
// loads, and the share of the peak.
func TestSteadySummaries(t *testing.T) {
	side := func(steps float64) *SteadySide { return &SteadySide{StepsPerS: steps, CPUSPerStep: 1 / steps} }
	gflop, peak, mflop := 8.0, 40.0, 100.0
	flopSide := side(4)
	flopSide.GFLOPPerS, flopSide.MFLOPPerStep = &gflop, &mflop
	rows := []SteadyRow{
		{Backend: "xla-cpu", Algo: "bfs", Processor: "mpnn", Load1: 3, Reference: side(1), Narlab: flopSide, PeakGFLOPPerS: &peak},
		{Backend: "xla-cpu", Algo: "dfs", Processor: "mpnn", Load1: 9.5, Reference: side(2), Narlab: side(3)},
		{Backend: "xla-cpu", Algo: "kmp_matcher", Processor: "triplet_gmpnn", Load1: 5, Reference: side(1), Narlab: side(2.5)},
		{Backend: "xla-cpu", Algo: "dfs", Processor: "mpnn", Exec: "step_loop=loop", Load1: 1, Reference: side(1), Narlab: side(0.5)},
		{Backend: "xla-cuda", Algo: "dfs", Processor: "mpnn", Load1: 0, Reference: side(10), Narlab: side(1)},
		{Backend: "xla-cpu", Algo: "minimum", Processor: "mpnn", Load1: 4, Reference: nil, Narlab: side(1)},
	}
	cases := []struct {
		name string
		rows []SteadyRow
		got  func(v view) string
		want []string
	}{
		{"summary", rows, view.SteadySummary, []string{
			"4 of the protocol's 60 rows measured (1 with a side that failed)",
			"1.50–4.00× the reference's (median 2.50×)", "1 under 2× (dfs/mpnn 1.50×)", "load 3.0–9.5",
		}},
		{"brief", rows, view.SteadyBrief, []string{"4 of the protocol's 60 rows measured", "1.50–4.00×", "(median 2.50×), 1 under 2×."}},
		{"flops", rows, view.SteadyFLOPTable, []string{"| bfs | mpnn | 4.000 | 100 | 8.00 | 0.4 | 40.0 |  | 20.0 % | 3.0 |"}},
		{"summary none", nil, view.SteadySummary, []string{"No row measured yet"}},
		{"flops none", rows[1:], view.SteadyFLOPTable, []string{"Not measured yet"}},
		{"every one at 2×", rows[:1], view.SteadySummary, []string{"1 of the protocol's 60 rows measured", "every one at 2× or more"}},
	}
	for _, c := range cases {
		got := c.got(view{&Set{Steady: c.rows}})
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q does not contain %q", c.name, got, w)
			}
		}
	}
}
