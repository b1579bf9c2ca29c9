package results

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
)

// The multi-seed parity table (issue 48): several seeds per side on chosen
// rows of the 30-algorithm parity table, at its budget, and for each row
// the difference of the mean test scores (narlab − reference) with a 95 %
// confidence interval. A row passes when its interval contains 0 or lies
// above it: narlab is not shown to be worse than the reference.

// SeedStats are one side's test scores of a row over its seeds, in points.
type SeedStats struct {
	N        int
	Mean, SD float64 // SD: the sample standard deviation (n − 1); 0 for one seed
}

// seedStats summarises scores (fractions) in points.
func seedStats(xs []float64) SeedStats {
	s := SeedStats{N: len(xs)}
	if s.N == 0 {
		return s
	}
	for _, x := range xs {
		s.Mean += 100 * x
	}
	s.Mean /= float64(s.N)
	if s.N > 1 {
		var ss float64
		for _, x := range xs {
			d := 100*x - s.Mean
			ss += d * d
		}
		s.SD = math.Sqrt(ss / float64(s.N-1))
	}
	return s
}

// WelchInterval is the 95 % confidence interval of the difference of the
// means a.Mean − b.Mean of two independent samples with unequal variances
// (Welch's t interval, the Welch–Satterthwaite degrees of freedom). ok is
// false when a side has fewer than two values or both have no spread
// (then the interval is the point difference, lo = hi).
func WelchInterval(a, b SeedStats) (lo, hi float64, ok bool) {
	d := a.Mean - b.Mean
	if a.N < 2 || b.N < 2 {
		return d, d, false
	}
	va, vb := a.SD*a.SD/float64(a.N), b.SD*b.SD/float64(b.N)
	se := math.Sqrt(va + vb)
	if se == 0 {
		return d, d, true
	}
	df := (va + vb) * (va + vb) / (va*va/float64(a.N-1) + vb*vb/float64(b.N-1))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(0.975)
	return d - t*se, d + t*se, true
}

// seedRow is one row of the multi-seed table: its two sides over the
// judged seeds, and the test scores of the selection seed (NaN where
// missing), apart.
type seedRow struct {
	algo, proc   string
	ref, nl      SeedStats
	selRef, selN float64
}

// selectionSeed is the seed of the 30-algorithm parity table, whose gaps
// chose the rows: its runs are shown apart and left out of the verdict,
// which a row's own selection would bias against narlab (the widest gaps
// of one seed are partly that seed's chance).
var selectionSeed = parityBudget.seed

// seedRows groups ParitySeeds by (algorithm, processor) at the parity
// budget; failed runs are left out (and counted by the caller).
func (v view) seedRows() (rows []seedRow, failed int) {
	type acc struct {
		ref, nl      []float64
		selRef, selN float64
	}
	by := map[[2]string]*acc{}
	var keys [][2]string
	for _, r := range v.Set.ParitySeeds {
		if r.Steps != parityBudget.steps || r.Hidden != parityBudget.hidden || r.Batch != parityBudget.batch {
			continue
		}
		if r.Failed != "" || r.Test == nil {
			failed++
			continue
		}
		k := [2]string{r.Algo, r.Processor}
		if by[k] == nil {
			by[k] = &acc{selRef: math.NaN(), selN: math.NaN()}
			keys = append(keys, k)
		}
		if r.Seed == selectionSeed {
			if r.System == "reference" {
				by[k].selRef = *r.Test
			} else {
				by[k].selN = *r.Test
			}
			continue
		}
		if r.System == "reference" {
			by[k].ref = append(by[k].ref, *r.Test)
		} else {
			by[k].nl = append(by[k].nl, *r.Test)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][0]+"/"+keys[i][1] < keys[j][0]+"/"+keys[j][1] })
	for _, k := range keys {
		a := by[k]
		rows = append(rows, seedRow{algo: k[0], proc: k[1], ref: seedStats(a.ref), nl: seedStats(a.nl), selRef: a.selRef, selN: a.selN})
	}
	return rows, failed
}

// complete says whether a row has the seeds the table asks for on both sides.
func (r seedRow) complete() bool { return r.ref.N >= minSeeds && r.nl.N >= minSeeds }

// minSeeds is the number of seeds per side a row needs to be judged.
const minSeeds = 5

// ParitySeedsCounts are the multi-seed table's rows judged (both sides with
// minSeeds seeds), of them the rows that pass, and the rows listed.
func (v view) ParitySeedsCounts() (judged, pass, listed int) {
	rows, _ := v.seedRows()
	for _, r := range rows {
		if !r.complete() {
			continue
		}
		judged++
		if _, hi, _ := WelchInterval(r.nl, r.ref); hi >= 0 {
			pass++
		}
	}
	return judged, pass, len(rows)
}

