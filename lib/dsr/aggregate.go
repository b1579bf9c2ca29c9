package dsr

import (
	"fmt"
	"sort"

	"github.com/narlab/narlab/lib/metrics"
)

// Aggregation (paper Table 2 and Table 3): a cell is one task, variant and
// level, scored as the mean over its instances and runs; a structure's score
// is the mean of its cells (its operations × levels); a category's score is
// the mean of its structures' scores; the overall score is the mean of the
// category scores; the challenge score is the mean, over the 11 challenge
// structures, of each structure's long-level score (its operations
// averaged). Only main tasks enter the structure, category, overall and
// challenge scores; realistic and extra tasks appear as cells only.
//
// These functions return plain tables so that callers (the CLI, notebooks,
// MLflow logging, plots) can print, log or draw them.

// Result is the score of one response to one instance.
type Result struct {
	ID        string
	Structure string
	Operation string
	Variant   string // spatial variant ("2d", "circle"), "" otherwise
	Level     Level
	Run       int     // repeat number, for several runs of one model
	Extra     bool    // an extra published instance (not in the paper's scores)
	Binary    float64 // under the run's scoring mode (metrics.ScorePaper unless chosen otherwise)
	Lev       float64
	Reason    string // why Binary is 0 ("" for a match)
	// Raised is the exception the reference's script raised on the
	// response (see Verdict.Raised), "" otherwise.
	Raised string
	// Paper and Lenient hold the response's scores in both modes (ScoreAll
	// fills both whatever the run's mode), so that a run reports both.
	Paper, Lenient Scores
}

// NewResult builds a result from an instance and its verdict (both modes'
// scores set to the verdict's).
func NewResult(inst *Instance, run int, v Verdict) Result {
	sc := Scores{v.Binary, v.Levenshtein}
	return Result{ID: inst.ID, Structure: inst.Structure, Operation: inst.Operation, Variant: inst.Variant(),
		Level: inst.Level, Run: run, Extra: inst.Extra, Binary: v.Binary, Lev: v.Levenshtein, Reason: v.Reason,
		Raised: v.Raised, Paper: sc, Lenient: sc}
}

// ResultsIn returns copies of results whose Binary and Lev are the scores
// of the given mode, to aggregate the other mode's tables.
func ResultsIn(results []Result, m metrics.ScoreMode) []Result {
	out := make([]Result, len(results))
	for i, r := range results {
		sc := r.Paper
		if m == metrics.ScoreLenient {
			sc = r.Lenient
		}
		if sc.Binary != r.Binary && sc.Binary == 1 {
			r.Reason = ""
		} else if sc.Binary != r.Binary && sc.Binary == 0 {
			r.Reason = "wrong answer"
		}
		r.Binary, r.Lev = sc.Binary, sc.Levenshtein
		out[i] = r
	}
	return out
}

// ModeComparison summarises a run's responses scored both ways.
type ModeComparison struct {
	// N counts responses; Paper and Lenient their mean binary scores in
	// each mode (over responses, not the paper's table means).
	N              int
	Paper, Lenient Scores
	// Raised counts responses on which the reference's script raises
	// (their paper score is the lenient reading's); Differ those whose
	// binary score differs between the modes.
	Raised, Differ int
}

// CompareModes summarises results scored both ways.
func CompareModes(results []Result) ModeComparison {
	var c ModeComparison
	for _, r := range results {
		c.N++
		c.Paper.Binary += r.Paper.Binary
		c.Paper.Levenshtein += r.Paper.Levenshtein
		c.Lenient.Binary += r.Lenient.Binary
		c.Lenient.Levenshtein += r.Lenient.Levenshtein
		if r.Raised != "" {
			c.Raised++
		}
		if r.Paper.Binary != r.Lenient.Binary {
			c.Differ++
		}
	}
	if c.N > 0 {
		n := float64(c.N)
		c.Paper.Binary /= n
		c.Paper.Levenshtein /= n
		c.Lenient.Binary /= n
		c.Lenient.Levenshtein /= n
	}
	return c
}

// Metrics names the comparison's numbers for a tracking run (scores as
// fractions):
//
//	scoring/paper_binary, scoring/paper_levenshtein
//	scoring/lenient_binary, scoring/lenient_levenshtein
//	scoring/raised, scoring/differ   (response counts)
func (c ModeComparison) Metrics() map[string]float64 {
	return map[string]float64{
		"scoring/paper_binary": c.Paper.Binary, "scoring/paper_levenshtein": c.Paper.Levenshtein,
		"scoring/lenient_binary": c.Lenient.Binary, "scoring/lenient_levenshtein": c.Lenient.Levenshtein,
		"scoring/raised": float64(c.Raised), "scoring/differ": float64(c.Differ),
	}
}

