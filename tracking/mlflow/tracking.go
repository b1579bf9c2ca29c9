package mlflow

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// GetExperiment returns the experiment with the given id.
func (c *Client) GetExperiment(ctx context.Context, id string) (*Experiment, error) {
	var out struct {
		Experiment Experiment `json:"experiment"`
	}
	if err := c.get(ctx, "mlflow/experiments/get", url.Values{"experiment_id": {id}}, &out); err != nil {
		return nil, err
	}
	return &out.Experiment, nil
}

// GetExperimentByName returns the experiment with the given name; the error
// satisfies [IsNotFound] when there is none.
func (c *Client) GetExperimentByName(ctx context.Context, name string) (*Experiment, error) {
	var out struct {
		Experiment Experiment `json:"experiment"`
	}
	if err := c.get(ctx, "mlflow/experiments/get-by-name", url.Values{"experiment_name": {name}}, &out); err != nil {
		return nil, err
	}
	return &out.Experiment, nil
}

// CreateExperiment creates an experiment and returns its id. The error
// satisfies [IsAlreadyExists] when the name is taken (also by a deleted
// experiment).
func (c *Client) CreateExperiment(ctx context.Context, name string, tags ...Tag) (string, error) {
	if err := ValidateExperimentName(name); err != nil {
		return "", err
	}
	in := struct {
		Name string `json:"name"`
		Tags []Tag  `json:"tags,omitempty"`
	}{name, tags}
	var out struct {
		ID string `json:"experiment_id"`
	}
	// Not retried after ambiguous failures: a retry of a create that the
	// server applied answers RESOURCE_ALREADY_EXISTS, which
	// GetOrCreateExperiment handles.
	if err := c.post(ctx, "mlflow/experiments/create", in, &out, false); err != nil {
		return "", err
	}
	return out.ID, nil
}

// GetOrCreateExperiment returns the active experiment called name, creating
// it if there is none. It is safe to call concurrently from several
// processes. A deleted experiment with that name is an error (restore it
// in the UI or with `mlflow experiments restore`, or pick another name).
func (c *Client) GetOrCreateExperiment(ctx context.Context, name string) (*Experiment, error) {
	if err := ValidateExperimentName(name); err != nil {
		return nil, err
	}
	for try := 0; try < 3; try++ {
		e, err := c.GetExperimentByName(ctx, name)
		if err == nil {
			if e.LifecycleStage == "deleted" {
				return nil, fmt.Errorf("mlflow: experiment %q (id %s) is deleted: restore it (MLflow UI, or `mlflow experiments restore --experiment-id %s`) or use another name", name, e.ID, e.ID)
			}
			return e, nil
		}
		if !IsNotFound(err) {
			return nil, fmt.Errorf("mlflow: looking up experiment %q: %w", name, err)
		}
		id, err := c.CreateExperiment(ctx, name)
		if err == nil {
			return c.GetExperiment(ctx, id)
		}
		if !IsAlreadyExists(err) && !isAmbiguous(err) {
			return nil, fmt.Errorf("mlflow: creating experiment %q: %w", name, err)
		}
		// Created concurrently (or by our own ambiguous attempt): look again.
	}
	return nil, fmt.Errorf("mlflow: experiment %q: neither found nor created after 3 tries", name)
}

// SearchOptions are the common options of search requests.
type SearchOptions struct {
	// Filter is MLflow's search syntax, e.g. `params.algo = 'bfs' and
	// metrics."val/score" > 0.9` or `tags."mlflow.parentRunId" = '…'`.
	Filter string
	// OrderBy lists sort keys, e.g. "metrics.`val/score` DESC".
	OrderBy []string
	// ViewType defaults to ACTIVE_ONLY.
	ViewType ViewType
	// MaxResults bounds the number of results; 0 means all of them.
	MaxResults int
}

// SearchExperiments returns the experiments that match opts.
func (c *Client) SearchExperiments(ctx context.Context, opts SearchOptions) ([]Experiment, error) {
	var all []Experiment
	token := ""
	for {
		in := map[string]any{"max_results": pageSize(opts.MaxResults, len(all), 1000)}
		if opts.Filter != "" {
			in["filter"] = opts.Filter
		}
		if len(opts.OrderBy) > 0 {
			in["order_by"] = opts.OrderBy
		}
		if opts.ViewType != "" {
			in["view_type"] = opts.ViewType
		}
		if token != "" {
			in["page_token"] = token
		}
		var out struct {
			Experiments []Experiment `json:"experiments"`
			Next        string       `json:"next_page_token"`
		}
		if err := c.post(ctx, "mlflow/experiments/search", in, &out, true); err != nil {
			return nil, err
		}
		all = append(all, out.Experiments...)
		if out.Next == "" || opts.MaxResults > 0 && len(all) >= opts.MaxResults {
			return all, nil
		}
		token = out.Next
	}
}

