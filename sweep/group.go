package sweep

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/narlab/narlab/tracking"
	"github.com/narlab/narlab/tracking/mlflow"
)

// Group is the MLflow side of a multi-run command: one parent run and a
// child run per cell, in one experiment, found again by their tags. A sweep
// is a group (its id is the sweep's id); so is a Figure 3 grid
// (experiments/clrs30's RunFigure3), whose cells train in its own process. Every
// run of a group carries [TagSweep] = ID; the parent [TagRole] "parent",
// each child [TagRole] "cell", [TagCell] its cell's key and the
// mlflow.parentRunId of the parent, so the UI shows the cells nested under
// the parent.
type Group struct {
	Client       *mlflow.Client
	ExperimentID string
	ID           string
}

// ParentOptions describe a group's parent run when [Group.EnsureParent]
// creates it.
type ParentOptions struct {
	Name   string         // the run's name
	Source string         // mlflow.source.name, e.g. "narlab sweep"
	Note   string         // the run page's Markdown description
	Params []mlflow.Param // logged once, when the run is created
}

// EnsureParent returns the group's parent run: known, if it is a run that
// still exists (not deleted); else the oldest run tagged as the group's
// parent (an earlier invocation created it, perhaps without recording it);
// else a new run, created RUNNING with o's name, description and params.
// So running a group's command again reuses its parent run.
func (g Group) EnsureParent(ctx context.Context, known string, o ParentOptions) (string, error) {
	if known != "" {
		r, err := g.Client.GetRun(ctx, known)
		if err == nil && r.Info.LifecycleStage != "deleted" {
			return known, nil
		}
		if err != nil && !mlflow.IsNotFound(err) {
			return "", fmt.Errorf("parent run %s: %w", known, err)
		}
	}
	runs, err := g.Client.SearchRuns(ctx, []string{g.ExperimentID}, mlflow.SearchOptions{
		Filter: fmt.Sprintf(`tags."%s" = '%s' and tags."%s" = 'parent'`, TagSweep, g.ID, TagRole)})
	if err != nil {
		return "", fmt.Errorf("looking for the parent run of %s: %w", g.ID, err)
	}
	if len(runs) > 0 {
		sort.Slice(runs, func(i, j int) bool { return runs[i].Info.StartTime < runs[j].Info.StartTime })
		return runs[0].Info.RunID, nil
	}
	tags := []mlflow.Tag{{Key: TagSweep, Value: g.ID}, {Key: TagRole, Value: "parent"}, {Key: mlflow.TagNote, Value: o.Note}}
	for _, t := range tracking.SystemTags(o.Source) {
		if t.Key == mlflow.TagSourceType && t.Value == mlflow.SourceLocal {
			t.Value = mlflow.SourceJob // a grid of runs, not one program's run
		}
		tags = append(tags, t)
	}
	r, err := g.Client.CreateRun(ctx, mlflow.CreateRunOptions{ExperimentID: g.ExperimentID, RunName: o.Name, Tags: tags})
	if err != nil {
		return "", fmt.Errorf("creating the parent run of %s: %w", g.ID, err)
	}
	if len(o.Params) > 0 {
		if err := g.Client.LogBatch(ctx, r.Info.RunID, mlflow.Batch{Params: o.Params}); err != nil {
			return "", fmt.Errorf("logging the params of the parent run of %s: %w", g.ID, err)
		}
	}
	return r.Info.RunID, nil
}

// CellTags are the tags of a cell's run (besides its parent).
func (g Group) CellTags(key string) map[string]string {
	return map[string]string{TagSweep: g.ID, TagRole: "cell", TagCell: key, TagAttempt: attemptName()}
}

// Attempt is one run of a cell in MLflow.
type Attempt struct {
	RunID     string
	Status    mlflow.RunStatus
	StartTime int64
	Run       mlflow.Run
}

