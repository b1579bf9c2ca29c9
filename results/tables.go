package results

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/narlab/narlab/lib/clrs/paper"
)

// view is what the page templates see: the rows, and the tables and
// figures derived from them.
type view struct{ *Set }

// ---- the demo

// Demo is the latest demo row (the README's transcript and summary).
func (v view) Demo() (*Demo, error) {
	if len(v.Set.Demo) == 0 {
		return nil, fmt.Errorf("results: demo.jsonl has no row (scripts/bench_demo.sh)")
	}
	return &v.Set.Demo[len(v.Set.Demo)-1], nil
}

// Transcript is the demo's output as the README shows it: the demo's own
// header and summary (Demo.TrainingHeader, Demo.Summary) from the latest
// row, and the lines that name this machine's paths shortened.
func (v view) Transcript() (string, error) {
	d, err := v.Demo()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	d.TrainingHeader(&b)
	b.WriteString("\n")
	d.Summary(&b)
	b.WriteString("\n  MLflow run:        http://127.0.0.1:PORT/#/experiments/ID/runs/RUN\n")
	b.WriteString("  data (numpy):      numpy.load(\"…/data/demo/clrs30-val/bfs_val.npz\")\n")
	b.WriteString("  notebooks:         make jupyter   (Jupyter on notebooks/, kernel \"Go (narlab)\")")
	return b.String(), nil
}

// ---- CLRS-30 generation

func (v view) datasetRows(split string) (algos, ends []DatasetRow, base *DatasetRow) {
	// The latest run of the split: the rows of its last row's date, commit
	// and machine (rows are appended in time order).
	var last Provenance
	for _, r := range v.Set.Dataset {
		if r.Split == split {
			last = r.Provenance
		}
	}
	for i, r := range v.Set.Dataset {
		if r.Split != split || r.Date != last.Date || r.Commit != last.Commit || r.Machine != last.Machine {
			continue
		}
		if r.Algo != "" {
			algos = append(algos, r)
		} else {
			ends = append(ends, r)
			if r.Baseline {
				base = &v.Set.Dataset[i]
			}
		}
	}
	return algos, ends, base
}

// DatasetAlgos sums the per-algorithm rows: the train split's sampling
// time per side and the range of the speed-ups, with the algorithms at
// either end.
func (v view) DatasetAlgos() string {
	algos, _, _ := v.datasetRows("train")
	if len(algos) == 0 {
		return "(no per-algorithm rows)"
	}
	var ref, nl float64
	lo, hi := algos[0], algos[0]
	x := func(r DatasetRow) float64 { return *r.ReferenceS / *r.NarlabS }
	for _, r := range algos {
		ref += *r.ReferenceS
		nl += *r.NarlabS
		if x(r) < x(lo) {
			lo = r
		}
		if x(r) > x(hi) {
			hi = r
		}
	}
	return fmt.Sprintf("Sampling the train split, %d algorithms, one CPU a side: the reference %s s, narlab %s s (%s); per algorithm "+
		"from %s (%s) to %s (%s); each algorithm's row is in `results/dataset.jsonl`.",
		len(algos), f(ref, 1), f(nl, 2), ratio(ref, nl, 0), ratio(*lo.ReferenceS, *lo.NarlabS, 0), lo.Algo, ratio(*hi.ReferenceS, *hi.NarlabS, 0), hi.Algo)
}

// DatasetEnds is the end-to-end table of a split, speed-ups against its
// baseline row.
func (v view) DatasetEnds(split string) string {
	_, ends, base := v.datasetRows(split)
	t := newTable([]int{1, 2, 3, 4}, "the "+map[string]string{"train": "train split", "all": "whole dataset (train, val, test)"}[split], "time (s)", "speed-up", "size", "peak memory (MiB)")
	for _, r := range ends {
		tm := secs(*r.Seconds)
		if r.MinS != nil {
			tm += fmt.Sprintf(" (%s–%s)", secs(*r.MinS), secs(*r.MaxS))
		}
		x := ""
		if base != nil && !strings.HasPrefix(r.What, "reference") { // speed-ups are narlab's
			x = ratio(*base.Seconds, *r.Seconds, 0)
			if r.MinS != nil {
				x += fmt.Sprintf(" (%s–%s)", ratio(*base.Seconds, *r.MaxS, 0), ratio(*base.Seconds, *r.MinS, 0))
			}
		}
		t.row(r.What, tm, x, r.Size, pf(r.PeakMiB, 0, ""))
	}
	return t.String()
}

// secs formats seconds: two decimals under 10 s, one above.
func secs(x float64) string {
	if x < 10 {
		return f(x, 2)
	}
	return f(x, 1)
}

// Gen returns the end-to-end row with the key and its speed-up over the
// split's baseline.
func (v view) Gen(split, key string) (string, error) {
	_, ends, base := v.datasetRows(split)
	for _, r := range ends {
		if r.Key == key && base != nil {
			return fmt.Sprintf("%s s, %s the reference samplers' %s s", f(*r.Seconds, 2), ratio(*base.Seconds, *r.Seconds, 0), f(*base.Seconds, 1)), nil
		}
	}
	return "", fmt.Errorf("results: dataset.jsonl has no %s row with key %q", split, key)
}

// ---- training speed

// train returns the latest row of each algorithm and processor, in the
// order of their first rows.
func (v view) train() []TrainRow {
	type key struct{ algo, proc string }
	latest := map[key]TrainRow{}
	var order []key
	for _, r := range v.Set.Train {
		k := key{r.Algo, r.Processor}
		if _, ok := latest[k]; !ok {
			order = append(order, k)
		}
		latest[k] = r
	}
	var out []TrainRow
	for _, k := range order {
		out = append(out, latest[k])
	}
	return out
}

// TrainTable is the training benchmark's table.
func (v view) TrainTable() string {
	t := newTable(cols(2, 9), "algorithm", "processor", "reference steps/s", "narlab steps/s", "speed-up",
		"reference first step (s)", "narlab first step (s)", "narlab warm-up (s)", "narlab host (ms/step)")
	for _, r := range v.train() {
		if r.Reference == nil || r.Narlab == nil {
			t.row(r.Algo, r.Processor, "failed", "failed", "", "", "", "", "")
			continue
		}
		t.row(r.Algo, r.Processor, f(r.Reference.StepsPerS, 2), f(r.Narlab.StepsPerS, 2), f(r.speedup(), 1)+"×",
			f(r.Reference.FirstStepS, 1), f(r.Narlab.FirstStepS, 1), pf(r.Narlab.WarmupS, 1, ""), pf(r.Narlab.HostMSPerStep, 1, ""))
	}
	return t.String()
}

