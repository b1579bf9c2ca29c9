package graphtext

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
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
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" {
			continue
		}
		var raw struct {
			ID         *json.RawMessage `json:"id"`
			AnswerText *string          `json:"answer_text"`
		}
		dec := json.NewDecoder(strings.NewReader(s))
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("graphtext: predictions line %d: %v (want {\"id\": ..., \"answer_text\": ...})", line, err)
		}
		if dec.More() {
			return nil, fmt.Errorf("graphtext: predictions line %d: extra data after the JSON object", line)
		}
		if raw.ID == nil {
			return nil, fmt.Errorf("graphtext: predictions line %d: missing \"id\"", line)
		}
		if raw.AnswerText == nil {
			return nil, fmt.Errorf("graphtext: predictions line %d: missing \"answer_text\"", line)
		}
		id, err := idString(*raw.ID)
		if err != nil {
			return nil, fmt.Errorf("graphtext: predictions line %d: %v", line, err)
		}
		if prev, dup := firstLine[id]; dup {
			return nil, fmt.Errorf("graphtext: predictions line %d: id %q already given on line %d", line, id, prev)
		}
		firstLine[id] = line
		out[id] = *raw.AnswerText
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("graphtext: predictions line %d: %w", line+1, err)
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
