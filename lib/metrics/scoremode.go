package metrics

import "fmt"

// ScoreMode chooses how a benchmark's answers are read and compared: by the
// semantics of the paper's own scorer, or by narlab's more lenient reading.
// Every LLM benchmark scores in both modes (lib/dsr: DSR-Bench's evaluation
// scripts; lib/graphtext: G1's checker) and logs the mode it reports beside
// the other.
type ScoreMode int

const (
	// ScorePaper scores as the paper's own scorer does (each benchmark's
	// Score documents what that means there). It is the default.
	ScorePaper ScoreMode = iota
	// ScoreLenient is narlab's reading: answers wrapped in prose, code
	// fences or markup are unwrapped and compared as values, and any valid
	// answer is accepted where a task has several.
	ScoreLenient
)

// String returns "paper" or "lenient".
func (m ScoreMode) String() string {
	switch m {
	case ScorePaper:
		return "paper"
	case ScoreLenient:
		return "lenient"
	}
	return fmt.Sprintf("ScoreMode(%d)", int(m))
}

// ParseScoreMode parses "paper" (or "", the default) or "lenient".
func ParseScoreMode(s string) (ScoreMode, error) {
	switch s {
	case "paper", "":
		return ScorePaper, nil
	case "lenient":
		return ScoreLenient, nil
	}
	return 0, fmt.Errorf("metrics: unknown scoring mode %q (want paper or lenient)", s)
}
