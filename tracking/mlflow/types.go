package mlflow

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"
)

// RunStatus is the lifecycle status of a run.
type RunStatus string

// The run statuses MLflow knows.
const (
	StatusRunning   RunStatus = "RUNNING"
	StatusScheduled RunStatus = "SCHEDULED"
	StatusFinished  RunStatus = "FINISHED"
	StatusFailed    RunStatus = "FAILED"
	StatusKilled    RunStatus = "KILLED"
)

// Valid reports whether s is one of MLflow's run statuses.
func (s RunStatus) Valid() bool {
	switch s {
	case StatusRunning, StatusScheduled, StatusFinished, StatusFailed, StatusKilled:
		return true
	}
	return false
}

// Terminal reports whether s ends a run (FINISHED, FAILED or KILLED).
func (s RunStatus) Terminal() bool {
	return s == StatusFinished || s == StatusFailed || s == StatusKilled
}

// ViewType selects active runs or experiments, deleted ones, or both.
type ViewType string

// The view types of search requests.
const (
	ActiveOnly  ViewType = "ACTIVE_ONLY"
	DeletedOnly ViewType = "DELETED_ONLY"
	AllViews    ViewType = "ALL"
)

// Tag is a key/value pair attached to a run or an experiment.
type Tag struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Param is a run parameter. Parameters are write-once: logging the same key
// again with another value is an error.
type Param struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Metric is one point of a metric series. Timestamp is in milliseconds since
// the Unix epoch. Value may be NaN or ±Inf: it is encoded as the JSON strings
// "NaN", "Infinity" and "-Infinity".
type Metric struct {
	Key       string
	Value     float64
	Timestamp int64
	Step      int64
}

// MarshalJSON encodes the metric in MLflow's JSON form.
func (m Metric) MarshalJSON() ([]byte, error) {
	return appendMetric(nil, m), nil
}

// UnmarshalJSON decodes a metric, accepting numbers or strings for the
// value, the timestamp and the step.
func (m *Metric) UnmarshalJSON(b []byte) error {
	var raw struct {
		Key       string `json:"key"`
		Value     Float  `json:"value"`
		Timestamp Int64  `json:"timestamp"`
		Step      Int64  `json:"step"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("decoding a metric: %w", err)
	}
	*m = Metric{Key: raw.Key, Value: float64(raw.Value), Timestamp: int64(raw.Timestamp), Step: int64(raw.Step)}
	return nil
}

// appendMetric appends the JSON encoding of m to b. It is the hot path of
// log-batch encoding and of the size accounting in chunking.
func appendMetric(b []byte, m Metric) []byte {
	b = append(b, `{"key":`...)
	b = appendString(b, m.Key)
	b = append(b, `,"value":`...)
	b = appendFloat(b, m.Value)
	b = append(b, `,"timestamp":`...)
	b = strconv.AppendInt(b, m.Timestamp, 10)
	b = append(b, `,"step":`...)
	b = strconv.AppendInt(b, m.Step, 10)
	return append(b, '}')
}

// appendFloat appends v as MLflow accepts it: a JSON number, or one of the
// strings "NaN", "Infinity", "-Infinity".
func appendFloat(b []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		return append(b, `"NaN"`...)
	case math.IsInf(v, 1):
		return append(b, `"Infinity"`...)
	case math.IsInf(v, -1):
		return append(b, `"-Infinity"`...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// appendString appends s as a JSON string.
func appendString(b []byte, s string) []byte {
	simple := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 || c == '<' || c == '>' || c == '&' {
			simple = false
			break
		}
	}
	if simple {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	enc, _ := json.Marshal(s) // a string always encodes
	return append(b, enc...)
}

// Float is a float64 that encodes non-finite values the way MLflow's JSON
// does ("NaN", "Infinity", "-Infinity") and decodes numbers or those strings.
type Float float64

// MarshalJSON implements json.Marshaler.
func (f Float) MarshalJSON() ([]byte, error) { return appendFloat(nil, float64(f)), nil }

// UnmarshalJSON implements json.Unmarshaler.
func (f *Float) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		switch s {
		case "NaN":
			*f = Float(math.NaN())
			return nil
		case "Infinity", "+Infinity", "inf", "Inf":
			*f = Float(math.Inf(1))
			return nil
		case "-Infinity", "-inf", "-Inf":
			*f = Float(math.Inf(-1))
			return nil
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("metric value %q is neither a number nor NaN/Infinity/-Infinity", s)
		}
		*f = Float(v)
		return nil
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("metric value %s is not a number", b)
	}
	*f = Float(v)
	return nil
}

// Int64 is an int64 that decodes from a JSON number or a JSON string (the
// proto-JSON form of int64 fields).
type Int64 int64

// UnmarshalJSON implements json.Unmarshaler.
func (n *Int64) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		b = []byte(s)
	}
	v, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return fmt.Errorf("%q is not a 64-bit integer", b)
	}
	*n = Int64(v)
	return nil
}

// Experiment is an MLflow experiment.
type Experiment struct {
	ID               string `json:"experiment_id"`
	Name             string `json:"name"`
	ArtifactLocation string `json:"artifact_location"`
	LifecycleStage   string `json:"lifecycle_stage"`
	LastUpdateTime   Int64  `json:"last_update_time"`
	CreationTime     Int64  `json:"creation_time"`
	Tags             []Tag  `json:"tags"`
}

// Run is an MLflow run: its info and its data. Data.Metrics holds only the
// latest point of each metric; the full series comes from
// [Client.GetMetricHistory].
type Run struct {
	Info    RunInfo    `json:"info"`
	Data    RunData    `json:"data"`
	Inputs  RunInputs  `json:"inputs"`
	Outputs RunOutputs `json:"outputs"`
}

// RunInfo is a run's metadata.
type RunInfo struct {
	RunID          string    `json:"run_id"`
	RunName        string    `json:"run_name"`
	ExperimentID   string    `json:"experiment_id"`
	UserID         string    `json:"user_id"`
	Status         RunStatus `json:"status"`
	StartTime      Int64     `json:"start_time"`
	EndTime        Int64     `json:"end_time"`
	ArtifactURI    string    `json:"artifact_uri"`
	LifecycleStage string    `json:"lifecycle_stage"`
}

// RunData holds a run's latest metrics, its params and its tags.
type RunData struct {
	Metrics []Metric `json:"metrics"`
	Params  []Param  `json:"params"`
	Tags    []Tag    `json:"tags"`
}

// Param returns the value of the parameter key and whether it is set.
func (d RunData) Param(key string) (string, bool) {
	for _, p := range d.Params {
		if p.Key == key {
			return p.Value, true
		}
	}
	return "", false
}

// Tag returns the value of the tag key and whether it is set.
func (d RunData) Tag(key string) (string, bool) {
	for _, t := range d.Tags {
		if t.Key == key {
			return t.Value, true
		}
	}
	return "", false
}

// Metric returns the latest point of the metric key and whether it is set.
func (d RunData) Metric(key string) (Metric, bool) {
	for _, m := range d.Metrics {
		if m.Key == key {
			return m, true
		}
	}
	return Metric{}, false
}

// FileInfo describes one entry of an artifact directory listing. Path is
// relative to the run's artifact root.
type FileInfo struct {
	Path     string `json:"path"`
	IsDir    bool   `json:"is_dir"`
	FileSize Int64  `json:"file_size"`
}

// Millis converts t to MLflow's timestamp unit, milliseconds since the Unix
// epoch.
func Millis(t time.Time) int64 { return t.UnixMilli() }
