package graphtext

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/narlab/narlab/internal/fsutil"
)

// Prediction is one line of a predictions file: a prompt id and the model's
// full output text.
type Prediction struct {
	ID         string `json:"id"`
	AnswerText string `json:"answer_text"`
}

// ReadPredictions reads a JSONL file of {"id": ..., "answer_text": ...}
// objects (blank lines are skipped). Malformed lines, missing fields and
// duplicate ids are errors that name the line number.
func ReadPredictions(r io.Reader) (map[string]string, error) {
	out := map[string]string{}
	firstLine := map[string]int{}
	err := fsutil.ScanLines(r, func(line int, s []byte) error {
		var raw struct {
			ID         *json.RawMessage `json:"id"`
			AnswerText *string          `json:"answer_text"`
		}
		dec := json.NewDecoder(bytes.NewReader(s))
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("line %d: %v (want {\"id\": ..., \"answer_text\": ...})", line, err)
		}
		if dec.More() {
			return fmt.Errorf("line %d: extra data after the JSON object", line)
		}
		if raw.ID == nil {
			return fmt.Errorf("line %d: missing \"id\"", line)
		}
		if raw.AnswerText == nil {
			return fmt.Errorf("line %d: missing \"answer_text\"", line)
		}
		id, err := idString(*raw.ID)
		if err != nil {
			return fmt.Errorf("line %d: %v", line, err)
		}
		if prev, dup := firstLine[id]; dup {
			return fmt.Errorf("line %d: id %q already given on line %d", line, id, prev)
		}
		firstLine[id] = line
		out[id] = *raw.AnswerText
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("graphtext: predictions %w", err)
	}
	return out, nil
}

// idString accepts a string or an integer id.
func idString(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if s == "" {
			return "", fmt.Errorf("empty \"id\"")
		}
		return s, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		return n.String(), nil
	}
	return "", fmt.Errorf("\"id\" is %s; want a string or a number", string(raw))
}