func (r TrainRow) speedup() float64 {
	if r.Speedup != nil {
		return *r.Speedup
	}
	return r.Narlab.StepsPerS / r.Reference.StepsPerS
}

// TrainSpeedups is the range of the training table's speed-ups, over the
// rows of the given processors (all when none).
func (v view) TrainSpeedups(procs ...string) string {
	var xs []float64
	for _, r := range v.train() {
		if r.Reference != nil && r.Narlab != nil && (len(procs) == 0 || contains(procs, r.Processor)) {
			xs = append(xs, r.speedup())
		}
	}
	lo, hi := minMax(xs)
	return f(lo, 1) + "–" + f(hi, 1) + "×"
}

// ---- steady-state training, side by side

// steady returns the latest row of each backend, algorithm, processor and
// narlab execution, in the order of their first rows.
func (v view) steady() []SteadyRow {
	type key struct{ backend, algo, proc, exec string }
	latest := map[key]SteadyRow{}
	var order []key
	for _, r := range v.Set.Steady {
		k := key{r.Backend, r.Algo, r.Processor, r.Exec}
		if _, ok := latest[k]; !ok {
			order = append(order, k)
		}
		latest[k] = r
	}
	var out []SteadyRow
	for _, k := range order {
		out = append(out, latest[k])
	}
	return out
}

// SteadyTable is the side-by-side steady-state table of the rows on a
// CPU ("cpu") or a card ("cuda"): steps/s and CPU seconds a step per
// side, the first step and the peak resident memory (reference → narlab),
// narlab's matrix-product rate beside the run's measured peak, the load
// when the row began (on a card: first steps and card memory).
func (v view) SteadyTable(device string) string {
	rows := v.steadyRows(device)
	if len(rows) == 0 && device == "cuda" {
		return "Not measured yet: no card has been lent since the one-program step (its script is ready)."
	}
	if len(rows) == 0 {
		return "Not measured yet (`make bench-steady`)."
	}
	if device == "cuda" {
		return steadyCardTable(rows)
	}
	t := newTable(cols(2, 13), "algorithm", "processor", "reference steps/s", "narlab steps/s", "speed-up",
		"reference CPU s/step", "narlab CPU s/step", "CPU ratio", "first step (s)", "peak memory (MB)",
		"narlab GFLOP/s", "peak GFLOP/s", "load")
	for _, r := range rows {
		proc := r.Processor
		if r.Exec != "" {
			proc += " (" + r.Exec + ")"
		}
		if r.Reference == nil || r.Narlab == nil {
			t.row(r.Algo, proc, "failed", "failed", "", "", "", "", "", "", "", "", f(r.Load1, 1))
			continue
		}
		t.row(r.Algo, proc, f(r.Reference.StepsPerS, 3), f(r.Narlab.StepsPerS, 3), ratio(r.Narlab.StepsPerS, r.Reference.StepsPerS, 2),
			f(r.Reference.CPUSPerStep, 2), f(r.Narlab.CPUSPerStep, 2), ratio(r.Reference.CPUSPerStep, r.Narlab.CPUSPerStep, 2),
			f(r.Reference.FirstStepS, 1)+" → "+f(r.Narlab.FirstStepS, 1), f(r.Reference.PeakRSSMB, 0)+" → "+f(r.Narlab.PeakRSSMB, 0),
			pf(r.Narlab.GFLOPPerS, 1, ""), pf(r.PeakGFLOPPerS, 0, ""), f(r.Load1, 1))
	}
	return t.String()
}

// steadyCardTable is the steady-state table of rows on a card.
func steadyCardTable(rows []SteadyRow) string {
	t := newTable(cols(2, 9), "algorithm", "processor", "reference steps/s", "narlab steps/s", "speed-up",
		"reference first step (s)", "narlab first step (s)", "reference card MB", "narlab card MB")
	for _, r := range rows {
		proc := r.Processor
		if r.Exec != "" {
			proc += " (" + r.Exec + ")"
		}
		side := func(s *SteadySide) (steps, first, mb string) {
			if s == nil {
				return "did not finish", "", ""
			}
			return f(s.StepsPerS, 1), f(s.FirstStepS, 1), pf(s.GPUMB, 0, "")
		}
		rs, rf, rm := side(r.Reference)
		ns, nf, nm := side(r.Narlab)
		speedup := ""
		if r.Reference != nil && r.Narlab != nil {
			speedup = ratio(r.Narlab.StepsPerS, r.Reference.StepsPerS, 2)
		}
		t.row(r.Algo, proc, rs, ns, speedup, rf, nf, rm, nm)
	}
	return t.String()
}

// SteadyProvenance says where the steady-state rows on a CPU ("cpu") or a
// card ("cuda") were measured.
func (v view) SteadyProvenance(device string) string {
	var ps []Provenance
	for _, r := range v.steadyRows(device) {
		ps = append(ps, r.Provenance)
	}
	if len(ps) == 0 {
		return "No rows yet"
	}
	return provenance(ps)
}

// protocolRows is the number of the CLRS-30 protocol's rows: its 30
// algorithms with MPNN and with Triplet-GMPNN.
const protocolRows = 60