// ParitySeedsSummary is the README's parity line's count: the rows that
// pass of those judged, or, before any is, how many of the listed rows
// have five seeds on both sides.
func (v view) ParitySeedsSummary() string {
	judged, pass, listed := v.ParitySeedsCounts()
	if judged == 0 {
		return fmt.Sprintf("five seeds a side on 0 of %d rows so far", listed)
	}
	return fmt.Sprintf("%d of %d rows pass over five seeds a side", pass, judged)
}

// ParitySeedsTable is the multi-seed parity table: per row each side's
// mean ± sd of the test score over its seeds, the difference of the means
// with its 95 % interval, and the verdict.
func (v view) ParitySeedsTable() string {
	rows, failed := v.seedRows()
	t := newTable(cols(2, 8), "algorithm", "processor", fmt.Sprintf("seed %d: reference → narlab", selectionSeed),
		"reference test", "narlab test", "difference", "95 % interval", "verdict")
	sel := func(x float64) string {
		if math.IsNaN(x) {
			return "—"
		}
		return f(100*x, 1)
	}
	ms := func(s SeedStats) string {
		if s.N == 0 {
			return "—"
		}
		return fmt.Sprintf("%s ± %s (%d)", f(s.Mean, 1), f(s.SD, 1), s.N)
	}
	for _, r := range rows {
		diff, iv, verdict := "—", "—", fmt.Sprintf("incomplete (%d + %d of %d + %d seeds)", r.ref.N, r.nl.N, minSeeds, minSeeds)
		if r.ref.N > 0 && r.nl.N > 0 {
			diff = signed(r.nl.Mean - r.ref.Mean)
		}
		if lo, hi, ok := WelchInterval(r.nl, r.ref); ok {
			iv = fmt.Sprintf("[%s, %s]", signed(lo), signed(hi))
			if r.complete() {
				verdict = "passes"
				if hi < 0 {
					verdict = "fails"
				}
			}
		}
		t.row(r.algo, r.proc, sel(r.selRef)+" → "+sel(r.selN), ms(r.ref), ms(r.nl), diff, iv, verdict)
	}
	judged, pass, listed := v.ParitySeedsCounts()
	var b strings.Builder
	b.WriteString(t.String())
	fmt.Fprintf(&b, "\n\n%d of %d rows judged pass (%d rows listed; a row is judged when both sides have %d seeds besides seed %d)",
		pass, judged, listed, minSeeds, selectionSeed)
	if failed > 0 {
		fmt.Fprintf(&b, "; %d runs failed and are left out", failed)
	}
	b.WriteString(". Scores in points of the CLRS-30 test split (n=64); difference: narlab − reference; interval: Welch's t.")
	if s := pooledSeedDifference(rows); s != "" {
		b.WriteString(" " + s)
	}
	return b.String()
}

// pooledSeedDifference says, over the judged rows (two or more), the mean
// of their differences with a 95 % t interval over the rows, which shows a
// gap common to the rows that each row's own interval is too wide to see,
// and the rows' median interval half-width, the smallest gap one row can
// show.
func pooledSeedDifference(rows []seedRow) string {
	var diffs, halves []float64
	for _, r := range rows {
		if !r.complete() {
			continue
		}
		lo, hi, _ := WelchInterval(r.nl, r.ref)
		diffs, halves = append(diffs, r.nl.Mean-r.ref.Mean), append(halves, (hi-lo)/2)
	}
	if len(diffs) < 2 {
		return ""
	}
	var st SeedStats
	for _, d := range diffs {
		st.Mean += d
	}
	st.N = len(diffs)
	st.Mean /= float64(st.N)
	for _, d := range diffs {
		st.SD += (d - st.Mean) * (d - st.Mean)
	}
	st.SD = math.Sqrt(st.SD / float64(st.N-1))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(st.N - 1)}.Quantile(0.975)
	half := t * st.SD / math.Sqrt(float64(st.N))
	sort.Float64s(halves)
	return fmt.Sprintf("Over the %d judged rows, the mean difference is %s points (95 %% interval [%s, %s], t over the rows); "+
		"a row's interval is %s points wide each way (median), the smallest gap one row can show.",
		st.N, signed(st.Mean), signed(st.Mean-half), signed(st.Mean+half), f(halves[len(halves)/2], 1))
}