// String is a one-line summary, e.g. "paper 0.62 binary, lenient 0.71;
// 12 of 200 responses judged differently, 3 raised in the reference's
// scorer (scored by the lenient reading)".
func (c ModeComparison) String() string {
	return fmt.Sprintf("paper %.3f binary (%.3f Levenshtein), lenient %.3f (%.3f); %d of %d responses judged differently; %d on which the reference's script raises (scored by the lenient reading)",
		c.Paper.Binary, c.Paper.Levenshtein, c.Lenient.Binary, c.Lenient.Levenshtein, c.Differ, c.N, c.Raised)
}

// Raised counts the results on which the reference's script raised.
func Raised(results []Result) int {
	n := 0
	for _, r := range results {
		if r.Raised != "" {
			n++
		}
	}
	return n
}

// Scores is a pair of means.
type Scores struct {
	Binary      float64 `json:"binary"`
	Levenshtein float64 `json:"levenshtein"`
}

// Cell is the mean score of one task, variant and level.
type Cell struct {
	Structure string `json:"structure"`
	Operation string `json:"operation"`
	Variant   string `json:"variant,omitempty"`
	Level     Level  `json:"level"`
	Extra     bool   `json:"extra,omitempty"`
	Scores
	N int `json:"n"` // responses averaged (instances × runs)
	// Failed counts responses that could not be parsed (schema or JSON
	// errors), a subset of the zeros.
	Failed int `json:"failed"`
}

// StructureScore is one structure's score (Table 2 rows).
type StructureScore struct {
	Structure string   `json:"structure"`
	Title     string   `json:"title"`
	Category  Category `json:"-"`
	Scores
	Cells int `json:"cells"`
}

// CategoryScore is one category's score (Table 2 "avg" rows).
type CategoryScore struct {
	Category Category `json:"-"`
	Name     string   `json:"category"`
	Scores
	Structures int `json:"structures"`
}

// ChallengeTable is Table 3: the long-level score of each challenge
// structure and their mean.
type ChallengeTable struct {
	Rows  []StructureScore `json:"rows"`
	Score Scores           `json:"score"`
	// Missing lists the challenge structures with no long-level results;
	// the score is then the mean over the others.
	Missing []string `json:"missing,omitempty"`
}

// Tables are all the aggregates of a set of results.
type Tables struct {
	Cells      []Cell           `json:"cells"`
	Structures []StructureScore `json:"structures"`
	Categories []CategoryScore  `json:"categories"`
	Overall    Scores           `json:"overall"`
	Challenge  ChallengeTable   `json:"challenge"`
}

// Aggregate computes every table from per-response results.
func Aggregate(results []Result) Tables {
	cells := CellScores(results)
	structs := StructureScores(cells)
	cats := CategoryScores(structs)
	return Tables{Cells: cells, Structures: structs, Categories: cats, Overall: OverallScore(cats), Challenge: Challenge(cells)}
}

// CellScores averages results per task, variant and level, in task order.
func CellScores(results []Result) []Cell {
	type key struct {
		s, o, v string
		l       Level
		x       bool
	}
	acc := map[key]*Cell{}
	var order []key
	for _, r := range results {
		k := key{r.Structure, r.Operation, r.Variant, r.Level, r.Extra}
		c, ok := acc[k]
		if !ok {
			c = &Cell{Structure: r.Structure, Operation: r.Operation, Variant: r.Variant, Level: r.Level, Extra: r.Extra}
			acc[k] = c
			order = append(order, k)
		}
		c.Binary += r.Binary
		c.Levenshtein += r.Lev
		c.N++
		if r.Binary == 0 && r.Reason != "" && r.Reason != "wrong answer" {
			c.Failed++
		}
	}
	rank := taskRank()
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if ra, rb := rank[a.s+"/"+a.o], rank[b.s+"/"+b.o]; ra != rb {
			return ra < rb
		}
		if a.x != b.x {
			return !a.x
		}
		if a.v != b.v {
			return a.v < b.v
		}
		return a.l < b.l
	})
	out := make([]Cell, 0, len(order))
	for _, k := range order {
		c := *acc[k]
		c.Binary /= float64(c.N)
		c.Levenshtein /= float64(c.N)
		out = append(out, c)
	}
	return out
}

func taskRank() map[string]int {
	rank := map[string]int{}
	for i, t := range Tasks() {
		rank[t.Name()] = i
	}
	return rank
}

func isMain(structure, operation string) bool {
	t, err := LookupTask(structure, operation)
	return err == nil && t.Probe == ProbeMain
}

