package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"

	"github.com/narlab/narlab/internal/fsutil"
	"github.com/narlab/narlab/internal/project"
)

// Set is every committed file of this folder, read.
type Set struct {
	Protocol    []ProtocolRow
	Parity      []ParityRow
	Train       []TrainRow
	Steady      []SteadyRow
	Predict     []PredictRow
	StepCalls   []StepCallRow
	GPUProtocol []GPUProtocolRow
	Sparse      []SparseRow
	Dataset     []DatasetRow
	Notebooks   []NotebookRow
	Tracking    []TrackingRow
	Figures     []FigureRow
	Demo        []Demo
	Sweep       []SweepRow
	Figure3     []Figure3Row
	MultiAlgo   []MultiAlgoRow
	ParitySeeds []ParityRow // parity_seeds.jsonl: the multi-seed parity rows (seeds.go)
	SameInit    []SameInitRow
}

// file names one JSONL file and where its rows go.
type file struct {
	name string
	read func(s *Set, dir string) error
}

// Files lists the JSONL files of this folder, each with its schema (the
// row type of Set's field). A .jsonl file here that is not listed is an
// error of Load: every file has a schema.
var files = []file{
	{"protocol_rows.jsonl", func(s *Set, d string) error { return readInto(d, "protocol_rows.jsonl", &s.Protocol) }},
	{"parity30.jsonl", func(s *Set, d string) error { return readInto(d, "parity30.jsonl", &s.Parity) }},
	{"train_bench.jsonl", func(s *Set, d string) error { return readInto(d, "train_bench.jsonl", &s.Train) }},
	{"steady.jsonl", func(s *Set, d string) error { return readInto(d, "steady.jsonl", &s.Steady) }},
	{"predict.jsonl", func(s *Set, d string) error { return readInto(d, "predict.jsonl", &s.Predict) }},
	{"step_calls.jsonl", func(s *Set, d string) error { return readInto(d, "step_calls.jsonl", &s.StepCalls) }},
	{"gpu_protocol.jsonl", func(s *Set, d string) error { return readInto(d, "gpu_protocol.jsonl", &s.GPUProtocol) }},
	{"sparse.jsonl", func(s *Set, d string) error { return readInto(d, "sparse.jsonl", &s.Sparse) }},
	{"dataset.jsonl", func(s *Set, d string) error { return readInto(d, "dataset.jsonl", &s.Dataset) }},
	{"notebooks.jsonl", func(s *Set, d string) error { return readInto(d, "notebooks.jsonl", &s.Notebooks) }},
	{"tracking.jsonl", func(s *Set, d string) error { return readInto(d, "tracking.jsonl", &s.Tracking) }},
	{"figures.jsonl", func(s *Set, d string) error { return readInto(d, "figures.jsonl", &s.Figures) }},
	{"demo.jsonl", func(s *Set, d string) error { return readInto(d, "demo.jsonl", &s.Demo) }},
	{"clrs30_reduced.jsonl", func(s *Set, d string) error { return readInto(d, "clrs30_reduced.jsonl", &s.Sweep) }},
	{"figure3.jsonl", func(s *Set, d string) error { return readInto(d, "figure3.jsonl", &s.Figure3) }},
	{"multi_algo.jsonl", func(s *Set, d string) error { return readInto(d, "multi_algo.jsonl", &s.MultiAlgo) }},
	{"parity_seeds.jsonl", func(s *Set, d string) error { return readInto(d, "parity_seeds.jsonl", &s.ParitySeeds) }},
	{"same_init.jsonl", func(s *Set, d string) error { return readInto(d, "same_init.jsonl", &s.SameInit) }},
}

// FileNames returns the names of the JSONL files Load reads, sorted.
func FileNames() []string {
	var names []string
	for _, f := range files {
		names = append(names, f.name)
	}
	sort.Strings(names)
	return names
}

