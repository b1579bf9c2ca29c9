package results

import (
	"math"
	"strings"
	"testing"
)

// The expected intervals are scipy's (scipy.stats.ttest_ind(a, b,
// equal_var=False).confidence_interval(0.95), scipy 1.x in the project's
// Python environment), not this package's own output.
func TestWelchInterval(t *testing.T) {
	for _, tc := range []struct {
		name   string
		a, b   []float64 // scores, fractions
		lo, hi float64   // points
		ok     bool
	}{
		{"five seeds each", []float64{.50, .55, .60, .52, .58}, []float64{.62, .70, .65, .68, .61}, -16.011694817288134, -4.388305182711872, true},
		{"one seed", []float64{.5}, []float64{.6, .7}, -15, -15, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lo, hi, ok := WelchInterval(seedStats(tc.a), seedStats(tc.b))
			if ok != tc.ok || math.Abs(lo-tc.lo) > 1e-6 || math.Abs(hi-tc.hi) > 1e-6 {
				t.Errorf("WelchInterval = [%v, %v] %v; want [%v, %v] %v", lo, hi, ok, tc.lo, tc.hi, tc.ok)
			}
		})
	}
}

func TestParitySeedsVerdicts(t *testing.T) {
	row := func(sys, algo string, seed int, test float64) ParityRow {
		return ParityRow{System: sys, Algo: algo, Processor: "mpnn", Steps: parityBudget.steps, Hidden: parityBudget.hidden,
			Batch: parityBudget.batch, Seed: seed, Test: &test}
	}
	var rows []ParityRow
	for i, x := range []float64{.50, .55, .60, .52, .58} {
		rows = append(rows, row("narlab", "worse", 43+i, x), row("reference", "worse", 43+i, x+0.12))
		rows = append(rows, row("narlab", "same", 43+i, x), row("reference", "same", 43+i, .55))
	}
	// Seed 42 chose the rows: shown apart, left out of the verdict (were
	// it counted, "same" would fail).
	rows = append(rows, row("narlab", "same", 42, 0), row("reference", "same", 42, .9))
	rows = append(rows, row("reference", "short", 43, .5))
	v := view{&Set{ParitySeeds: rows}}
	judged, pass, listed := v.ParitySeedsCounts()
	if judged != 2 || pass != 1 || listed != 3 {
		t.Errorf("counts: judged %d, pass %d, listed %d; want 2, 1, 3", judged, pass, listed)
	}
	table := v.ParitySeedsTable()
	// The pooled line's figures are scipy's (t over the rows' differences
	// −12 and 0: numpy mean ± scipy.stats.t.ppf(0.975, 1)·sd/√2; the
	// half-widths of the rows' Welch intervals 6.01 and 5.12).
	for _, want := range []string{"| same | mpnn | 90.0 → 0.0 | 55.0 ± 0.0 (5) |", "passes", "fails", "incomplete (1 + 0 of 5 + 5 seeds)",
		"mean difference is -6.0 points (95 % interval [-82.2, +70.2]", "6.0 points wide each way (median)"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
}