// StructureScores averages the main-task cells of each structure, in the
// paper's order.
func StructureScores(cells []Cell) []StructureScore {
	sums := map[string]*StructureScore{}
	for _, c := range cells {
		if c.Extra || !isMain(c.Structure, c.Operation) {
			continue
		}
		s, ok := sums[c.Structure]
		if !ok {
			info, _ := LookupStructure(c.Structure)
			s = &StructureScore{Structure: info.Name, Title: info.Title, Category: info.Category}
			sums[c.Structure] = s
		}
		s.Binary += c.Binary
		s.Levenshtein += c.Levenshtein
		s.Cells++
	}
	var out []StructureScore
	for _, info := range structures {
		if s, ok := sums[info.Name]; ok {
			s.Binary /= float64(s.Cells)
			s.Levenshtein /= float64(s.Cells)
			out = append(out, *s)
		}
	}
	return out
}

// CategoryScores averages the structure scores of each category, in the
// paper's order; categories with no structure are left out.
func CategoryScores(structs []StructureScore) []CategoryScore {
	var out []CategoryScore
	for _, cat := range Categories() {
		cs := CategoryScore{Category: cat, Name: cat.String()}
		for _, s := range structs {
			if s.Category == cat {
				cs.Binary += s.Binary
				cs.Levenshtein += s.Levenshtein
				cs.Structures++
			}
		}
		if cs.Structures > 0 {
			cs.Binary /= float64(cs.Structures)
			cs.Levenshtein /= float64(cs.Structures)
			out = append(out, cs)
		}
	}
	return out
}

// OverallScore is the mean of the category scores.
func OverallScore(cats []CategoryScore) Scores {
	var s Scores
	for _, c := range cats {
		s.Binary += c.Binary
		s.Levenshtein += c.Levenshtein
	}
	if len(cats) > 0 {
		s.Binary /= float64(len(cats))
		s.Levenshtein /= float64(len(cats))
	}
	return s
}

// ChallengeStructures lists the 11 structures of the challenge score (the
// set of Table 3).
func ChallengeStructures() []string {
	var out []string
	for _, s := range structures {
		if s.Challenge {
			out = append(out, s.Name)
		}
	}
	return out
}

// Challenge computes Table 3 from cells: each challenge structure's
// long-level main cells averaged, then their mean.
func Challenge(cells []Cell) ChallengeTable {
	var long []Cell
	for _, c := range cells {
		if c.Level == Long {
			long = append(long, c)
		}
	}
	byStruct := map[string]StructureScore{}
	for _, s := range StructureScores(long) {
		byStruct[s.Structure] = s
	}
	var t ChallengeTable
	for _, name := range ChallengeStructures() {
		s, ok := byStruct[name]
		if !ok {
			t.Missing = append(t.Missing, name)
			continue
		}
		t.Rows = append(t.Rows, s)
		t.Score.Binary += s.Binary
		t.Score.Levenshtein += s.Levenshtein
	}
	if len(t.Rows) > 0 {
		t.Score.Binary /= float64(len(t.Rows))
		t.Score.Levenshtein /= float64(len(t.Rows))
	}
	return t
}

// FromStructureScores builds the category and overall scores from given
// per-structure scores (e.g. the paper's printed Table 2 rows), keyed by
// structure name or title.
func FromStructureScores(scores map[string]float64) ([]CategoryScore, Scores, error) {
	var structs []StructureScore
	seen := map[string]bool{}
	for name, v := range scores {
		info, ok := LookupStructure(name)
		if !ok {
			return nil, Scores{}, fmt.Errorf("dsr: unknown structure %q", name)
		}
		if seen[info.Name] {
			return nil, Scores{}, fmt.Errorf("dsr: structure %s given twice", info.Name)
		}
		seen[info.Name] = true
		structs = append(structs, StructureScore{Structure: info.Name, Title: info.Title, Category: info.Category, Scores: Scores{Binary: v}, Cells: 1})
	}
	cats := CategoryScores(structs)
	return cats, OverallScore(cats), nil
}

// ChallengeFromScores is the challenge score of given per-structure
// long-level scores (the inputs of Table 3), keyed by name or title; all 11
// challenge structures are required.
func ChallengeFromScores(scores map[string]float64) (float64, error) {
	got := map[string]float64{}
	for name, v := range scores {
		info, ok := LookupStructure(name)
		if !ok {
			return 0, fmt.Errorf("dsr: unknown structure %q", name)
		}
		if !info.Challenge {
			return 0, fmt.Errorf("dsr: %s is not a challenge structure (expected %v)", info.Name, ChallengeStructures())
		}
		got[info.Name] = v
	}
	sum := 0.0
	for _, n := range ChallengeStructures() {
		v, ok := got[n]
		if !ok {
			return 0, fmt.Errorf("dsr: challenge score needs %s (expected all of %v)", n, ChallengeStructures())
		}
		sum += v
	}
	return sum / float64(len(ChallengeStructures())), nil
}
