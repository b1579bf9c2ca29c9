package mlflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// SpoolIDTag is the run tag that holds the spool's local id, so that a
// create-run request whose answer was lost can be matched to its run.
const SpoolIDTag = "narlab.spool_id"

// errKind classifies a delivery failure.
type errKind int

const (
	kindTransient errKind = iota // retry later
	kindAuth                     // 401/403: keep the record, retry later, tell the user
	kindPermanent                // the server refuses this request for good
)

func classify(err error) errKind {
	var re *racedError
	if errors.As(err, &re) {
		return kindTransient
	}
	var ae *APIError
	if errors.As(err, &ae) {
		switch {
		case ae.HTTPStatus == 401 || ae.HTTPStatus == 403:
			return kindAuth
		case transient(err):
			return kindTransient
		case ae.HTTPStatus >= 400 && ae.HTTPStatus < 500:
			return kindPermanent
		}
		return kindTransient
	}
	var pe *permanentError
	if errors.As(err, &pe) {
		return kindPermanent
	}
	var ve *ValidationError
	if errors.As(err, &ve) {
		return kindPermanent
	}
	return kindTransient
}

// permanentError marks a local failure that retrying cannot fix (a missing
// artifact copy, an unreadable record).
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// deliverer sends spool records to a server.
type deliverer struct {
	c *Client
	s *Spool
	// fresh says that the last delivery of a record in doubt found that
	// the server had not applied it: records are delivered in order, so
	// no later record was applied either.
	fresh bool
}

// deliver sends rec once (no retries) and acknowledges it in the spool on
// success. inDoubt says that the server may already have applied it.
func (d *deliverer) deliver(ctx context.Context, rec record, inDoubt bool) error {
	d.fresh = false
	st := d.s.snapshot()
	if rec.Op != opCreateRun && rec.Op != opAttachRun && st.RunID == "" {
		return &permanentError{fmt.Errorf("mlflow: spool %s: record %d (%s) comes before the run was created", d.s.dir, rec.Seq, rec.Op)}
	}
	switch rec.Op {
	case opCreateRun:
		return d.createRun(ctx, rec, st, inDoubt)
	case opAttachRun:
		return d.attachRun(ctx, rec)
	case opLogInputs:
		// Idempotent: a dataset another run created meanwhile is found
		// when sent again.
		err := d.post(ctx, rec, "mlflow/runs/log-inputs", withRunID(rec.Body, st.RunID))
		if raced(err) {
			return &racedError{err}
		}
		return err
	case opLogBatch:
		body := rec.Body
		if inDoubt {
			var err error
			body, d.fresh, err = d.undelivered(ctx, st.RunID, body)
			if err != nil {
				return err
			}
			if body == nil {
				return d.s.ack(rec, nil)
			}
		}
		return d.post(ctx, rec, "mlflow/runs/log-batch", withRunID(body, st.RunID))
	case opUpdateRun:
		var u struct {
			Status RunStatus `json:"status"`
		}
		_ = json.Unmarshal(rec.Body, &u)
		resp, err := d.c.send(ctx, request{method: http.MethodPost, endpoint: "mlflow/runs/update", body: withRunID(rec.Body, st.RunID)}, NoRetry)
		if err != nil {
			return err
		}
		resp.Body.Close()
		return d.s.ack(rec, func(s *spoolState) { s.Ended = s.Ended || u.Status.Terminal() })
	case opDeleteTag:
		return d.post(ctx, rec, "mlflow/runs/delete-tag", withRunID(rec.Body, st.RunID))
	case opArtifact:
		var data []byte
		var open func() (*os.File, error)
		switch {
		case rec.File == "" && rec.src != "": // held in memory, uploaded from the caller's file
			open = func() (*os.File, error) { return os.Open(rec.src) }
		case rec.File == "": // held in memory
			data = rec.data
			if data == nil {
				data = []byte{}
			}
		default:
			file, err := d.s.artifactCopy(rec)
			if err != nil {
				if inDoubt && d.s.copyGone(rec) {
					// A copy is removed only after its upload was
					// acknowledged in memory (state.json could not say so).
					return d.s.ack(rec, nil)
				}
				return err
			}
			open = func() (*os.File, error) { return openArtifactCopy(file) }
		}
		store, err := d.c.artifactStoreFor(st.ArtifactURI)
		if err != nil {
			return &permanentError{err}
		}
		nc := *store
		if nc.c != nil {
			cc := *nc.c
			cc.retry = NoRetry
			nc.c = &cc
		}
		if err := nc.put(ctx, rec.Path, data, open); err != nil {
			return err
		}
		return d.s.ack(rec, nil)
	}
	return &permanentError{fmt.Errorf("mlflow: spool %s: record %d has unknown operation %q", d.s.dir, rec.Seq, rec.Op)}
}

