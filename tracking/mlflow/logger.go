package mlflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
)

// RunOptions describe a run started with [Client.StartRun].
type RunOptions struct {
	// Experiment is the experiment's name; it is created if needed.
	Experiment string
	// RunName is shown in the UI; empty lets the server pick one.
	RunName string
	// StartTime defaults to now.
	StartTime time.Time
	// Tags are set when the run is created (system tags such as
	// TagSourceName, TagGitCommit, TagNote, or the run's own).
	Tags []Tag
	// Parent makes this a nested run of another live run (a sweep's
	// child); ParentRunID does the same with a server run id.
	Parent      *RunLogger
	ParentRunID string
	// AttachRunID, when set, resumes that existing run instead of creating
	// one (what MLFLOW_RUN_ID asks, see [EnvRunID]): once delivered it is
	// marked RUNNING again and everything logged goes to it. Experiment,
	// RunName, StartTime and the parent are then ignored (the run keeps
	// its own), and of Tags only those outside the reserved mlflow.
	// prefix are set: the run keeps its source, user and description.
	AttachRunID string
	// SpoolDir is the new, empty (or missing) directory of the run's spool.
	SpoolDir string
	// Tracking is recorded in the spool to say which server the run
	// belongs to: LocalTracking for the embedded local server; empty means
	// the client's address.
	Tracking string
	// FlushInterval is how often buffered values are written to the spool
	// and sent (default 1 s); FlushSize is the number of buffered metric
	// points that triggers an early flush (default 1000).
	FlushInterval time.Duration
	FlushSize     int
	// CreateTimeout bounds how long StartRun waits for the server to
	// create the run before carrying on offline (default 15 s).
	CreateTimeout time.Duration
	// EndTimeout bounds how long End waits for the spool to drain
	// (default 60 s; a context with an earlier deadline ends it sooner).
	EndTimeout time.Duration
	// MaxBackoff caps the wait between attempts while the server is
	// unreachable (default 15 s).
	MaxBackoff time.Duration
	// KeepSpool keeps requests.jsonl after the run ended and everything was
	// delivered (by default it is removed; state.json stays).
	KeepSpool bool
	// MaxMemory bounds the bytes of requests held in memory while the
	// spool's disk does not take them and the server does not answer
	// (default DefaultMaxMemory); beyond it requests are dropped and
	// counted as lost.
	MaxMemory int64
	// Logf receives notices (server unreachable, back, requests rejected).
	// Default: the standard logger. Secrets are never passed to it.
	Logf func(format string, args ...any)
}

// A RunLogger is a live run. Its logging methods validate their input and
// return at once: values are buffered, written to the run's spool by a
// background goroutine every FlushInterval (or FlushSize points), and sent
// from the spool in order by another. See [Spool] for the guarantees.
// A RunLogger is safe for concurrent use.
type RunLogger struct {
	c    *Client
	s    *Spool
	opts RunOptions
	logf func(string, ...any)

	mu        sync.Mutex // guards the buffer and the run's logged state
	metrics   []Metric
	params    []Param
	tags      []Tag
	tagPos    map[string]int
	paramVals map[string]string
	keys      map[string]bool
	artifacts []loggedArtifact
	spoolErr  error
	ended     bool

	appendMu sync.Mutex // orders spool appends

	drainNow chan struct{}
	stop     chan struct{}
	stopOnce sync.Once
	sendCtx  context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup

	stMu     sync.Mutex
	progress chan struct{} // closed and replaced on every acknowledgment
	failing  error         // the current delivery failure; nil while delivering
	rejects  []error
}

type loggedArtifact struct {
	Path string `json:"path"`
	Type string `json:"type"`
}

// ErrEnded is returned by logging calls after End or Close.
var ErrEnded = errors.New("mlflow: the run has ended")

