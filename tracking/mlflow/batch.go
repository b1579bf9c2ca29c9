package mlflow

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Batch is the content of a log-batch request: metric points, params and
// tags for one run. A Batch of any size is split by [Batch.Chunks] into
// requests the server accepts.
type Batch struct {
	Metrics []Metric
	Params  []Param
	Tags    []Tag
}

// Len returns the number of entities in b.
func (b Batch) Len() int { return len(b.Metrics) + len(b.Params) + len(b.Tags) }

// Validate checks every entity of b, and that no param key appears twice
// (the server rejects such a batch).
func (b Batch) Validate() error {
	for _, m := range b.Metrics {
		if err := ValidateMetric(m); err != nil {
			return err
		}
	}
	seen := make(map[string]string, len(b.Params))
	for _, p := range b.Params {
		if err := ValidateParam(p.Key, p.Value); err != nil {
			return err
		}
		if v, ok := seen[p.Key]; ok && v != p.Value {
			return &ValidationError{What: fmt.Sprintf("param %q", p.Key),
				Reason: fmt.Sprintf("logged twice with different values (%q, %q); params are write-once", v, p.Value)}
		}
		seen[p.Key] = p.Value
	}
	for _, t := range b.Tags {
		if err := ValidateTag(t.Key, t.Value); err != nil {
			return err
		}
	}
	return nil
}

// batchOverhead bounds the bytes of a log-batch body that are not entities:
// braces, field names and a run id of up to 256 characters.
const batchOverhead = 400

// Chunks splits b into batches that each respect the server's limits,
// keeping the order of each entity kind. Duplicate params (same key and
// value) are sent once.
func (b Batch) Chunks() []Batch {
	var out []Batch
	var cur Batch
	size := batchOverhead
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur)
		}
		cur, size = Batch{}, batchOverhead
	}
	fits := func(n int) bool {
		return cur.Len() < MaxEntitiesPerBatch && size+n+1 <= MaxBatchRequestSize
	}
	var buf []byte
	seen := make(map[Param]bool, len(b.Params))
	for _, p := range b.Params {
		if seen[p] {
			continue
		}
		seen[p] = true
		buf = appendKV(buf[:0], p.Key, p.Value)
		if len(cur.Params) >= MaxParamsTagsPerBatch || !fits(len(buf)) {
			flush()
		}
		cur.Params = append(cur.Params, p)
		size += len(buf) + 1
	}
	for _, t := range b.Tags {
		buf = appendKV(buf[:0], t.Key, t.Value)
		if len(cur.Tags) >= MaxParamsTagsPerBatch || !fits(len(buf)) {
			flush()
		}
		cur.Tags = append(cur.Tags, t)
		size += len(buf) + 1
	}
	for _, m := range b.Metrics {
		buf = appendMetric(buf[:0], m)
		if len(cur.Metrics) >= MaxMetricsPerBatch || !fits(len(buf)) {
			flush()
		}
		cur.Metrics = append(cur.Metrics, m)
		size += len(buf) + 1
	}
	flush()
	return out
}

func appendKV(b []byte, k, v string) []byte {
	b = append(b, `{"key":`...)
	b = appendString(b, k)
	b = append(b, `,"value":`...)
	b = appendString(b, v)
	return append(b, '}')
}

// encode returns the log-batch body of b without the run id.
func (b Batch) encode() []byte {
	buf := make([]byte, 0, 64+80*b.Len())
	buf = append(buf, '{')
	sep := false
	if len(b.Metrics) > 0 {
		buf = append(buf, `"metrics":[`...)
		for i, m := range b.Metrics {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendMetric(buf, m)
		}
		buf = append(buf, ']')
		sep = true
	}
	if len(b.Params) > 0 {
		if sep {
			buf = append(buf, ',')
		}
		buf = append(buf, `"params":[`...)
		for i, p := range b.Params {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendKV(buf, p.Key, p.Value)
		}
		buf = append(buf, ']')
		sep = true
	}
	if len(b.Tags) > 0 {
		if sep {
			buf = append(buf, ',')
		}
		buf = append(buf, `"tags":[`...)
		for i, t := range b.Tags {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendKV(buf, t.Key, t.Value)
		}
		buf = append(buf, ']')
	}
	return append(buf, '}')
}

// decodeBatch parses a log-batch body.
func decodeBatch(body []byte) (Batch, error) {
	var in struct {
		Metrics []Metric `json:"metrics"`
		Params  []Param  `json:"params"`
		Tags    []Tag    `json:"tags"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return Batch{}, fmt.Errorf("decoding a log-batch body: %w", err)
	}
	return Batch{Metrics: in.Metrics, Params: in.Params, Tags: in.Tags}, nil
}

// withRunID returns the JSON object body with "run_id" added first.
func withRunID(body []byte, runID string) []byte {
	out := make([]byte, 0, len(body)+len(runID)+16)
	out = append(out, `{"run_id":`...)
	out = appendString(out, runID)
	rest := bytes.TrimSpace(body)
	if len(rest) > 2 { // not "{}"
		out = append(out, ',')
		out = append(out, rest[1:]...)
		return out
	}
	return append(out, '}')
}

// jsonMarshal is json.Marshal without HTML escaping.
func jsonMarshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