func (d *deliverer) post(ctx context.Context, rec record, endpoint string, body []byte) error {
	resp, err := d.c.send(ctx, request{method: http.MethodPost, endpoint: endpoint, body: body}, NoRetry)
	if err != nil {
		return err
	}
	resp.Body.Close()
	return d.s.ack(rec, nil)
}

func (d *deliverer) createRun(ctx context.Context, rec record, st spoolState, inDoubt bool) error {
	if st.RunID != "" { // acknowledged state was written, the record was not (cannot happen) or a replay
		return d.s.ack(rec, nil)
	}
	exp, err := d.c.GetOrCreateExperiment(ctx, rec.Experiment)
	if err != nil {
		return err
	}
	if inDoubt {
		runs, err := d.c.SearchRuns(ctx, []string{exp.ID}, SearchOptions{
			Filter: fmt.Sprintf("tags.\"%s\" = '%s'", SpoolIDTag, d.s.meta.LocalID), ViewType: AllViews, MaxResults: 2})
		if err != nil {
			return err
		}
		if len(runs) > 0 {
			r := runs[0]
			return d.s.ack(rec, func(s *spoolState) {
				s.RunID, s.ExperimentID, s.ArtifactURI = r.Info.RunID, r.Info.ExperimentID, r.Info.ArtifactURI
			})
		}
		d.fresh = true
	}
	var body map[string]any
	if err := json.Unmarshal(rec.Body, &body); err != nil {
		return &permanentError{fmt.Errorf("mlflow: spool %s: create-run record: %w", d.s.dir, err)}
	}
	body["experiment_id"] = exp.ID
	if rec.ParentSpool != "" {
		parent, err := parentRunID(rec.ParentSpool)
		if err != nil {
			return err
		}
		tags, _ := body["tags"].([]any)
		body["tags"] = append(tags, map[string]any{"key": TagParentRunID, "value": parent})
	}
	b, err := jsonMarshal(body)
	if err != nil {
		return &permanentError{err}
	}
	resp, err := d.c.send(ctx, request{method: http.MethodPost, endpoint: "mlflow/runs/create", body: b}, NoRetry)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var out struct {
		Run Run `json:"run"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Run.Info.RunID == "" {
		// The run exists, but its id is unknown: the next attempt is in doubt.
		return fmt.Errorf("mlflow: runs/create: unreadable answer: %v (%w)", err, ErrAmbiguous)
	}
	r := out.Run
	return d.s.ack(rec, func(s *spoolState) {
		s.RunID, s.ExperimentID, s.ArtifactURI = r.Info.RunID, r.Info.ExperimentID, r.Info.ArtifactURI
	})
}

// attachRun resumes an existing run (MLFLOW_RUN_ID): the run must exist
// and not be deleted; it is marked RUNNING again, its end time kept, as
// mlflow.start_run(run_id=…) does. Idempotent, so an in-doubt attempt is
// simply repeated.
func (d *deliverer) attachRun(ctx context.Context, rec record) error {
	var in struct {
		RunID string `json:"run_id"`
	}
	if err := json.Unmarshal(rec.Body, &in); err != nil || in.RunID == "" {
		return &permanentError{fmt.Errorf("mlflow: spool %s: attach-run record without a run id", d.s.dir)}
	}
	r, err := d.c.GetRun(ctx, in.RunID)
	if err != nil {
		if IsNotFound(err) {
			return &permanentError{fmt.Errorf("mlflow: run %s (%s) does not exist on %s: %w", in.RunID, EnvRunID, d.c.URI(), err)}
		}
		return err
	}
	if r.Info.LifecycleStage == "deleted" {
		return &permanentError{fmt.Errorf("mlflow: run %s (%s) is deleted; restore it (MLflow UI) or unset %s", in.RunID, EnvRunID, EnvRunID)}
	}
	if r.Info.Status != StatusRunning {
		body, err := updateRunBody(StatusRunning, time.Time{})
		if err != nil {
			return &permanentError{err}
		}
		resp, err := d.c.send(ctx, request{method: http.MethodPost, endpoint: "mlflow/runs/update", body: withRunID(body, in.RunID)}, NoRetry)
		if err != nil {
			return err
		}
		resp.Body.Close()
	}
	return d.s.ack(rec, func(s *spoolState) {
		s.RunID, s.ExperimentID, s.ArtifactURI = r.Info.RunID, r.Info.ExperimentID, r.Info.ArtifactURI
	})
}

// parentRunID reads the server id of the run of another spool. dir comes
// from a record, so it must hold a spool whose files pass checkSpoolFiles.
func parentRunID(dir string) (string, error) {
	if _, err := os.Lstat(filepath.Join(dir, metaFile)); err != nil {
		return "", &permanentError{fmt.Errorf("mlflow: parent run's spool %s is not a spool: %w", dir, err)}
	}
	if err := checkSpoolFiles(dir); err != nil {
		return "", &permanentError{err}
	}
	b, err := os.ReadFile(filepath.Join(dir, stateFile))
	if err != nil {
		return "", &permanentError{fmt.Errorf("mlflow: parent run's spool %s: %w", dir, err)}
	}
	var st spoolState
	if err := json.Unmarshal(b, &st); err != nil {
		return "", &permanentError{fmt.Errorf("mlflow: parent run's spool %s: %w", dir, err)}
	}
	if st.RunID == "" {
		return "", fmt.Errorf("mlflow: the parent run (spool %s) is not created on the server yet", dir)
	}
	return st.RunID, nil
}

// pointID identifies a metric point as the server stores it: ±Inf read back
// as ±MaxFloat64, NaN as NaN.
type pointID struct {
	key       string
	step, ts  int64
	valueBits uint64
}

func idOf(m Metric) pointID {
	v := m.Value
	switch {
	case math.IsNaN(v):
		v = math.NaN()
	case math.IsInf(v, 1):
		v = math.MaxFloat64
	case math.IsInf(v, -1):
		v = -math.MaxFloat64
	}
	return pointID{m.Key, m.Step, m.Timestamp, math.Float64bits(v)}
}

// undelivered returns the log-batch body without the metric points that the
// server already has, or nil when nothing is left to send; fresh reports
// that the server had none of its points (the request was not applied).
func (d *deliverer) undelivered(ctx context.Context, runID string, body []byte) (out []byte, fresh bool, err error) {
	b, err := decodeBatch(body)
	if err != nil {
		return nil, false, &permanentError{err}
	}
	if len(b.Metrics) == 0 {
		return body, false, nil
	}
	have := map[pointID]bool{}
	seen := map[string]bool{}
	for _, m := range b.Metrics {
		if seen[m.Key] {
			continue
		}
		seen[m.Key] = true
		hist, err := d.c.GetMetricHistory(ctx, runID, m.Key)
		if err != nil && !IsNotFound(err) {
			return nil, false, err
		}
		for _, h := range hist {
			have[idOf(h)] = true
		}
	}
	kept := b.Metrics[:0:0]
	for _, m := range b.Metrics {
		if !have[idOf(m)] {
			kept = append(kept, m)
		}
	}
	if len(kept) == len(b.Metrics) {
		return body, true, nil
	}
	b.Metrics = kept
	if b.Len() == 0 {
		return nil, false, nil
	}
	return b.encode(), false, nil
}

// describe names a record for messages.
func (rec record) describe() string {
	switch rec.Op {
	case opArtifact:
		return fmt.Sprintf("record %d (upload of %s)", rec.Seq, rec.Path)
	case opLogBatch:
		b, err := decodeBatch(rec.Body)
		if err == nil {
			var keys []string
			for _, p := range b.Params {
				keys = append(keys, "param "+p.Key)
			}
			for _, t := range b.Tags {
				keys = append(keys, "tag "+t.Key)
			}
			if len(keys) > 4 {
				keys = append(keys[:4], "…")
			}
			return fmt.Sprintf("record %d (log-batch: %d metric points, %d params, %d tags %s)",
				rec.Seq, len(b.Metrics), len(b.Params), len(b.Tags), strings.Join(keys, ", "))
		}
	}
	return fmt.Sprintf("record %d (%s)", rec.Seq, rec.Op)
}