// StartRun starts a run: it creates the spool, spools the create-run
// request and waits up to CreateTimeout for the server to create the run.
// If the server is unreachable, the run goes on offline: everything is kept
// in the spool and sent when the server is back. The error is non-nil only
// for invalid options or a spool that cannot be written.
func (c *Client) StartRun(ctx context.Context, opts RunOptions) (*RunLogger, error) {
	if opts.AttachRunID == "" {
		if err := ValidateExperimentName(opts.Experiment); err != nil {
			return nil, err
		}
	}
	if opts.SpoolDir == "" {
		return nil, &ValidationError{What: "run options", Reason: "SpoolDir is empty; expected the run's spool directory"}
	}
	for _, t := range opts.Tags {
		if err := ValidateTag(t.Key, t.Value); err != nil {
			return nil, err
		}
	}
	if opts.FlushInterval <= 0 {
		opts.FlushInterval = time.Second
	}
	if opts.FlushSize <= 0 {
		opts.FlushSize = MaxMetricsPerBatch
	}
	if opts.CreateTimeout <= 0 {
		opts.CreateTimeout = 15 * time.Second
	}
	if opts.EndTimeout <= 0 {
		opts.EndTimeout = time.Minute
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = 15 * time.Second
	}
	tracking := opts.Tracking
	if tracking == "" {
		tracking = c.URI()
	}
	meta := SpoolMeta{Tracking: tracking, Experiment: opts.Experiment, RunName: opts.RunName}
	s, err := CreateSpool(opts.SpoolDir, meta)
	var de *DiskError
	if errors.As(err, &de) {
		// The disk does not take the spool: the run goes on in memory,
		// delivered directly while the server answers.
		s, err = newMemorySpool(opts.SpoolDir, meta, de), nil
		logf := opts.Logf
		if logf == nil {
			logf = log.Printf
		}
		logf("mlflow: the run's spool cannot be created: %v. What the run logs is kept in memory and sent directly while %s answers; "+
			"nothing is lost unless the process ends before the server has taken it.", de, c.URI())
	}
	if err != nil {
		return nil, err
	}
	if opts.AttachRunID != "" {
		return c.attachRun(ctx, s, opts)
	}
	tags := append(append([]Tag(nil), opts.Tags...), Tag{SpoolIDTag, s.meta.LocalID})
	rec := record{Op: opCreateRun, Experiment: opts.Experiment}
	switch {
	case opts.ParentRunID != "":
		tags = append(tags, Tag{TagParentRunID, opts.ParentRunID})
	case opts.Parent != nil:
		if id := opts.Parent.RunID(); id != "" {
			tags = append(tags, Tag{TagParentRunID, id})
		} else {
			rec.ParentSpool = opts.Parent.s.dir
		}
	}
	start := opts.StartTime
	if start.IsZero() {
		start = time.Now()
	}
	// user_id as Python's client sends it: the mlflow.user tag.
	user := ""
	for _, t := range tags {
		if t.Key == TagUser {
			user = t.Value
		}
	}
	rec.Body, err = jsonMarshal(struct {
		RunName   string `json:"run_name,omitempty"`
		StartTime int64  `json:"start_time"`
		UserID    string `json:"user_id,omitempty"`
		Tags      []Tag  `json:"tags"`
	}{opts.RunName, Millis(start), user, tags})
	if err != nil {
		s.Close()
		return nil, err
	}
	if _, err := s.append(rec); err != nil {
		s.Close()
		return nil, err
	}
	r := newRunLogger(c, s, opts)
	r.startLoops()
	wctx, cancel := context.WithTimeout(ctx, opts.CreateTimeout)
	defer cancel()
	if err := r.waitAcked(wctx, 1); err != nil {
		hint := " (or by `narlab mlflow sync`)"
		if s.memOnly {
			hint = ""
		}
		r.logf("mlflow: run not created yet on %s (%v); logging goes on into %s and is sent when the server answers%s",
			c.URI(), r.lastFailure(), s.where(), hint)
	}
	return r, nil
}