// Attempts returns the active runs of the group's cells by cell key,
// oldest first.
func (g Group) Attempts(ctx context.Context) (map[string][]Attempt, error) {
	runs, err := g.Client.SearchRuns(ctx, []string{g.ExperimentID}, mlflow.SearchOptions{
		Filter: fmt.Sprintf(`tags."%s" = '%s' and tags."%s" = 'cell'`, TagSweep, g.ID, TagRole)})
	if err != nil {
		return nil, fmt.Errorf("searching the runs of %s: %w", g.ID, err)
	}
	out := map[string][]Attempt{}
	for _, r := range runs {
		key, _ := r.Data.Tag(TagCell)
		out[key] = append(out[key], Attempt{RunID: r.Info.RunID, Status: r.Info.Status, StartTime: int64(r.Info.StartTime), Run: r})
	}
	for _, as := range out {
		sort.Slice(as, func(i, j int) bool { return as[i].StartTime < as[j].StartTime })
	}
	return out, nil
}

// CellAttempts returns the active runs of one cell, oldest first.
func (g Group) CellAttempts(ctx context.Context, key string) ([]Attempt, error) {
	runs, err := g.Client.SearchRuns(ctx, []string{g.ExperimentID}, mlflow.SearchOptions{
		Filter: fmt.Sprintf(`tags."%s" = '%s' and tags."%s" = '%s'`, TagSweep, g.ID, TagCell, key)})
	if err != nil {
		return nil, fmt.Errorf("searching the runs of cell %s: %w", key, err)
	}
	var out []Attempt
	for _, r := range runs {
		out = append(out, Attempt{RunID: r.Info.RunID, Status: r.Info.Status, StartTime: int64(r.Info.StartTime), Run: r})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].StartTime < out[j].StartTime })
	return out, nil
}

// Finished returns a cell's FINISHED run among its attempts, or nil.
func Finished(attempts []Attempt) *Attempt {
	for i, a := range attempts {
		if a.Status == mlflow.StatusFinished {
			return &attempts[i]
		}
	}
	return nil
}

// RunCell makes sure cell key ends with exactly one active run, FINISHED:
// when it has one already, the earlier unfinished attempts are superseded
// and nothing runs ([AlreadyFinished]); otherwise the abandoned attempts
// still RUNNING are ended KILLED, train runs the cell (it must log one run
// with the cell's tags, [Group.CellTags], and end it FINISHED), and once it
// has, the earlier attempts are superseded ([Trained]). The caller makes
// sure no other attempt of the cell runs meanwhile (a lock). Notices go to
// stderr.
func (g Group) RunCell(ctx context.Context, key string, stderr io.Writer, train func(ctx context.Context, earlier int) error) (*CellResult, error) {
	before, err := g.CellAttempts(ctx, key)
	if err != nil {
		return nil, err
	}
	var stale []Attempt
	for _, a := range before {
		if a.Status != mlflow.StatusFinished {
			stale = append(stale, a)
		}
	}
	if fin := Finished(before); fin != nil {
		// Finished earlier (a resubmission raced with the task, or the
		// task that finished it was stopped before it cleaned up).
		res := &CellResult{Outcome: AlreadyFinished, RunID: fin.RunID}
		if res.Superseded, err = supersede(ctx, g.Client, stale, res.RunID); err != nil {
			return res, err
		}
		fmt.Fprintf(stderr, "narlab: cell %s already FINISHED (run %s); nothing to do\n", key, res.RunID)
		return res, nil
	}
	// No process writes to the stale runs any more (the caller holds the
	// cell): end the ones left RUNNING by a killed task, so none looks alive.
	for _, a := range stale {
		if a.Status == mlflow.StatusRunning || a.Status == mlflow.StatusScheduled {
			if err := g.Client.EndRun(ctx, a.RunID, mlflow.StatusKilled); err != nil {
				return nil, fmt.Errorf("cell %s: ending the abandoned run %s: %w", key, a.RunID, err)
			}
		}
	}
	if err := train(ctx, len(stale)); err != nil {
		return nil, fmt.Errorf("cell %s: %w", key, err)
	}
	after, err := g.CellAttempts(ctx, key)
	if err != nil {
		return nil, err
	}
	old := map[string]bool{}
	for _, a := range before {
		old[a.RunID] = true
	}
	var mine []Attempt
	for _, a := range after {
		if !old[a.RunID] && a.Status == mlflow.StatusFinished {
			mine = append(mine, a)
		}
	}
	switch len(mine) {
	case 0:
		return nil, fmt.Errorf("cell %s: the training succeeded but its run is not FINISHED on %s (still in this node's spool? run narlab mlflow sync)", key, g.Client.URI())
	case 1:
	default:
		return nil, fmt.Errorf("cell %s: %d new FINISHED runs; expected one", key, len(mine))
	}
	res := &CellResult{Outcome: Trained, RunID: mine[0].RunID}
	res.Superseded, err = supersede(ctx, g.Client, stale, res.RunID)
	return res, err
}

