package llmeval

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	textexp "github.com/narlab/narlab/experiments/clrstext"

	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/clrstext"
	"github.com/narlab/narlab/lib/llm"
	"github.com/narlab/narlab/plots"
	"github.com/narlab/narlab/tracking"
)

// CLRSTextOptions choose the CLRS-Text prompts: Count samples of a fresh
// sampler (seed Seed) for every algorithm and length, exactly as `narlab
// clrstext sample` prints them.
type CLRSTextOptions struct {
	// Algorithms (default: the 30 of CLRS-30).
	Algorithms []string
	// Lengths (default: each algorithm's lengths in the paper's test
	// schedule, 4 up to what fits a context, at most 64).
	Lengths []int
	// Count is the number of samples per (algorithm, length) (default 1).
	Count int
	// Seed is the sampler's seed (default 0 means 3, the first seed of the
	// paper's test split; use SeedSet for an explicit 0).
	Seed    int64
	SeedSet bool
	// Options are the text options (format, hints, decimals, shift); the
	// zero value is the paper's legacy format without hints.
	Options clrstext.Options
}

type clrstextSuite struct {
	o       CLRSTextOptions
	samples []clrstextSample
}

type clrstextSample struct {
	algo   string
	length int
	ex     clrstext.Example
}

func newCLRSTextSuite(o CLRSTextOptions) (*clrstextSuite, error) {
	if o.Count == 0 {
		o.Count = 1
	}
	if o.Count < 0 {
		return nil, fmt.Errorf("llmeval: clrstext: count %d: want a positive number", o.Count)
	}
	if !o.SeedSet && o.Seed == 0 {
		o.Seed = clrstext.TestSeeds[0]
	}
	if len(o.Algorithms) == 0 {
		o.Algorithms = clrs.CLRS30()
	}
	for _, l := range o.Lengths {
		if l < 1 {
			return nil, fmt.Errorf("llmeval: clrstext: length %d: want a positive number", l)
		}
	}
	return &clrstextSuite{o: o}, nil
}

func (s *clrstextSuite) name() string        { return CLRSText }
func (s *clrstextSuite) defaultAPI() llm.API { return llm.Completion }

func (s *clrstextSuite) defaults(p *llm.Params, api llm.API) {
	if p.MaxTokens == 0 {
		p.MaxTokens = 512
		if !s.o.Options.Hints {
			p.MaxTokens = 128
		}
	}
	if p.Stop == nil && api == llm.Completion {
		// A reference answer ends with a blank line.
		p.Stop = []string{"\n\n"}
	}
}

func (s *clrstextSuite) params() map[string]string {
	var ls []string
	for _, l := range s.o.Lengths {
		ls = append(ls, strconv.Itoa(l))
	}
	lengths := strings.Join(ls, ",")
	if lengths == "" {
		lengths = "test schedule"
	}
	return map[string]string{"algorithms": strings.Join(s.o.Algorithms, ","), "lengths": lengths,
		"count": strconv.Itoa(s.o.Count), "seed": strconv.FormatInt(s.o.Seed, 10),
		"format": s.o.Options.Format.String(), "hints": strconv.FormatBool(s.o.Options.Hints),
		"decimals": strconv.Itoa(s.o.Options.Decimals), "shift": s.o.Options.Shift.String()}
}

func (s *clrstextSuite) build() ([]item, error) {
	sched := map[string][]int{}
	for _, al := range clrstext.TestSchedule() {
		sched[al.Algo] = al.Lengths
	}
	var items []item
	for _, algo := range s.o.Algorithms {
		if _, ok := sched[algo]; !ok {
			known := slices.Sorted(maps.Keys(sched))
			return nil, fmt.Errorf("llmeval: clrstext: unknown algorithm %q (CLRS-Text has: %s)", algo, strings.Join(known, ", "))
		}
		lengths := s.o.Lengths
		if len(lengths) == 0 {
			lengths = sched[algo]
			if len(lengths) == 0 {
				return nil, fmt.Errorf("llmeval: clrstext: %q has no lengths in the test schedule; give --lengths", algo)
			}
		}
		for _, l := range lengths {
			exs, err := clrstext.Sample(algo, l, s.o.Seed, s.o.Count, s.o.Options)
			if err != nil {
				return nil, fmt.Errorf("llmeval: clrstext: %w", err)
			}
			for k, ex := range exs {
				s.samples = append(s.samples, clrstextSample{algo: algo, length: l, ex: ex})
				items = append(items, item{id: fmt.Sprintf("%s/n%d/s%d/%d", algo, l, s.o.Seed, k), group: algo,
					prompt: ex.Question, ref: len(s.samples) - 1})
			}
		}
	}
	return items, nil
}

func (s *clrstextSuite) score(items []item, answers []answer, label string) (*scored, error) {
	recs := make([]Record, len(items))
	var scoreItems []clrstext.Item
	for i, it := range items {
		smp := s.samples[it.ref]
		raw := ""
		if answers[i].err == nil {
			raw = answers[i].resp.Text
		}
		ok := clrstext.ExactMatch(raw, smp.ex.Answer)
		ttff := clrstext.TimeToFirstFailure(smp.algo, raw, smp.ex.Answer)
		recs[i].Parsed = clrstext.ParseAnswer(raw).Final
		recs[i].Truth = clrstext.ParseAnswer(smp.ex.Answer).Final
		recs[i].Score = b2f(ok)
		recs[i].Extra = map[string]float64{"ttff": ttff}
		scoreItems = append(scoreItems, clrstext.Item{Algo: smp.algo, Length: smp.length, Prediction: raw, Reference: smp.ex.Answer})
	}
	rep, err := clrstext.Score(scoreItems)
	if err != nil {
		return nil, err
	}
	fig, err := textexp.Figure(label, rep)
	if err != nil {
		return nil, err
	}
	return &scored{records: recs, scoreName: "accuracy", report: &rep,
		figures: map[string]*plots.Figure{"accuracy_vs_length.png": fig},
		log: func(ctx context.Context, run *tracking.Run) error {
			return textexp.Log(run, rep, fig)
		}}, nil
}

func b2f(ok bool) *float64 {
	v := 0.0
	if ok {
		v = 1
	}
	return &v
}