// attachRun is StartRun for opts.AttachRunID.
func (c *Client) attachRun(ctx context.Context, s *Spool, opts RunOptions) (*RunLogger, error) {
	if err := ValidateRunID(opts.AttachRunID); err != nil {
		s.Close()
		return nil, err
	}
	body, err := jsonMarshal(map[string]string{"run_id": opts.AttachRunID})
	if err != nil {
		s.Close()
		return nil, err
	}
	if _, err := s.append(record{Op: opAttachRun, Body: body}); err != nil {
		s.Close()
		return nil, err
	}
	r := newRunLogger(c, s, opts)
	for _, t := range append(opts.Tags, Tag{SpoolIDTag, s.meta.LocalID}) {
		if !strings.HasPrefix(t.Key, "mlflow.") {
			r.SetTag(t.Key, t.Value)
		}
	}
	r.startLoops()
	wctx, cancel := context.WithTimeout(ctx, opts.CreateTimeout)
	defer cancel()
	if err := r.waitAcked(wctx, 1); err != nil {
		if errs := r.rejectsSoFar(); len(errs) > 0 {
			r.Close()
			os.RemoveAll(s.dir)
			return nil, fmt.Errorf("mlflow: resuming run %s: %w", opts.AttachRunID, errors.Join(errs...))
		}
		r.logf("mlflow: run %s not resumed yet on %s (%v); logging goes on into the spool %s and is sent when the server answers (or by `narlab mlflow sync`)",
			opts.AttachRunID, c.URI(), r.lastFailure(), s.dir)
	} else if errs := r.rejectsSoFar(); len(errs) > 0 {
		r.Close()
		os.RemoveAll(s.dir)
		return nil, fmt.Errorf("mlflow: resuming run %s: %w", opts.AttachRunID, errors.Join(errs...))
	}
	return r, nil
}

func (r *RunLogger) rejectsSoFar() []error {
	r.stMu.Lock()
	defer r.stMu.Unlock()
	return append([]error(nil), r.rejects...)
}

func newRunLogger(c *Client, s *Spool, opts RunOptions) *RunLogger {
	nc := *c
	nc.retry = NoRetry
	r := &RunLogger{
		c: &nc, s: s, opts: opts, logf: opts.Logf,
		tagPos: map[string]int{}, paramVals: map[string]string{}, keys: map[string]bool{},
		drainNow: make(chan struct{}, 1), stop: make(chan struct{}), progress: make(chan struct{}),
	}
	if r.logf == nil {
		r.logf = log.Printf
	}
	if opts.MaxMemory > 0 {
		s.maxMem = opts.MaxMemory
	}
	s.mu.Lock()
	s.logf = r.logf
	s.mu.Unlock()
	r.sendCtx, r.cancel = context.WithCancel(context.Background())
	return r
}

func (r *RunLogger) startLoops() {
	r.wg.Add(2)
	go r.drainLoop()
	go r.sendLoop()
}

// RunID returns the server's id of the run, or "" while the server has not
// created it yet.
func (r *RunLogger) RunID() string { return r.s.RunID() }

// ExperimentID returns the server's id of the run's experiment, or "".
func (r *RunLogger) ExperimentID() string { return r.s.snapshot().ExperimentID }

// ArtifactURI returns the run's artifact root, or "" while unknown.
func (r *RunLogger) ArtifactURI() string { return r.s.snapshot().ArtifactURI }

// LocalID returns the run's local id (the narlab.spool_id tag).
func (r *RunLogger) LocalID() string { return r.s.meta.LocalID }

// SpoolDir returns the directory of the run's spool.
func (r *RunLogger) SpoolDir() string { return r.s.dir }

// Client returns the client the run logs through.
func (r *RunLogger) Client() *Client { return r.c }

// URL returns the run's page in the MLflow UI, or "" while the run is not
// created on the server.
func (r *RunLogger) URL() string {
	st := r.s.snapshot()
	if st.RunID == "" {
		return ""
	}
	return r.c.RunURL(st.ExperimentID, st.RunID)
}

// Pending returns the number of spooled requests not yet delivered.
func (r *RunLogger) Pending() int64 { return r.s.Pending() }

// HeldInMemory reports how many of the run's requests were held in memory
// because the spool's disk did not take them (see [Spool]), and the last
// disk failure (nil when the disk took everything).
func (r *RunLogger) HeldInMemory() (int64, error) { return r.s.memoryUse() }

// LogMetric buffers one metric point, timestamped now. It does not block on
// the network. An invalid key is an error and nothing is logged.
func (r *RunLogger) LogMetric(key string, step int64, value float64) error {
	return r.LogMetricAt(key, step, value, time.Now())
}

// LogMetricAt buffers one metric point with an explicit time.
func (r *RunLogger) LogMetricAt(key string, step int64, value float64, t time.Time) error {
	ts := t.UnixMilli()
	r.mu.Lock()
	if r.ended {
		r.mu.Unlock()
		return ErrEnded
	}
	if !r.keys[key] {
		if err := ValidateKey("metric", key); err != nil {
			r.mu.Unlock()
			return err
		}
		r.keys[key] = true
	}
	if ts < 0 {
		r.mu.Unlock()
		return ValidateMetric(Metric{Key: key, Timestamp: ts})
	}
	r.metrics = append(r.metrics, Metric{Key: key, Value: value, Timestamp: ts, Step: step})
	full := len(r.metrics) >= r.opts.FlushSize
	err := r.spoolErr
	r.mu.Unlock()
	if full {
		select {
		case r.drainNow <- struct{}{}:
		default:
		}
	}
	return err
}