// Artifact is a file of a parent run's results.
type Artifact struct {
	Path string
	Data []byte
	// Table marks an MLflow table ({"columns": [...], "data": [[...]]},
	// a .json path), listed in the run's mlflow.loggedArtifacts tag so the
	// UI renders it as a table.
	Table bool
}

// Summary is a single value of a parent run's results, logged as a metric
// at step 0 (the MLflow UI draws a metric whose last step is 0 as a bar, a
// result, not as a one-point curve; a later value at step 0 replaces it).
type Summary struct {
	Key   string
	Value float64
}

// LogResults records a group's results in its parent run: the artifacts
// (uploaded; the tables listed as tables), the summary metrics, and, when
// end is not empty, the run's final status (FINISHED, FAILED or KILLED;
// a run that already has it is left alone). Logging again replaces what an
// earlier call logged.
func (g Group) LogResults(ctx context.Context, parentID string, files []Artifact, summary []Summary, end mlflow.RunStatus) error {
	parent, err := g.Client.GetRun(ctx, parentID)
	if err != nil {
		return fmt.Errorf("parent run %s: %w", parentID, err)
	}
	type listed struct {
		Path string `json:"path"`
		Type string `json:"type"`
	}
	var tables []listed
	for _, f := range files {
		if err := g.Client.UploadArtifact(ctx, parent.Info.ArtifactURI, f.Path, f.Data); err != nil {
			return fmt.Errorf("uploading %s to the parent run: %w", f.Path, err)
		}
		if f.Table {
			tables = append(tables, listed{f.Path, "table"})
		}
	}
	var b mlflow.Batch
	now := time.Now().UnixMilli()
	for _, s := range summary {
		b.Metrics = append(b.Metrics, mlflow.Metric{Key: s.Key, Value: s.Value, Timestamp: now, Step: 0})
	}
	if len(tables) > 0 {
		list, err := json.Marshal(tables)
		if err != nil {
			return err
		}
		b.Tags = append(b.Tags, mlflow.Tag{Key: mlflow.TagLoggedArtifacts, Value: string(list)})
	}
	if len(b.Metrics) > 0 || len(b.Tags) > 0 {
		if err := g.Client.LogBatch(ctx, parentID, b); err != nil {
			return fmt.Errorf("logging to the parent run: %w", err)
		}
	}
	if end != "" && parent.Info.Status != end {
		if err := g.Client.EndRun(ctx, parentID, end); err != nil {
			return fmt.Errorf("ending the parent run: %w", err)
		}
	}
	return nil
}