// medianOf is the median of xs (not empty; xs is sorted in place).
func medianOf(xs []float64) float64 {
	sort.Float64s(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// SteadyFLOPRows are the rows whose arithmetic rate issue 50 asks for
// beside the cores' measured peak.
var SteadyFLOPRows = []string{"bfs/mpnn", "floyd_warshall/mpnn", "insertion_sort/triplet_gmpnn"}

// steadyRows are the latest rows on a CPU ("cpu") or a card ("cuda").
func (v view) steadyRows(device string) []SteadyRow {
	var rows []SteadyRow
	for _, r := range v.steady() {
		if (r.Backend == "xla-cuda") == (device == "cuda") {
			rows = append(rows, r)
		}
	}
	return rows
}

// SteadySummary sums up the steady-state rows on a CPU: how many of the
// protocol's rows are measured (their default execution), the range and
// median of narlab's speed-up over the reference's steps/s, the rows under
// 2×, and the machine's load while they ran.
func (v view) SteadySummary() string {
	var speedups, loads []float64
	var under []string
	measured, failed := 0, 0
	for _, r := range v.steadyRows("cpu") {
		if r.Exec != "" {
			continue
		}
		measured++
		loads = append(loads, r.Load1)
		if r.Reference == nil || r.Narlab == nil {
			failed++
			continue
		}
		x := r.Narlab.StepsPerS / r.Reference.StepsPerS
		speedups = append(speedups, x)
		if x < 2 {
			under = append(under, fmt.Sprintf("%s/%s %s", r.Algo, r.Processor, ratio(r.Narlab.StepsPerS, r.Reference.StepsPerS, 2)))
		}
	}
	if measured == 0 {
		return "No row measured yet (`make bench-steady`)."
	}
	s := fmt.Sprintf("%d of the protocol's %d rows measured", measured, protocolRows)
	if failed > 0 {
		s += fmt.Sprintf(" (%d with a side that failed)", failed)
	}
	if len(speedups) > 0 {
		lo, hi := minMax(speedups)
		s += fmt.Sprintf(": narlab's steady state %s–%s the reference's (median %s)", f(lo, 2), ratio(hi, 1, 2), ratio(medianOf(speedups), 1, 2))
		if len(under) == 0 {
			s += ", every one at 2× or more"
		} else {
			s += fmt.Sprintf(", %d under 2× (%s)", len(under), strings.Join(under, ", "))
		}
	}
	lo, hi := minMax(loads)
	return s + fmt.Sprintf("; one-minute load %s–%s on the 2 cores while they ran.", f(lo, 1), f(hi, 1))
}

// SteadyBrief is SteadySummary in one sentence for docs/performance.md:
// the rows measured, the speed-ups' range and median, how many under 2×.
func (v view) SteadyBrief() string {
	var speedups []float64
	measured := 0
	for _, r := range v.steadyRows("cpu") {
		if r.Exec != "" {
			continue
		}
		measured++
		if r.Reference != nil && r.Narlab != nil {
			speedups = append(speedups, r.Narlab.StepsPerS/r.Reference.StepsPerS)
		}
	}
	if len(speedups) == 0 {
		return fmt.Sprintf("%d of the protocol's %d rows measured.", measured, protocolRows)
	}
	lo, hi := minMax(speedups)
	under := 0
	for _, x := range speedups {
		if x < 2 {
			under++
		}
	}
	return fmt.Sprintf("%d of the protocol's %d rows measured, narlab %s–%s the reference's steps/s (median %s), %d under 2×.",
		measured, protocolRows, f(lo, 2), ratio(hi, 1, 2), ratio(medianOf(speedups), 1, 2), under)
}

// SteadyFLOPTable is the arithmetic rate of a training step on a CPU for
// SteadyFLOPRows: the matrix-product FLOPs of a step, narlab's GFLOP/s
// (those at its steps/s) and per CPU second of the process (what load
// changes least), the run's measured peaks and the fraction of the square
// product's.
func (v view) SteadyFLOPTable() string {
	t := newTable(cols(2, 10), "algorithm", "processor", "narlab steps/s", "MFLOP/step", "narlab GFLOP/s",
		"GFLOP per CPU s", "peak GFLOP/s (square 1024)", "message-MLP product GFLOP/s", "of the peak", "load")
	n := 0
	for _, r := range v.steadyRows("cpu") {
		if r.Exec != "" || !contains(SteadyFLOPRows, r.Algo+"/"+r.Processor) || r.Narlab == nil || r.Narlab.GFLOPPerS == nil {
			continue
		}
		share := ""
		if r.PeakGFLOPPerS != nil && *r.PeakGFLOPPerS > 0 {
			share = f(100**r.Narlab.GFLOPPerS / *r.PeakGFLOPPerS, 1) + " %"
		}
		perCPU := ""
		if r.Narlab.MFLOPPerStep != nil && r.Narlab.CPUSPerStep > 0 {
			perCPU = f(*r.Narlab.MFLOPPerStep/1e3/r.Narlab.CPUSPerStep, 1)
		}
		t.row(r.Algo, r.Processor, f(r.Narlab.StepsPerS, 3), pf(r.Narlab.MFLOPPerStep, 0, ""), pf(r.Narlab.GFLOPPerS, 2, ""),
			perCPU, pf(r.PeakGFLOPPerS, 1, ""), pf(r.MessageGFLOPPerS, 1, ""), share, f(r.Load1, 1))
		n++
	}
	if n == 0 {
		return "Not measured yet (`make bench-steady`)."
	}
	return t.String()
}

// TrainFirstSteps is the range of the first steps per side: "a–b s against c–d s".
func (v view) TrainFirstSteps() string {
	var nl, ref []float64
	for _, r := range v.train() {
		if r.Reference != nil && r.Narlab != nil {
			nl = append(nl, r.Narlab.FirstStepS)
			ref = append(ref, r.Reference.FirstStepS)
		}
	}
	a, b := minMax(nl)
	c, d := minMax(ref)
	return fmt.Sprintf("%s–%s s against %s–%s s", f(a, 1), f(b, 1), f(c, 1), f(d, 1))
}

// TrainProvenance says when, where and at which commit the table ran.
func (v view) TrainProvenance() string { return provenance(trainProv(v.train())) }

func trainProv(rows []TrainRow) []Provenance {
	var p []Provenance
	for _, r := range rows {
		p = append(p, r.Provenance)
	}
	return p
}

func provenance(ps []Provenance) string {
	var dates, machines, commits, commands []string
	for _, p := range ps {
		dates, machines, commits, commands = append(dates, p.Date), append(machines, p.Machine), append(commits, p.Commit), append(commands, p.Command)
	}
	s := "Measured " + strings.Join(uniq(dates), ", ") + " on " + joinAnd(uniq(machines))
	if c := uniq(commits); len(c) > 0 {
		s += ", narlab at " + commitList(c)
	}
	if c := uniq(commands); len(c) > 0 {
		s += ", by `" + strings.Join(c, "`, `") + "`"
	}
	return s
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

// ---- the CLRS-30 protocol

// ProtocolMet counts the rows that meet issue 31's bar (narlab's first
// step and short protocol no slower, peak memory no higher) among the rows
// with both sides.
func (v view) ProtocolMet() (met, total int) {
	for _, r := range v.Set.Protocol {
		if ok, known := protocolBar(r); known {
			total++
			if ok {
				met++
			}
		}
	}
	return met, total
}

func protocolBar(r ProtocolRow) (ok, known bool) {
	if r.Reference == nil || r.Narlab == nil {
		return false, false
	}
	a, b := r.Reference, r.Narlab
	return b.FirstStepS <= a.FirstStepS && b.ProtocolS <= a.ProtocolS && b.PeakRSSMB <= a.PeakRSSMB, true
}

// ProtocolSummary is "M of N rows meet the bar".
func (v view) ProtocolSummary() string {
	met, total := v.ProtocolMet()
	return fmt.Sprintf("%d of %d rows meet the bar", met, total)
}

// ProtocolProvenance lists the dates, machines and commits of the rows.
func (v view) ProtocolProvenance() string {
	var ps []Provenance
	for _, r := range v.Set.Protocol {
		ps = append(ps, r.Provenance)
	}
	var commits []string
	for _, c := range uniq(commitsOf(ps)) {
		commits = append(commits, strings.Split(c, "|")...)
	}
	commits = uniq(commits)
	sort.Strings(commits)
	dates := uniq(datesOf(ps))
	sort.Strings(dates)
	return fmt.Sprintf("Measured %s on %s (both sides of a row on one machine: its line of `results/protocol_rows.jsonl` says which), narlab at %s",
		strings.Join(dates, ", "), joinAnd(uniq(machinesOf(ps))), commitList(commits))
}

// commitList names a few commits; past three it gives their count, since
// each row's line in results/ names its own.
func commitList(c []string) string {
	if len(c) > 3 {
		return fmt.Sprintf("%d commits (each row's line names its own)", len(c))
	}
	return strings.Join(c, ", ")
}

func commitsOf(ps []Provenance) (out []string) {
	for _, p := range ps {
		out = append(out, strings.TrimSuffix(p.Commit, "+changes"))
	}
	return out
}
func datesOf(ps []Provenance) (out []string) {
	for _, p := range ps {
		out = append(out, p.Date)
	}
	return out
}
func machinesOf(ps []Provenance) (out []string) {
	for _, p := range ps {
		out = append(out, p.Machine)
	}
	return out
}

// ProtocolTable is the 60-row table: each cell reference → narlab, the
// rows that miss the bar marked.
func (v view) ProtocolTable() string {
	rows := append([]ProtocolRow(nil), v.Set.Protocol...)
	sort.SliceStable(rows, func(i, j int) bool {
		return rows[i].Algo+"/"+rows[i].Processor < rows[j].Algo+"/"+rows[j].Processor
	})
	t := newTable(nil, "algorithm", "processor", "first step (s)", "protocol (s)", "steps/s", "peak memory (MB)")
	pair := func(r ProtocolRow, get func(*ProtocolSide) string) string {
		side := func(s *ProtocolSide) string {
			if s == nil {
				return "failed"
			}
			return get(s)
		}
		return side(r.Reference) + " → " + side(r.Narlab)
	}
	for _, r := range rows {
		proc := r.Processor
		if ok, known := protocolBar(r); known && !ok {
			proc += " (**bar not met**)"
		}
		t.row(r.Algo, proc,
			pair(r, func(s *ProtocolSide) string { return f(s.FirstStepS, 1) }),
			pair(r, func(s *ProtocolSide) string {
				if s.TestProcesses > 0 {
					return fmt.Sprintf("%s (%d runs)", f(s.ProtocolS, 1), s.TestProcesses)
				}
				return f(s.ProtocolS, 1)
			}),
			pair(r, func(s *ProtocolSide) string { return f(s.StepsPerS, 2) }),
			pair(r, func(s *ProtocolSide) string { return f(s.PeakRSSMB, 0) }))
	}
	return t.String()
}

// ProtocolRowCell is one row's figure pair "a → b" for the README.
func (v view) ProtocolRowCell(algo, proc string) (string, error) {
	for _, r := range v.Set.Protocol {
		if r.Algo == algo && r.Processor == proc && r.Reference != nil && r.Narlab != nil {
			return fmt.Sprintf("%s %s → %s s, %s → %s GB", algo, th(r.Reference.ProtocolS, 0), th(r.Narlab.ProtocolS, 0),
				f(r.Reference.PeakRSSMB/1000, 1), f(r.Narlab.PeakRSSMB/1000, 1)), nil
		}
	}
	return "", fmt.Errorf("results: protocol_rows.jsonl has no finished row %s/%s", algo, proc)
}

// ---- evaluation alone, GPU

// PredictTable is the evaluation-alone table of one device.
func (v view) PredictTable(device string) string {
	t := newTable(cols(2, 7), "algorithm / processor", "narlab's loop", "reference s/batch", "narlab s/batch", "reference ms/step", "narlab ms/step", "speed-up")
	// The latest row of each algorithm, processor and loop (rows are
	// appended in time order), in the order of their first row.
	type key struct{ algo, proc, loop string }
	latest := map[key]PredictRow{}
	var order []key
	for _, r := range v.Set.Predict {
		if r.Device != device || r.Reference == nil || r.Narlab == nil {
			continue
		}
		k := key{r.Algo, r.Processor, r.EvalLoop}
		if _, ok := latest[k]; !ok {
			order = append(order, k)
		}
		latest[k] = r
	}
	for _, k := range order {
		r := latest[k]
		d := 2
		if r.Reference.SPerBatch < 0.1 {
			d = 3
		}
		t.row(r.Algo+"/"+r.Processor, r.EvalLoop, f(r.Reference.SPerBatch, d), f(r.Narlab.SPerBatch, d),
			f(r.Reference.MSPerStep, 2), f(r.Narlab.MSPerStep, 2), f(r.speedup(), 2)+"×")
	}
	return t.String()
}

func (r PredictRow) speedup() float64 {
	if r.Speedup != nil {
		return *r.Speedup
	}
	return r.Reference.MSPerStep / r.Narlab.MSPerStep
}

// PredictProvenance is the provenance of a device's evaluation rows.
func (v view) PredictProvenance(device string) string {
	var ps []Provenance
	for _, r := range v.Set.Predict {
		if r.Device == device {
			ps = append(ps, r.Provenance)
		}
	}
	return provenance(ps)
}

// GPUTable is the latest measurement of each (row, side, variant) on a card.
func (v view) GPUTable() string {
	type key struct{ algo, proc, side, variant string }
	latest := map[key]int{}
	var order []key
	for i, r := range v.Set.GPUProtocol {
		k := key{r.Algo, r.Processor, r.Side, r.Variant}
		if _, ok := latest[k]; !ok {
			order = append(order, k)
		}
		latest[k] = i // rows are appended in time order
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if a.algo+a.proc != b.algo+b.proc {
			return a.algo+"/"+a.proc < b.algo+"/"+b.proc
		}
		return a.side > b.side // narlab first
	})
	t := newTable(cols(2, 7), "algorithm / processor", "side", "first step (s)", "protocol (s)", "steps/s", "host peak (MB)", "GPU memory (MB)")
	prev := ""
	for _, k := range order {
		r := v.Set.GPUProtocol[latest[k]]
		name := r.Algo + "/" + r.Processor
		if name == prev {
			name = ""
		} else {
			prev = name
		}
		sideName := r.Side
		if r.Variant != "" {
			sideName += ", " + r.Variant
		}
		gpu := th(r.GPUMB, 0)
		if r.JAXGPUMB != nil {
			gpu += " (JAX's count: " + th(*r.JAXGPUMB, 0) + ")"
		}
		if r.GPUMBSeen {
			gpu += " (seen)"
		}
		steps := ""
		if r.StepsPerS != nil {
			steps = f(*r.StepsPerS, map[bool]int{true: 0, false: 1}[*r.StepsPerS >= 10])
		}
		if r.StepsPerS == nil && r.Unfinished != "" && r.FirstStepS != nil {
			steps = r.Unfinished
		}
		if r.FirstStepS == nil {
			t.row(name, sideName, r.Unfinished, "", "", "", gpu)
			continue
		}
		t.row(name, sideName, pf(r.FirstStepS, 1, ""), pf(r.ProtocolS, 1, ""), steps,
			thp(r.HostPeakMB), gpu)
	}
	return t.String()
}

func thp(x *float64) string {
	if x == nil {
		return ""
	}
	return th(*x, 0)
}

// GPUProvenance is the provenance of the card's protocol rows.
func (v view) GPUProvenance() string {
	var ps []Provenance
	for _, r := range v.Set.GPUProtocol {
		ps = append(ps, r.Provenance)
	}
	return provenance(ps)
}

// StepCallTable is the cost of a program call on a card.
func (v view) StepCallTable() string {
	t := newTable([]int{1, 2, 3}, "algorithm / processor", "steps", "step program call (µs)", "near-empty program call (µs)")
	for _, r := range v.Set.StepCalls {
		t.row(r.Algo+"/"+r.Processor, fmt.Sprint(r.Steps), th(r.StepCallUS, 0), th(r.EmptyCallUS, 0))
	}
	return t.String()
}

// ---- sparse graphs

// SparseTable is the sparse beside the dense model on one device.
func (v view) SparseTable(device string) string {
	mem := "peak memory (MB)"
	if device != "cpu" {
		mem = "GPU memory (MB)"
	}
	t := newTable(cols(0, 7), "n", "sparse: first (s)", "sparse: again (s)", "sparse: "+mem, "dense: first (s)", "dense: again (s)", "dense: "+mem)
	byN, ns := v.sparse(device)
	d := 3
	if device != "cpu" {
		d = 4
	}
	m := func(r SparseRow) string {
		if r.PeakMB != nil {
			return th(*r.PeakMB, 0)
		}
		return th(*r.GPUMB, 0)
	}
	for _, n := range ns {
		s, dn := byN[n]["sparse"], byN[n]["dense"]
		t.row(fmt.Sprint(n), f(s.FirstS, 2), f(s.AgainS, d), m(s), f(dn.FirstS, 2), f(dn.AgainS, d), m(dn))
	}
	return t.String()
}

// sparse returns a device's latest row of each n and path (rows are
// appended in time order), and the sizes sorted.
func (v view) sparse(device string) (map[int]map[string]SparseRow, []int) {
	byN := map[int]map[string]SparseRow{}
	var ns []int
	for _, r := range v.Set.Sparse {
		if r.Device != device {
			continue
		}
		if byN[r.N] == nil {
			byN[r.N] = map[string]SparseRow{}
			ns = append(ns, r.N)
		}
		byN[r.N][r.Path] = r
	}
	sort.Ints(ns)
	return byN, ns
}

// SparseProvenance is the provenance of a device's rows in its table.
func (v view) SparseProvenance(device string) string {
	var ps []Provenance
	byN, ns := v.sparse(device)
	for _, n := range ns {
		for _, p := range []string{"sparse", "dense"} {
			if r, ok := byN[n][p]; ok {
				ps = append(ps, r.Provenance)
			}
		}
	}
	return provenance(ps)
}

// SparseAt is "sparse X s and Y MB, dense Z s and W GB" at n on a CPU.
func (v view) SparseAt(n int) (string, error) {
	byN, _ := v.sparse("cpu")
	s, okS := byN[n]["sparse"]
	d, okD := byN[n]["dense"]
	if !okS || !okD || s.PeakMB == nil || d.PeakMB == nil {
		return "", fmt.Errorf("results: sparse.jsonl lacks the CPU rows at n=%d", n)
	}
	return fmt.Sprintf("%s s and %s MB per batch of %d, dense %s s and %s GB", f(s.AgainS, 1), th(*s.PeakMB, 0), s.Graphs, f(d.AgainS, 1), f(*d.PeakMB/1000, 1)), nil
}

// ---- the rest

// NotebookTable is the notebooks' execution times.
func (v view) NotebookTable() string {
	t := newTable([]int{1, 2}, "notebook", "cold (s)", "warm (s)")
	for _, r := range v.Set.Notebooks {
		t.row(r.Notebook, f(r.ColdS, 1), f(r.WarmS, 1))
	}
	return t.String()
}

// TrackingTable is the MLflow logging benchmarks.
func (v view) TrackingTable() string {
	t := newTable([]int{3, 4}, "benchmark", "server store", "writers × points a request", "figure", "unit")
	for _, r := range v.Set.Tracking {
		val := th(r.Value, 2)
		if r.Value >= 100 {
			val = th(r.Value, 0)
		}
		if r.Max != nil {
			val += "–" + th(*r.Max, 0)
		}
		req := fmt.Sprintf("%d × %d", r.Writers, r.BatchPoints)
		if r.BatchPoints == 0 {
			req = fmt.Sprintf("%d × the client's batches", r.Writers)
		}
		store := r.Store
		if store == "" {
			store = "—"
		}
		t.row(r.Benchmark, store, req, val, r.Unit)
	}
	return t.String()
}

// Figures lists a topic's single figures, each with its date and command.
func (v view) Figures(topic string) string {
	var b strings.Builder
	prev := ""
	for _, r := range v.Set.Figures {
		if r.Topic != topic {
			continue
		}
		val := th(r.Value, -1)
		cmd := ", `" + r.Command + "`"
		if r.Command == prev {
			cmd = ", the same command"
		}
		prev = r.Command
		fmt.Fprintf(&b, "- %s: **%s%s** (%s%s", r.What, val, unitSuffix(r.Unit), r.Date, cmd)
		if r.Note != "" {
			fmt.Fprintf(&b, "; %s", r.Note)
		}
		b.WriteString(")\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Figure is one figure's value with its unit, for a sentence.
func (v view) Figure(topic, prefix string) (string, error) {
	for _, r := range v.Set.Figures {
		if r.Topic == topic && strings.HasPrefix(r.What, prefix) {
			return th(r.Value, -1) + unitSuffix(r.Unit), nil
		}
	}
	return "", fmt.Errorf("results: figures.jsonl has no %s figure %q", topic, prefix)
}

func unitSuffix(u string) string {
	switch u {
	case "":
		return ""
	case "%":
		return " %"
	}
	return " " + u
}

// TrackingFigure is one tracking row's figure, e.g. LogMetric's µs/call.
func (v view) TrackingFigure(bench, store string, batch int) (string, error) {
	for _, r := range v.Set.Tracking {
		if r.Benchmark == bench && r.Store == store && r.BatchPoints == batch {
			val := th(r.Value, 2)
			if r.Value >= 100 {
				val = th(r.Value, 0)
			}
			if r.Max != nil {
				val += "–" + th(*r.Max, 0)
			}
			return val + " " + r.Unit, nil
		}
	}
	return "", fmt.Errorf("results: tracking.jsonl has no %s row (%q, %d points)", bench, store, batch)
}

// ---- results.md

// SweepTable is the 30-algorithm sweep beside the CLRS paper's MPNN and PGN.
func (v view) SweepTable() string {
	rows := append([]SweepRow(nil), v.Set.Sweep...)
	sort.SliceStable(rows, func(i, j int) bool {
		ci, cj := paper.Class[rows[i].Algo], paper.Class[rows[j].Algo]
		if ci != cj {
			return ci < cj
		}
		return rows[i].Algo < rows[j].Algo
	})
	t := newTable(cols(2, 6), "class", "algorithm", "narlab Triplet-GMPNN, reduced (test %)", "best val (%)", "CLRS paper MPNN (Table 2)", "CLRS paper PGN (Table 2)")
	for _, r := range rows {
		p := paper.Test[r.Algo]
		t.row(paper.Class[r.Algo], r.Algo, f(100*r.Test, 2), f(100*r.BestVal, 2), score(p["MPNN"]), score(p["PGN"]))
	}
	return t.String()
}

func score(s paper.Score) string { return f(s.Mean, 2) + " ± " + f(s.Std, 2) }

// SweepClasses is the sweep's class means beside Ibarz et al.'s.
func (v view) SweepClasses() string {
	sum, n := map[string]float64{}, map[string]int{}
	total := map[string]int{}
	for _, c := range paper.Class {
		total[c]++
	}
	for _, r := range v.Set.Sweep {
		c := paper.Class[r.Algo]
		sum[c] += 100 * r.Test
		n[c]++
	}
	var classes []string
	for c := range total {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	t := newTable([]int{1, 2}, "class", "narlab Triplet-GMPNN, reduced: mean over the finished algorithms", "Ibarz et al. (2022) Table 1, Triplet-GMPNN, 10,000 steps")
	var means []float64
	for _, c := range classes {
		cell := fmt.Sprintf("— (0 of %d)", total[c])
		if n[c] > 0 {
			m := sum[c] / float64(n[c])
			means = append(means, m)
			cell = fmt.Sprintf("%s (%d of %d)", f(m, 2), n[c], total[c])
		}
		t.row(c, cell, score(paper.TripletGMPNNClasses[c]))
	}
	var all, ib float64
	for _, m := range means {
		all += m
	}
	for _, c := range classes {
		ib += paper.TripletGMPNNClasses[c].Mean
	}
	return t.String() + fmt.Sprintf("\n\nnarlab's mean of the class means: %s (%d of %d classes); at 10,000 steps and hidden 128 it is %s for "+
		"Ibarz et al.'s Triplet-GMPNN (the mean of the column above), %s for the CLRS paper's MPNN and %s for its PGN (`paper.ClassAverage`).",
		f(all/float64(max(1, len(means))), 2), len(means), len(classes), f(ib/float64(len(classes)), 2),
		f(paper.ClassAverage["MPNN"], 2), f(paper.ClassAverage["PGN"], 2))
}

// ParityBudget is the budget of the 30-algorithm parity table.
var parityBudget = struct{ seed, steps, hidden, batch int }{42, 100, 32, 16}

// ParityTable is the 30-algorithm learning-parity table and its summary.
func (v view) ParityTable() string {
	type pair struct{ ref, nl *ParityRow }
	rows := map[[2]string]*pair{}
	var keys [][2]string
	for i, r := range v.Set.Parity {
		if r.Seed != parityBudget.seed || r.Steps != parityBudget.steps || r.Hidden != parityBudget.hidden || r.Batch != parityBudget.batch {
			continue
		}
		k := [2]string{r.Algo, r.Processor}
		if rows[k] == nil {
			rows[k] = &pair{}
			keys = append(keys, k)
		}
		if r.System == "reference" {
			rows[k].ref = &v.Set.Parity[i]
		} else {
			rows[k].nl = &v.Set.Parity[i]
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][0]+"/"+keys[i][1] < keys[j][0]+"/"+keys[j][1] })
	pct := func(r *ParityRow, x func(*ParityRow) *float64) string {
		switch {
		case r == nil:
			return "—"
		case r.Failed != "":
			return "failed"
		}
		return f(100**x(r), 1)
	}
	bv := func(r *ParityRow) *float64 { return r.BestVal }
	ts := func(r *ParityRow) *float64 { return r.Test }
	t := newTable(cols(2, 7), "algorithm", "processor", "reference val", "reference test", "narlab val", "narlab test", "test gap")
	gaps := map[string][]float64{}
	var failed []string
	for _, k := range keys {
		p := rows[k]
		gap := "—"
		if p.ref != nil && p.nl != nil && p.ref.Failed == "" && p.nl.Failed == "" {
			g := 100 * (*p.nl.Test - *p.ref.Test)
			if p.ref.RecoveredFrom != "" && p.nl.TestGapPoints != nil {
				g = *p.nl.TestGapPoints // the gap as first printed, from the unrounded scores
			}
			gaps[k[1]] = append(gaps[k[1]], g)
			gap = signed(g)
		}
		if p.ref != nil && p.ref.Failed != "" {
			failed = append(failed, fmt.Sprintf("%s/%s (%s)", k[0], k[1], strings.SplitN(p.ref.Failed, ";", 2)[0]))
		}
		t.row(k[0], k[1], pct(p.ref, bv), pct(p.ref, ts), pct(p.nl, bv), pct(p.nl, ts), gap)
	}
	var procs []string
	paired := 0
	var every []float64
	for p, g := range gaps {
		procs = append(procs, p)
		paired += len(g)
		every = append(every, g...)
	}
	sort.Strings(procs)
	summary := fmt.Sprintf("%d of %d rows with both sides", paired, 2*30)
	if paired > 0 {
		var per []string
		for _, p := range procs {
			per = append(per, fmt.Sprintf("%s %s over %d", p, signed(mean(gaps[p])), len(gaps[p])))
		}
		summary += fmt.Sprintf("; mean test gap %s points (%s)", signed(mean(every)), strings.Join(per, ", "))
	}
	if len(failed) > 0 {
		summary += "; the reference failed on " + strings.Join(failed, ", ")
	}
	return t.String() + "\n\n" + summary + ". Test: the best-validation parameters on the CLRS-30 test split (n=64)."
}

// ParityMeanGap is the mean test gap over the parity table's paired rows.
func (v view) ParityMeanGap() string {
	s := v.ParityTable()
	_, after, _ := strings.Cut(s, "mean test gap ")
	gap, _, _ := strings.Cut(after, " points")
	return gap
}

func signed(x float64) string {
	s := f(x, 1)
	if !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// Figure3Table is the Figure 3 grid beside the paper's Table 4 and Table 2.
func (v view) Figure3Table() string {
	t := newTable(cols(2, 9), "algorithm", "processor", "steps", "val", "paper val", "test", "paper test", "best step", "steps/s", "MLflow run id")
	for _, r := range v.Set.Figure3 {
		pv, pt := "—", "—"
		if s, ok := paper.Validation[r.Algo][processorName(r.Processor)]; ok {
			pv = f(s.Mean, 2)
		}
		if s, ok := paper.Test[r.Algo][processorName(r.Processor)]; ok {
			pt = f(s.Mean, 2)
		}
		t.row(r.Algo, r.Processor, fmt.Sprint(r.Steps), f(100*r.BestVal, 2), pv, f(100*r.Test, 2), pt, fmt.Sprint(r.BestStep), f(r.StepsPerS, 2), "`"+r.RunID+"`")
	}
	return t.String()
}

// MultiAlgoTable is the comparison of one model of several algorithms
// with the reference's (multi_algo.jsonl): for each setting, per algorithm
// each side's test score (mean ± sd over its seeds) and the gap of the
// means, then each side's wall time, CPU time and peak memory.
func (v view) MultiAlgoTable() string {
	type key struct {
		algos, proc                     string
		steps, hidden, batch, evalEvery int
	}
	type side struct {
		test             map[string][]float64
		seconds, rss     []float64
		cpu              []float64
		nice             []int
		seeds, failed    int
		backend, machine string
	}
	groups := map[key]map[string]*side{}
	var keys []key
	for _, r := range v.Set.MultiAlgo {
		k := key{strings.Join(r.Algorithms, ","), r.Processor, r.Steps, r.Hidden, r.Batch, r.EvalEvery}
		if groups[k] == nil {
			groups[k] = map[string]*side{"reference": {test: map[string][]float64{}}, "narlab": {test: map[string][]float64{}}}
			keys = append(keys, k)
		}
		sd := groups[k][r.System]
		if r.Failed != "" {
			sd.failed++
			continue
		}
		sd.seeds++
		for a, x := range r.Test {
			sd.test[a] = append(sd.test[a], x)
		}
		sd.seconds, sd.rss = append(sd.seconds, *r.Seconds), append(sd.rss, *r.PeakRSSMB)
		if r.CPUSeconds != nil {
			sd.cpu = append(sd.cpu, *r.CPUSeconds)
		}
		if r.Nice != nil {
			sd.nice = append(sd.nice, *r.Nice)
		}
		sd.backend, sd.machine = r.Backend, r.Machine
	}
	if len(keys) == 0 {
		return "No rows yet (`results/multi_algo.jsonl` is empty: the run has not finished a side)."
	}
	msd := func(xs []float64) string {
		if len(xs) == 0 {
			return "—"
		}
		if len(xs) == 1 {
			return f(100*xs[0], 1) + " (1 seed)"
		}
		m, ss := mean(xs), 0.0
		for _, x := range xs {
			ss += (x - m) * (x - m)
		}
		return fmt.Sprintf("%s ± %s (%d seeds)", f(100*m, 1), f(100*math.Sqrt(ss/float64(len(xs)-1)), 1), len(xs))
	}
	var b strings.Builder
	for _, k := range keys {
		g := groups[k]
		fmt.Fprintf(&b, "**%s**, %s, %d steps, hidden %d, batch %d per algorithm, validation every %d steps:\n\n",
			strings.ReplaceAll(k.algos, ",", ", "), k.proc, k.steps, k.hidden, k.batch, k.evalEvery)
		t := newTable(cols(1, 4), "algorithm", "reference test", "narlab test", "gap (points)")
		for _, a := range strings.Split(k.algos, ",") {
			ref, nl := g["reference"].test[a], g["narlab"].test[a]
			gap := "—"
			if len(ref) > 0 && len(nl) > 0 {
				gap = signed(100 * (mean(nl) - mean(ref)))
			}
			t.row(a, msd(ref), msd(nl), gap)
		}
		b.WriteString(t.String())
		r, n := g["reference"], g["narlab"]
		b.WriteString("\n\n")
		if len(r.seconds) > 0 && len(n.seconds) > 0 {
			fmt.Fprintf(&b, "Wall time per run (model, training, validations, test), mean over seeds: reference %s s, narlab %s s (%s, %s× the reference's speed); "+
				"peak resident memory: reference %s MB, narlab %s MB. Machine: %s.",
				th(mean(r.seconds), 0), th(mean(n.seconds), 0), n.backend, f(mean(r.seconds)/mean(n.seconds), 2),
				th(mean(r.rss), 0), th(mean(n.rss), 0), n.machine)
			if len(r.cpu) == len(r.seconds) && len(n.cpu) == len(n.seconds) {
				fmt.Fprintf(&b, " CPU time (user and system, all threads), mean over seeds: reference %s s, narlab %s s (%s× less).",
					th(mean(r.cpu), 0), th(mean(n.cpu), 0), f(mean(r.cpu)/mean(n.cpu), 2))
			}
			if len(r.nice) > 0 && len(n.nice) > 0 {
				fmt.Fprintf(&b, " Niceness: reference %d, narlab %d.", r.nice[0], n.nice[0])
			}
		} else {
			fmt.Fprintf(&b, "Sides finished: reference %d seeds, narlab %d seeds (the run goes on).", r.seeds, n.seeds)
		}
		if r.failed+n.failed > 0 {
			fmt.Fprintf(&b, " Failed: reference %d, narlab %d.", r.failed, n.failed)
		}
		b.WriteString("\n\n")
	}
	return strings.TrimSpace(b.String())
}

// SameInitTable is the same-initialisation table: per algorithm and
// processor (the latest row of each), the number of leading training steps
// whose losses, narlab's trained from the reference's initial parameters
// on its batches, agree with the reference's within 0.1 %, beside the
// rounding control (narlab against itself from the same parameters moved
// by one ulp); then the rows that part before step 30, each with the
// control's step and its diagnosis.
func (v view) SameInitTable() string {
	latest := map[[2]string]*SameInitRow{}
	algos := map[string]bool{}
	for i, r := range v.Set.SameInit {
		latest[[2]string{r.Algo, r.Processor}] = &v.Set.SameInit[i]
		algos[r.Algo] = true
	}
	if len(latest) == 0 {
		return "(no rows yet)"
	}
	var names []string
	for a := range algos {
		names = append(names, a)
	}
	sort.Strings(names)
	procs := []string{"mpnn", "triplet_gmpnn"}
	steps := func(k, of int) string {
		if k == of {
			return fmt.Sprintf("all %d", of)
		}
		return fmt.Sprint(k)
	}
	t := newTable(cols(1, 5), "algorithm", "MPNN: with the reference", "MPNN: narlab one ulp apart",
		"Triplet-GMPNN: with the reference", "Triplet-GMPNN: narlab one ulp apart")
	var early []string
	long, n, controlFirst := 0, 0, 0
	for _, a := range names {
		cells := []string{a}
		for _, p := range procs {
			r := latest[[2]string{a, p}]
			if r == nil {
				cells = append(cells, "—", "—")
				continue
			}
			n++
			control := "—"
			if r.UlpAgreesTo != nil {
				lo, hi := r.controlRange()
				control = steps(lo, r.Steps)
				if hi != lo {
					control += "–" + steps(hi, r.Steps)
				}
			}
			cells = append(cells, steps(r.AgreesTo, r.Steps), control)
			if r.AgreesTo >= 30 || r.AgreesTo == r.Steps {
				long++
				continue
			}
			why := r.Diagnosis
			lo, hi := r.controlRange()
			switch {
			case lo <= r.AgreesTo:
				controlFirst++
				if why == "" {
					why = "Float rounding amplified by training: a control parts no later."
				}
			case r.BackendControl != nil && *r.BackendControl <= r.AgreesTo:
				controlFirst++
				if why == "" {
					why = fmt.Sprintf("Float rounding amplified by training: narlab on the pure-Go backend parts from narlab on %s "+
						"at step %d, no later (the same function rounded differently in every operation, as the reference's "+
						"compiled program is).", r.Backend, *r.BackendControl)
				}
			case why == "":
				why = "Not diagnosed yet."
				if r.BackendControl != nil {
					why = fmt.Sprintf("Not diagnosed yet (narlab on the pure-Go backend against %s: %d).", r.Backend, *r.BackendControl)
				}
			}
			rel := func(a, b float64) float64 { return math.Abs(a-b) / math.Abs(b) }
			control = fmt.Sprintf("the control: %d", lo)
			if len(r.UlpControls) > 1 {
				control = fmt.Sprintf("%d controls: %d to %d", len(r.UlpControls), lo, hi)
			}
			early = append(early, fmt.Sprintf("* %s %s: to step %d (%s; step 1's losses %.1e apart, the first control's %.1e). %s",
				a, map[string]string{"mpnn": "MPNN", "triplet_gmpnn": "Triplet-GMPNN"}[p], r.AgreesTo, control,
				rel(r.NarlabLosses[0], r.RefLosses[0]), rel(r.UlpLosses[0], r.NarlabLosses[0]), why))
		}
		t.row(cells...)
	}
	out := t.String() + fmt.Sprintf("\n\n%d of %d rows measured: %d agree for 30 steps or more (or all their steps), %d part "+
		"earlier, %d of them no earlier than a rounding control (the earliest of narlab against itself one ulp apart, or on another backend).", n, 2*30, long, len(early), controlFirst)
	if len(early) > 0 {
		out += " Rows that part before step 30:\n\n" + strings.Join(early, "\n")
	}
	return out
}

// controlRange is the earliest and latest step where the row's one-ulp
// controls part from narlab (UlpControls, or the one UlpAgreesTo).
func (r *SameInitRow) controlRange() (lo, hi int) {
	if len(r.UlpControls) == 0 {
		return *r.UlpAgreesTo, *r.UlpAgreesTo
	}
	return slices.Min(r.UlpControls), slices.Max(r.UlpControls)
}