// LogParam buffers a parameter. Params are write-once: the same key with
// another value is an error.
func (r *RunLogger) LogParam(key, value string) error {
	if err := ValidateParam(key, value); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		return ErrEnded
	}
	if old, ok := r.paramVals[key]; ok {
		if old != value {
			return &ValidationError{What: fmt.Sprintf("param %q", key),
				Reason: fmt.Sprintf("already logged as %q, cannot change it to %q; params are write-once (log a changing value as a metric or tag)", old, value)}
		}
		return r.spoolErr
	}
	r.paramVals[key] = value
	r.params = append(r.params, Param{key, value})
	return r.spoolErr
}

// LogParams buffers several parameters (in key order).
func (r *RunLogger) LogParams(params map[string]string) error {
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := ValidateParam(k, params[k]); err != nil {
			return err
		}
	}
	for _, k := range keys {
		if err := r.LogParam(k, params[k]); err != nil {
			return err
		}
	}
	return nil
}

// SetTag buffers a run tag (the last value set wins).
func (r *RunLogger) SetTag(key, value string) error {
	if err := ValidateTag(key, value); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		return ErrEnded
	}
	if i, ok := r.tagPos[key]; ok {
		r.tags[i].Value = value
	} else {
		r.tagPos[key] = len(r.tags)
		r.tags = append(r.tags, Tag{key, value})
	}
	return r.spoolErr
}

// DeleteTag removes a run tag.
func (r *RunLogger) DeleteTag(key string) error {
	if err := ValidateKey("tag", key); err != nil {
		return err
	}
	if err := r.checkLive(); err != nil {
		return err
	}
	body, _ := jsonMarshal(map[string]string{"key": key})
	r.appendMu.Lock()
	defer r.appendMu.Unlock()
	if err := r.drainLocked(); err != nil {
		return err
	}
	_, err := r.s.append(record{Op: opDeleteTag, Body: body})
	return err
}

func (r *RunLogger) checkLive() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		return ErrEnded
	}
	return nil
}

// LogArtifactFile copies the local file into the spool and queues its
// upload as artifactPath (e.g. "checkpoints/step-1000.ckpt"). Changing the
// file afterwards does not change the artifact.
func (r *RunLogger) LogArtifactFile(localPath, artifactPath string) error {
	st, err := os.Stat(localPath)
	if err != nil {
		return fmt.Errorf("mlflow: artifact %s: %w", artifactPath, err)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("mlflow: artifact %s: %s is not a regular file", artifactPath, localPath)
	}
	return r.logArtifact(artifactPath, nil, localPath)
}

// LogArtifactBytes queues data for upload as artifactPath.
func (r *RunLogger) LogArtifactBytes(artifactPath string, data []byte) error {
	if data == nil {
		data = []byte{}
	}
	return r.logArtifact(artifactPath, data, "")
}

func (r *RunLogger) logArtifact(artifactPath string, data []byte, src string) error {
	if err := ValidateArtifactPath(artifactPath); err != nil {
		return err
	}
	if err := r.checkLive(); err != nil {
		return err
	}
	r.appendMu.Lock()
	defer r.appendMu.Unlock()
	if err := r.drainLocked(); err != nil {
		return err
	}
	_, err := r.s.appendArtifact(artifactPath, data, src)
	return err
}