func pageSize(max, have, page int) int {
	if max > 0 && max-have < page {
		return max - have
	}
	return page
}

// CreateRunOptions describe a new run.
type CreateRunOptions struct {
	ExperimentID string
	RunName      string    // empty: the server picks a name
	StartTime    time.Time // zero: now
	Tags         []Tag
	// UserID is the run's user (RunInfo.UserID); empty: the value of the
	// mlflow.user tag, as Python's client sends it.
	UserID string
}

// CreateRun creates a run in status RUNNING. It is not retried after
// ambiguous failures (the error then wraps [ErrAmbiguous]), since a retry
// could create a second run; [RunLogger] resolves that case with a
// spool-id tag.
func (c *Client) CreateRun(ctx context.Context, opts CreateRunOptions) (*Run, error) {
	body, err := createRunBody(opts)
	if err != nil {
		return nil, err
	}
	return c.createRunRaw(ctx, body)
}

func createRunBody(opts CreateRunOptions) ([]byte, error) {
	if opts.ExperimentID == "" {
		return nil, &ValidationError{What: "run", Reason: "no experiment id; expected the id of an existing experiment (see GetOrCreateExperiment)"}
	}
	for _, t := range opts.Tags {
		if err := ValidateTag(t.Key, t.Value); err != nil {
			return nil, err
		}
	}
	start := opts.StartTime
	if start.IsZero() {
		start = time.Now()
	}
	user := opts.UserID
	for _, t := range opts.Tags {
		if t.Key == TagUser && user == "" {
			user = t.Value
		}
	}
	in := struct {
		ExperimentID string `json:"experiment_id"`
		RunName      string `json:"run_name,omitempty"`
		StartTime    int64  `json:"start_time"`
		UserID       string `json:"user_id,omitempty"`
		Tags         []Tag  `json:"tags,omitempty"`
	}{opts.ExperimentID, opts.RunName, Millis(start), user, opts.Tags}
	return jsonMarshal(in)
}

func (c *Client) createRunRaw(ctx context.Context, body []byte) (*Run, error) {
	var out struct {
		Run Run `json:"run"`
	}
	if err := c.call(ctx, request{method: http.MethodPost, endpoint: "mlflow/runs/create", body: body}, &out); err != nil {
		return nil, err
	}
	return &out.Run, nil
}

// GetRun returns a run with its info, latest metrics, params and tags.
func (c *Client) GetRun(ctx context.Context, runID string) (*Run, error) {
	var out struct {
		Run Run `json:"run"`
	}
	if err := c.get(ctx, "mlflow/runs/get", url.Values{"run_id": {runID}}, &out); err != nil {
		return nil, err
	}
	return &out.Run, nil
}

// UpdateRun sets a run's status and end time (zero: left unchanged).
func (c *Client) UpdateRun(ctx context.Context, runID string, status RunStatus, end time.Time) (*RunInfo, error) {
	body, err := updateRunBody(status, end)
	if err != nil {
		return nil, err
	}
	var out struct {
		RunInfo RunInfo `json:"run_info"`
	}
	err = c.call(ctx, request{method: http.MethodPost, endpoint: "mlflow/runs/update", body: withRunID(body, runID), retryAmbiguous: true}, &out)
	if err != nil {
		return nil, err
	}
	return &out.RunInfo, nil
}

func updateRunBody(status RunStatus, end time.Time) ([]byte, error) {
	if status != "" && !status.Valid() {
		return nil, &ValidationError{What: fmt.Sprintf("run status %q", status), Reason: "expected RUNNING, SCHEDULED, FINISHED, FAILED or KILLED"}
	}
	in := struct {
		Status  RunStatus `json:"status,omitempty"`
		EndTime int64     `json:"end_time,omitempty"`
	}{Status: status}
	if !end.IsZero() {
		in.EndTime = Millis(end)
	}
	return jsonMarshal(in)
}

