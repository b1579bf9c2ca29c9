package clrstext

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/narlab/narlab/internal/fsutil"
)

// Row is one dataset row as the scorer needs it.
type Row struct {
	Algo     string
	Length   int
	Seed     int64
	Question string
	Answer   string
}

// ReadRows reads a JSONL dataset in any of the layouts narlab writes or
// reads: the Hugging Face generator's rows (question, answer, algo_name,
// length), the reference generator's examples (prompt, references,
// auxiliary, with name "clrs_text_<algo>" or an algo_name field), and
// `narlab clrstext sample` lines ({"algo", "text"}, split after the
// question's third line). Blank lines are skipped.
func ReadRows(r io.Reader) ([]Row, error) {
	var out []Row
	err := fsutil.ScanLines(r, func(line int, b []byte) error {
		var raw struct {
			Question   *string  `json:"question"`
			Answer     *string  `json:"answer"`
			AlgoName   string   `json:"algo_name"`
			Algo       string   `json:"algo"`
			Name       string   `json:"name"`
			Text       *string  `json:"text"`
			Prompt     *string  `json:"prompt"`
			References []string `json:"references"`
			Length     int      `json:"length"`
			Seed       int64    `json:"seed"`
			Auxiliary  struct {
				Length int   `json:"length"`
				Seed   int64 `json:"seed"`
			} `json:"auxiliary"`
		}
		if err := json.Unmarshal(b, &raw); err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		row := Row{Algo: raw.AlgoName, Length: raw.Length, Seed: raw.Seed}
		if row.Algo == "" {
			row.Algo = raw.Algo
		}
		if row.Algo == "" {
			row.Algo = strings.TrimPrefix(raw.Name, "clrs_text_")
		}
		switch {
		case raw.Question != nil && raw.Answer != nil:
			row.Question, row.Answer = *raw.Question, *raw.Answer
		case raw.Prompt != nil && len(raw.References) > 0:
			row.Question, row.Answer = *raw.Prompt, raw.References[0]
			if row.Length == 0 {
				row.Length, row.Seed = raw.Auxiliary.Length, raw.Auxiliary.Seed
			}
		case raw.Text != nil:
			q, a, ok := SplitText(*raw.Text)
			if !ok {
				return fmt.Errorf("line %d: text is not a CLRS-Text sample (want \"algo:\\ninputs\\nnames:\\nanswer\")", line)
			}
			row.Question, row.Answer = q, a
		default:
			return fmt.Errorf("line %d: want question and answer, prompt and references, or text", line)
		}
		if row.Algo == "" {
			return fmt.Errorf("line %d: no algorithm (algo_name, algo or name)", line)
		}
		out = append(out, row)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("clrstext: dataset %w", err)
	}
	return out, nil
}

// SplitText splits a sample's text into question (its first three lines)
// and answer.
func SplitText(text string) (question, answer string, ok bool) {
	i := 0
	for k := 0; k < 3; k++ {
		j := strings.IndexByte(text[i:], '\n')
		if j < 0 {
			return "", "", false
		}
		i += j + 1
	}
	return text[:i], text[i:], true
}

// Prediction is one model output, for the dataset row Index.
type Prediction struct {
	Index  int
	Output string
}

// ReadPredictions reads a JSONL of predictions: each line an object with
// the model's output under "prediction", "output", "response" or
// "completion", and optionally "index" (the 0-based dataset row; without
// it, line k answers row k).
func ReadPredictions(r io.Reader) ([]Prediction, error) {
	var out []Prediction
	err := fsutil.ScanLines(r, func(line int, b []byte) error {
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(b, &raw); err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		p := Prediction{Index: len(out)}
		if v, ok := raw["index"]; ok {
			if err := json.Unmarshal(v, &p.Index); err != nil || p.Index < 0 {
				return fmt.Errorf("line %d: index must be a non-negative integer", line)
			}
		}
		found := false
		for _, k := range []string{"prediction", "output", "response", "completion"} {
			if v, ok := raw[k]; ok {
				if err := json.Unmarshal(v, &p.Output); err != nil {
					return fmt.Errorf("line %d: %s must be a string", line, k)
				}
				found = true
				break
			}
		}
		if !found {
			return fmt.Errorf("line %d: no prediction, output, response or completion field", line)
		}
		out = append(out, p)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("clrstext: predictions %w", err)
	}
	return out, nil
}

// Match pairs predictions with dataset rows. Every prediction must point
// at a row, and no row may be answered twice; rows without a prediction
// are left out (and counted in the second result).
func Match(rows []Row, preds []Prediction) ([]Item, int, error) {
	seen := make([]bool, len(rows))
	items := make([]Item, 0, len(preds))
	for _, p := range preds {
		if p.Index >= len(rows) {
			return nil, 0, fmt.Errorf("clrstext: prediction for row %d, but the dataset has %d rows", p.Index, len(rows))
		}
		if seen[p.Index] {
			return nil, 0, fmt.Errorf("clrstext: row %d has two predictions", p.Index)
		}
		seen[p.Index] = true
		r := rows[p.Index]
		items = append(items, Item{Algo: r.Algo, Length: r.Length, Prediction: p.Output, Reference: r.Answer})
	}
	return items, len(rows) - len(preds), nil
}