// LogTable uploads a table as the JSON artifact artifactPath (ending in
// .json) in the form {"columns": [...], "data": [[...], ...]}, and lists it
// in the mlflow.loggedArtifacts tag with type "table", which makes the
// MLflow UI render it as a table.
func (r *RunLogger) LogTable(artifactPath string, columns []string, rows [][]any) error {
	if !strings.HasSuffix(artifactPath, ".json") {
		return &ValidationError{What: fmt.Sprintf("table artifact %q", artifactPath), Reason: "expected a path ending in .json, e.g. \"tables/scores.json\""}
	}
	for i, row := range rows {
		if len(row) != len(columns) {
			return &ValidationError{What: fmt.Sprintf("table %s", artifactPath),
				Reason: fmt.Sprintf("row %d has %d values for %d columns", i, len(row), len(columns))}
		}
	}
	if rows == nil {
		rows = [][]any{}
	}
	data, err := jsonMarshal(struct {
		Columns []string `json:"columns"`
		Data    [][]any  `json:"data"`
	}{columns, rows})
	if err != nil {
		return fmt.Errorf("mlflow: table %s: %w (expected JSON-encodable values; NaN and ±Inf cannot be in a JSON table)", artifactPath, err)
	}
	if err := r.LogArtifactBytes(artifactPath, data); err != nil {
		return err
	}
	r.mu.Lock()
	found := false
	for _, a := range r.artifacts {
		found = found || a.Path == artifactPath
	}
	if !found {
		r.artifacts = append(r.artifacts, loggedArtifact{artifactPath, "table"})
	}
	list, _ := json.Marshal(r.artifacts)
	r.mu.Unlock()
	return r.SetTag(TagLoggedArtifacts, string(list))
}

// drainLoop moves the buffer into the spool every FlushInterval, or sooner
// when FlushSize points are waiting.
func (r *RunLogger) drainLoop() {
	defer r.wg.Done()
	t := time.NewTicker(r.opts.FlushInterval)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
		case <-r.drainNow:
		}
		r.appendMu.Lock()
		_ = r.drainLocked()
		r.appendMu.Unlock()
	}
}

// drainLocked writes the buffer to the spool as log-batch records. Call
// with appendMu held. On a spool write failure the unwritten values go back
// to the buffer and the error is reported by later logging calls.
func (r *RunLogger) drainLocked() error {
	r.mu.Lock()
	b := Batch{Metrics: r.metrics, Params: r.params, Tags: r.tags}
	if b.Len() == 0 {
		r.mu.Unlock()
		return nil
	}
	r.metrics = make([]Metric, 0, min(cap(r.metrics), 4*r.opts.FlushSize))
	r.params, r.tags = nil, nil
	r.tagPos = map[string]int{}
	r.mu.Unlock()
	chunks := b.Chunks()
	var dropped error
	for i, ch := range chunks {
		_, err := r.s.append(record{Op: opLogBatch, Body: ch.encode()})
		if errors.Is(err, ErrLost) {
			dropped = err // counted by the spool; the next chunks may fit
			continue
		}
		if err != nil {
			r.mu.Lock()
			var back Batch
			for _, c := range chunks[i:] {
				back.Metrics = append(back.Metrics, c.Metrics...)
				back.Params = append(back.Params, c.Params...)
				back.Tags = append(back.Tags, c.Tags...)
			}
			r.metrics = append(back.Metrics, r.metrics...)
			r.params = append(back.Params, r.params...)
			newer := r.tags
			r.tags, r.tagPos = nil, map[string]int{}
			for _, t := range append(back.Tags, newer...) {
				if j, ok := r.tagPos[t.Key]; ok {
					r.tags[j].Value = t.Value
				} else {
					r.tagPos[t.Key] = len(r.tags)
					r.tags = append(r.tags, t)
				}
			}
			if r.spoolErr == nil {
				r.logf("mlflow: %v: values stay in the run's buffer", err)
			}
			r.spoolErr = err
			r.mu.Unlock()
			return err
		}
	}
	// A dropped chunk (memory full too) is counted by the spool and told
	// by later logging calls and End; it does not stop the caller's own
	// request.
	r.mu.Lock()
	r.spoolErr = dropped
	r.mu.Unlock()
	return nil
}