// EndRun ends a run now with status FINISHED, FAILED or KILLED.
func (c *Client) EndRun(ctx context.Context, runID string, status RunStatus) error {
	if !status.Terminal() {
		return &ValidationError{What: fmt.Sprintf("end status %q", status), Reason: "expected FINISHED, FAILED or KILLED"}
	}
	_, err := c.UpdateRun(ctx, runID, status, time.Now())
	return err
}

// DeleteRun marks a run deleted (MLflow's soft delete).
func (c *Client) DeleteRun(ctx context.Context, runID string) error {
	return c.post(ctx, "mlflow/runs/delete", map[string]string{"run_id": runID}, nil, true)
}

// SearchRuns returns the runs of the given experiments that match opts,
// following result pages.
func (c *Client) SearchRuns(ctx context.Context, experimentIDs []string, opts SearchOptions) ([]Run, error) {
	var all []Run
	token := ""
	for {
		in := map[string]any{"experiment_ids": experimentIDs, "max_results": pageSize(opts.MaxResults, len(all), 1000)}
		if opts.Filter != "" {
			in["filter"] = opts.Filter
		}
		if len(opts.OrderBy) > 0 {
			in["order_by"] = opts.OrderBy
		}
		if opts.ViewType != "" {
			in["run_view_type"] = opts.ViewType
		}
		if token != "" {
			in["page_token"] = token
		}
		var out struct {
			Runs []Run  `json:"runs"`
			Next string `json:"next_page_token"`
		}
		if err := c.post(ctx, "mlflow/runs/search", in, &out, true); err != nil {
			return nil, err
		}
		all = append(all, out.Runs...)
		if out.Next == "" || opts.MaxResults > 0 && len(all) >= opts.MaxResults {
			return all, nil
		}
		token = out.Next
	}
}

// GetMetricHistory returns every point of a run's metric, following result
// pages.
func (c *Client) GetMetricHistory(ctx context.Context, runID, key string) ([]Metric, error) {
	var all []Metric
	token := ""
	for {
		q := url.Values{"run_id": {runID}, "metric_key": {key}, "max_results": {strconv.Itoa(25000)}}
		if token != "" {
			q.Set("page_token", token)
		}
		var out struct {
			Metrics []Metric `json:"metrics"`
			Next    string   `json:"next_page_token"`
		}
		if err := c.get(ctx, "mlflow/metrics/get-history", q, &out); err != nil {
			return nil, err
		}
		all = append(all, out.Metrics...)
		if out.Next == "" || len(out.Metrics) == 0 {
			return all, nil
		}
		token = out.Next
	}
}

// LogBatch logs metrics, params and tags to a run, split into as many
// log-batch requests as the server's limits require (at most 1000 metrics,
// 100 params, 100 tags and 1000 entities per request, under 1 MB). Every
// value is validated first; nothing is sent if one is invalid. Requests
// with metrics are not retried after ambiguous failures (the error wraps
// [ErrAmbiguous]): MLflow's file store would store the points twice.
func (c *Client) LogBatch(ctx context.Context, runID string, b Batch) error {
	if err := b.Validate(); err != nil {
		return err
	}
	for _, chunk := range b.Chunks() {
		r := request{method: http.MethodPost, endpoint: "mlflow/runs/log-batch",
			body: withRunID(chunk.encode(), runID), retryAmbiguous: len(chunk.Metrics) == 0}
		if err := c.call(ctx, r, nil); err != nil {
			return err
		}
	}
	return nil
}

// LogMetric logs one metric point with the current time.
func (c *Client) LogMetric(ctx context.Context, runID, key string, step int64, value float64) error {
	return c.LogBatch(ctx, runID, Batch{Metrics: []Metric{{Key: key, Value: value, Step: step, Timestamp: Millis(time.Now())}}})
}

// LogParam logs one parameter.
func (c *Client) LogParam(ctx context.Context, runID, key, value string) error {
	return c.LogBatch(ctx, runID, Batch{Params: []Param{{key, value}}})
}

// SetTag sets one run tag.
func (c *Client) SetTag(ctx context.Context, runID, key, value string) error {
	return c.LogBatch(ctx, runID, Batch{Tags: []Tag{{key, value}}})
}

// DeleteTag removes a run tag.
func (c *Client) DeleteTag(ctx context.Context, runID, key string) error {
	return c.post(ctx, "mlflow/runs/delete-tag", map[string]string{"run_id": runID, "key": key}, nil, true)
}

func isAmbiguous(err error) bool { return errors.Is(err, ErrAmbiguous) }