// Load reads every JSONL file of dir (the repository's results/), each
// line strictly against its file's schema: an unknown field, a value of
// the wrong type or a row that fails its checks is an error naming the file
// and line. A .jsonl file without a schema is an error too.
func Load(dir string) (*Set, error) {
	found, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for _, f := range files {
		known[f.name] = true
	}
	for _, p := range found {
		if !known[filepath.Base(p)] {
			return nil, fmt.Errorf("results: %s has no schema (add its row type to results.Set and results.files)", p)
		}
	}
	s := &Set{}
	for _, f := range files {
		if err := f.read(s, dir); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Committed reads the checkout's results/ (the checkout as narlab finds
// it: $NARLAB_ROOT, or the one around the working directory), as notebooks
// do.
func Committed() (*Set, error) {
	root, err := project.Root()
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	return Load(filepath.Join(root, "results"))
}

// checker is a row that can say what is wrong with it.
type checker interface{ check() error }

func readInto[T any](dir, name string, dst *[]T) error {
	path := filepath.Join(dir, name)
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	defer f.Close()
	return fsutil.ScanLines(f, func(n int, line []byte) error {
		var v T
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("results: %s:%d: %w", path, n, err)
		}
		if c, ok := any(&v).(checker); ok {
			if err := c.check(); err != nil {
				return fmt.Errorf("results: %s:%d: %w", path, n, err)
			}
		}
		*dst = append(*dst, v)
		return nil
	})
}

var dateRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

func (p *Provenance) check() error {
	if !dateRE.MatchString(p.Date) {
		return fmt.Errorf("date %q is not YYYY-MM-DD", p.Date)
	}
	if p.Machine == "" {
		return fmt.Errorf("no machine")
	}
	return nil
}

func need(what, v string) error {
	if v == "" {
		return fmt.Errorf("no %s", what)
	}
	return nil
}

func oneOf(what, v string, allowed ...string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return fmt.Errorf("%s %q is not one of %q", what, v, allowed)
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func (r *ProtocolRow) check() error {
	return firstErr(r.Provenance.check(), need("algo", r.Algo), need("processor", r.Processor))
}

func (r *ParityRow) check() error {
	err := firstErr(oneOf("system", r.System, "reference", "narlab"), need("algo", r.Algo), need("processor", r.Processor))
	if err == nil && r.Failed == "" && (r.Test == nil || r.BestVal == nil) {
		err = fmt.Errorf("neither scores (test, best_val) nor why it failed")
	}
	return err
}

func (r *MultiAlgoRow) check() error {
	err := firstErr(r.Provenance.check(), oneOf("system", r.System, "reference", "narlab"), need("processor", r.Processor))
	switch {
	case err != nil:
	case len(r.Algorithms) < 2:
		err = fmt.Errorf("algorithms %v: a model of several algorithms has two or more", r.Algorithms)
	case r.Failed == "" && (r.BestStep == nil || r.Seconds == nil || r.PeakRSSMB == nil):
		err = fmt.Errorf("a finished side without best_step, seconds and peak_rss_mb")
	case r.Failed == "":
		for _, a := range r.Algorithms {
			if _, ok := r.Test[a]; !ok {
				err = fmt.Errorf("no test score of %s", a)
			} else if _, ok := r.BestVal[a]; !ok {
				err = fmt.Errorf("no validation score of %s", a)
			}
		}
	}
	return err
}

func (r *SameInitRow) check() error {
	err := firstErr(r.Provenance.check(), need("algo", r.Algo), need("processor", r.Processor), need("backend", r.Backend))
	switch {
	case err != nil:
	case r.Steps <= 0 || len(r.RefLosses) != r.Steps || len(r.NarlabLosses) != r.Steps:
		err = fmt.Errorf("steps %d with %d reference and %d narlab losses", r.Steps, len(r.RefLosses), len(r.NarlabLosses))
	case r.UlpAgreesTo == nil && r.AgreesTo < r.Steps:
		err = fmt.Errorf("agrees_to_step %d of %d steps without the one-ulp control", r.AgreesTo, r.Steps)
	case r.UlpAgreesTo != nil && len(r.UlpLosses) != r.Steps:
		err = fmt.Errorf("steps %d with %d control losses", r.Steps, len(r.UlpLosses))
	case r.AgreesTo < 0 || r.AgreesTo > r.Steps:
		err = fmt.Errorf("agrees_to_step %d outside 0..%d", r.AgreesTo, r.Steps)
	case r.AgreesTo != agreedSteps(r.RefLosses, r.NarlabLosses):
		err = fmt.Errorf("agrees_to_step %d, but the losses agree within 0.1 %% to step %d", r.AgreesTo,
			agreedSteps(r.RefLosses, r.NarlabLosses))
	case r.UlpAgreesTo != nil && *r.UlpAgreesTo != agreedSteps(r.NarlabLosses, r.UlpLosses):
		err = fmt.Errorf("ulp_agrees_to_step %d, but the control's losses agree within 0.1 %% to step %d",
			*r.UlpAgreesTo, agreedSteps(r.NarlabLosses, r.UlpLosses))
	}
	return err
}

// agreedSteps is the number of leading steps whose losses agree within
// 0.1 % of the reference's.
func agreedSteps(ref, nl []float64) int {
	for i := range ref {
		if math.Abs(nl[i]-ref[i]) > 1e-3*math.Abs(ref[i]) {
			return i
		}
	}
	return len(ref)
}

func (r *TrainRow) check() error {
	return firstErr(r.Provenance.check(), need("algo", r.Algo), need("processor", r.Processor))
}

func (r *SteadyRow) check() error {
	err := firstErr(r.Provenance.check(), need("algo", r.Algo), need("processor", r.Processor), need("backend", r.Backend))
	if err == nil && r.Steps < 1 {
		err = fmt.Errorf("%d steps timed", r.Steps)
	}
	return err
}

func (r *PredictRow) check() error {
	return firstErr(r.Provenance.check(), need("algo", r.Algo), need("device", r.Device), oneOf("eval_loop", r.EvalLoop, "host", "device"))
}

func (r *StepCallRow) check() error { return firstErr(r.Provenance.check(), need("algo", r.Algo)) }

func (r *GPUProtocolRow) check() error {
	err := firstErr(r.Provenance.check(), need("algo", r.Algo), oneOf("side", r.Side, "narlab", "reference"))
	if err == nil && r.Unfinished == "" && (r.FirstStepS == nil || r.ProtocolS == nil || r.StepsPerS == nil) {
		err = fmt.Errorf("a finished side without first_step_s, protocol_s and steps_per_s")
	}
	return err
}

func (r *SparseRow) check() error {
	err := firstErr(r.Provenance.check(), oneOf("path", r.Path, "sparse", "dense"), need("device", r.Device))
	if err == nil && (r.PeakMB == nil) == (r.GPUMB == nil) {
		err = fmt.Errorf("want exactly one of peak_mb (a CPU's) and gpu_mb (a card's)")
	}
	return err
}

func (r *DatasetRow) check() error {
	err := firstErr(r.Provenance.check(), oneOf("split", r.Split, "train", "all"))
	if err == nil && (r.Algo == "") == (r.What == "") {
		err = fmt.Errorf("want exactly one of algo (a per-algorithm row) and what (an end-to-end row)")
	}
	if err == nil && r.Algo != "" && (r.ReferenceS == nil || r.NarlabS == nil) {
		err = fmt.Errorf("a per-algorithm row without reference_s and narlab_s")
	}
	if err == nil && r.What != "" && r.Seconds == nil {
		err = fmt.Errorf("an end-to-end row without seconds")
	}
	return err
}

func (r *NotebookRow) check() error {
	return firstErr(r.Provenance.check(), need("notebook", r.Notebook))
}
func (r *TrackingRow) check() error {
	return firstErr(r.Provenance.check(), need("benchmark", r.Benchmark), need("unit", r.Unit))
}
func (r *FigureRow) check() error {
	return firstErr(r.Provenance.check(), need("topic", r.Topic), need("what", r.What))
}
func (r *Demo) check() error {
	return firstErr(r.Provenance.check(), need("algo", r.Algo), need("backend", r.Backend))
}
func (r *SweepRow) check() error { return firstErr(r.Provenance.check(), need("algo", r.Algo)) }
func (r *Figure3Row) check() error {
	return firstErr(r.Provenance.check(), need("algo", r.Algo), need("run_id", r.RunID))
}