// sendLoop delivers spool records in order, one at a time.
func (r *RunLogger) sendLoop() {
	defer r.wg.Done()
	rd, err := r.s.reader()
	if err != nil {
		r.setFailure(err)
		return
	}
	defer rd.Close()
	d := &deliverer{c: r.c, s: r.s}
	for {
		rec, ok, err := r.s.nextRecord(rd)
		if err != nil {
			r.setFailure(err)
			r.logf("%v", err)
			return
		}
		if !ok {
			select {
			case <-r.s.appended:
				continue
			case <-r.stop:
				return
			}
		}
		// Retry for as long as the run lives (the spool keeps the record
		// in any case), with the client's policy and Retry-After, each wait
		// capped at MaxBackoff.
		inDoubt, rejected, races := false, false, 0
		p := r.c.retry
		p.MaxRetries = -1
		if p.BaseDelay <= 0 {
			p.BaseDelay = DefaultRetryPolicy.BaseDelay
		}
		gaveUp, err := retryLoop(r.sendCtx, p, r.opts.MaxBackoff, r.stop, func(int) (bool, error) {
			err := d.deliver(r.sendCtx, rec, inDoubt)
			if err == nil || r.sendCtx.Err() != nil {
				return false, err
			}
			if classify(err) == kindPermanent {
				rejected = true
				return false, err
			}
			var re *racedError
			if errors.As(err, &re) {
				if races++; races < maxRaces {
					return true, err // nothing was applied, and the server is fine
				}
				rejected = true // lost every time: not a race
				return false, err
			}
			if !notApplied(err) {
				inDoubt = true
			}
			r.setFailure(err)
			return true, err
		})
		switch {
		case err == nil:
			r.acknowledged()
		case rejected:
			r.rejected(rec, err)
			if rerr := r.s.reject(rec, err); rerr != nil {
				r.setFailure(rerr)
				return
			}
			r.acknowledged()
		case gaveUp || r.sendCtx.Err() != nil:
			return // stopping: the record stays in the spool, in doubt
		}
	}
}

func (r *RunLogger) acknowledged() {
	r.stMu.Lock()
	if r.failing != nil {
		r.logf("mlflow: %s answers again; sending the spooled requests", r.c.URI())
		r.failing = nil
	}
	close(r.progress)
	r.progress = make(chan struct{})
	r.stMu.Unlock()
}

func (r *RunLogger) setFailure(err error) {
	r.stMu.Lock()
	defer r.stMu.Unlock()
	if r.failing == nil {
		what := "cannot reach"
		if classify(err) == kindAuth {
			what = "is refused by"
		}
		r.logf("mlflow: logging %s %s (%v); requests wait in %s and are retried", what, r.c.URI(), err, r.s.where())
	}
	r.failing = err
}

func (r *RunLogger) rejected(rec record, err error) {
	r.stMu.Lock()
	defer r.stMu.Unlock()
	e := fmt.Errorf("%s was rejected: %w (kept in %s)", rec.describe(), err, r.s.dir+"/"+rejectedFile)
	r.rejects = append(r.rejects, e)
	r.logf("mlflow: %v", e)
}

func (r *RunLogger) lastFailure() error {
	r.stMu.Lock()
	defer r.stMu.Unlock()
	if r.failing == nil {
		return errors.New("no answer yet")
	}
	return r.failing
}

// Err returns the requests the server rejected for good (each kept in the
// spool's rejected.jsonl) and a spool write failure, if any.
func (r *RunLogger) Err() error {
	r.stMu.Lock()
	errs := append([]error(nil), r.rejects...)
	r.stMu.Unlock()
	r.mu.Lock()
	if r.spoolErr != nil {
		errs = append(errs, r.spoolErr)
	}
	r.mu.Unlock()
	return errors.Join(errs...)
}

// waitAcked waits until record seq is acknowledged.
func (r *RunLogger) waitAcked(ctx context.Context, seq int64) error {
	for {
		r.stMu.Lock()
		ch := r.progress
		r.stMu.Unlock()
		if r.s.snapshot().Acked >= seq {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ch:
		}
	}
}

// Persist writes the buffer to the spool (fsync'd) without waiting for the
// server: everything logged before it survives a crash or a kill of this
// process. The background flush does the same every FlushInterval.
func (r *RunLogger) Persist() error {
	r.appendMu.Lock()
	defer r.appendMu.Unlock()
	return r.drainLocked()
}

// Flush writes the buffer to the spool and waits until the server has
// everything logged so far, or ctx ends (the error then wraps
// [ErrPending]; nothing is lost).
func (r *RunLogger) Flush(ctx context.Context) error {
	r.appendMu.Lock()
	err := r.drainLocked()
	r.appendMu.Unlock()
	if err != nil {
		return err
	}
	return r.waitDelivered(ctx)
}

func (r *RunLogger) waitDelivered(ctx context.Context) error {
	r.s.mu.Lock()
	last := r.s.next - 1
	r.s.mu.Unlock()
	if err := r.waitAcked(ctx, last); err != nil {
		return r.pendingError()
	}
	return nil
}