// Settle makes the parent run's status follow its cells' runs, as
// MLflow's client reads a parent: it ends when its last cell ends —
// FINISHED when every cell has a FINISHED run, else FAILED when a cell's
// latest attempt failed, else KILLED — with the end time of that last
// cell; it is RUNNING while a cell runs (reopened if it had ended). keys
// are every cell of the group. A cell with no run yet (queued, or not
// started) keeps the parent as it is, unless final says that no more
// cells will run in this invocation: it then counts as KILLED (an
// interrupted local sweep) and the parent ends now. since, when it has a
// cell's key, is when the cell was last submitted (ms since the epoch):
// its attempts that started earlier belong to an earlier submission, and
// until one starts the cell counts as not run yet. alive, when not nil,
// says whether a cell is being run now: a cell whose latest attempt is
// RUNNING but that nothing runs (its process was killed outright) is
// abandoned: its run is ended KILLED, and it counts as KILLED. Settle
// returns the parent's status.
func (g Group) Settle(ctx context.Context, parentID string, keys []string, since map[string]int64, final bool, alive func(key string) bool) (mlflow.RunStatus, error) {
	parent, err := g.Client.GetRun(ctx, parentID)
	if err != nil {
		return "", fmt.Errorf("parent run %s: %w", parentID, err)
	}
	attempts, err := g.Attempts(ctx)
	if err != nil {
		return "", err
	}
	var finished, failed, killed, running, missing int
	var end int64
	for _, k := range keys {
		as := attempts[k]
		if fin := Finished(as); fin != nil {
			finished++
			end = max(end, int64(fin.Run.Info.EndTime))
			continue
		}
		var current []Attempt
		for _, a := range as {
			if a.StartTime >= since[k] {
				current = append(current, a)
			}
		}
		as = current
		if len(as) == 0 {
			missing++
			continue
		}
		last := as[len(as)-1]
		switch {
		case last.Status == mlflow.StatusFailed:
			failed++
		case last.Status == mlflow.StatusKilled:
			killed++
		case alive != nil && !alive(k):
			if err := g.Client.EndRun(ctx, last.RunID, mlflow.StatusKilled); err != nil {
				return "", fmt.Errorf("cell %s: ending the abandoned run %s: %w", k, last.RunID, err)
			}
			killed++
			end = max(end, time.Now().UnixMilli())
		default:
			running++
		}
		end = max(end, int64(last.Run.Info.EndTime))
	}
	status := parent.Info.Status
	endsNow := false
	switch {
	case running > 0:
		status = mlflow.StatusRunning
	case missing > 0 && !final:
		return status, nil // cells still to come: the parent stays as it is
	case missing > 0:
		killed += missing
		end = max(end, time.Now().UnixMilli()) // ends now: the cells not started end with it
		endsNow = true
		fallthrough
	default:
		switch {
		case failed > 0:
			status = mlflow.StatusFailed
		case killed > 0:
			status = mlflow.StatusKilled
		default:
			status = mlflow.StatusFinished
		}
	}
	if status == mlflow.StatusRunning {
		return status, g.Reopen(ctx, parentID)
	}
	if end < int64(parent.Info.StartTime) {
		end = time.Now().UnixMilli()
	}
	if parent.Info.Status == status && parent.Info.EndTime > 0 && (endsNow || int64(parent.Info.EndTime) >= end) {
		return status, nil // ended so already
	}
	if _, err := g.Client.UpdateRun(ctx, parentID, status, time.UnixMilli(end)); err != nil {
		return "", fmt.Errorf("ending the parent run %s: %w", parentID, err)
	}
	return status, nil
}

// Reopen marks the parent run RUNNING again (a group's command run again
// to finish the cells an earlier invocation left). Like
// mlflow.start_run(run_id=…), it keeps the end time of the earlier end
// until the run ends again.
func (g Group) Reopen(ctx context.Context, parentID string) error {
	r, err := g.Client.GetRun(ctx, parentID)
	if err != nil {
		return fmt.Errorf("parent run %s: %w", parentID, err)
	}
	if r.Info.Status == mlflow.StatusRunning {
		return nil
	}
	if _, err := g.Client.UpdateRun(ctx, parentID, mlflow.StatusRunning, time.Time{}); err != nil {
		return fmt.Errorf("reopening the parent run %s: %w", parentID, err)
	}
	return nil
}