// pendingError describes what the server has not taken yet, and where it
// waits.
func (r *RunLogger) pendingError() error {
	points, other := r.s.pendingContents()
	if points+other == 0 {
		return nil
	}
	return fmt.Errorf("mlflow: %s did not take the whole run (last failure: %v): %d metric points and %d other requests wait in %s: %w; "+
		"deliver them with `narlab mlflow sync` once the server answers",
		r.c.URI(), r.lastFailure(), points, other, r.s.where(), ErrPending)
}

// End ends the run with status FINISHED, FAILED or KILLED: it spools the
// run update, waits (up to EndTimeout, or ctx) until everything is
// delivered, and stops the background goroutines. If the server could not
// be reached, the error wraps [ErrPending]: the run's data is complete in
// its spool, and `narlab mlflow sync` sends it. When the spool's disk did
// not take some of it either (see [Spool]), what memory held is written to
// the spool if the disk takes it now, and is otherwise lost: the error then
// also holds a [*LostError] (wrapping [ErrLost]) that counts it per metric
// key. Requests the server rejected are reported too.
func (r *RunLogger) End(ctx context.Context, status RunStatus) error {
	if !status.Terminal() {
		return &ValidationError{What: fmt.Sprintf("end status %q", status), Reason: "expected FINISHED, FAILED or KILLED"}
	}
	r.mu.Lock()
	if r.ended {
		r.mu.Unlock()
		return ErrEnded
	}
	r.mu.Unlock()
	body, err := updateRunBody(status, time.Now())
	if err != nil {
		return err
	}
	r.appendMu.Lock()
	if err := r.drainLocked(); err != nil {
		r.appendMu.Unlock()
		return err
	}
	_, err = r.s.append(record{Op: opUpdateRun, Body: body})
	r.mu.Lock()
	r.ended = true
	r.mu.Unlock()
	r.appendMu.Unlock()
	if err != nil && !errors.Is(err, ErrLost) {
		r.shutdown()
		return errors.Join(err, r.settle())
	}
	// EndTimeout bounds the wait whatever ctx says: an earlier deadline of
	// ctx wins, a later one does not stretch it.
	ctx, cancel := context.WithTimeout(ctx, r.opts.EndTimeout)
	defer cancel()
	delivered := r.waitDelivered(ctx) == nil
	r.shutdown()
	lost := r.settle()
	if delivered && !r.opts.KeepSpool {
		if err := r.s.finish(); err != nil {
			r.logf("mlflow: compacting spool %s: %v", r.s.dir, err)
		}
	}
	var pending error
	if !delivered {
		pending = r.pendingError()
	}
	r.s.Close()
	return errors.Join(pending, lost, r.rejectErr())
}

// settle settles what the spool holds in memory once the background work
// stopped: written to disk if it can be, lost (and counted) otherwise. It
// returns the run's losses, and tells how the run got through a disk that
// did not take its spool.
func (r *RunLogger) settle() error {
	lost := r.s.settleMemory(r.failure())
	n, diskErr := r.s.memoryUse()
	if lost != nil {
		return lost
	}
	if n > 0 {
		r.logf("mlflow: the run's spool could not hold all of it (%v): %d requests were held in memory instead "+
			"(sent to %s from there, or written to the spool once it could take them); nothing was lost",
			diskErr, n, r.c.URI())
	}
	return nil
}

// failure returns the current delivery failure, or nil.
func (r *RunLogger) failure() error {
	r.stMu.Lock()
	defer r.stMu.Unlock()
	return r.failing
}

// rejectErr joins the requests the server rejected for good.
func (r *RunLogger) rejectErr() error {
	r.stMu.Lock()
	defer r.stMu.Unlock()
	return errors.Join(r.rejects...)
}

// Close stops the run's background work without ending the run: buffered
// values are written to the spool, and undelivered requests stay there for
// `narlab mlflow sync` (what the spool's disk did not take is lost, and
// counted in the error: see [RunLogger.End]).
func (r *RunLogger) Close() error {
	r.appendMu.Lock()
	err := r.drainLocked()
	r.mu.Lock()
	r.ended = true
	r.mu.Unlock()
	r.appendMu.Unlock()
	r.shutdown()
	lost := r.settle()
	return errors.Join(err, lost, r.s.Close())
}

func (r *RunLogger) shutdown() {
	r.stopOnce.Do(func() {
		close(r.stop)
		r.cancel()
	})
	r.wg.Wait()
}
