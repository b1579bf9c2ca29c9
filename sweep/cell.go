package sweep

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/narlab/narlab/internal/flock"
	"github.com/narlab/narlab/tracking"
	"github.com/narlab/narlab/tracking/mlflow"
)

// CellOutcome says what [RunCell] did.
type CellOutcome int

// The outcomes of [RunCell].
const (
	// Trained: the cell's training ran and its run is FINISHED.
	Trained CellOutcome = iota + 1
	// AlreadyFinished: MLflow already had a FINISHED run for the cell.
	AlreadyFinished
)

// ErrCellBusy is returned by [RunCell] when another attempt of the cell
// holds its lock (it is running now, on this or another node).
var ErrCellBusy = errors.New("another attempt of this cell is running")

// CellResult is the outcome of [RunCell].
type CellResult struct {
	Outcome CellOutcome
	// RunID is the cell's FINISHED run.
	RunID string
	// Superseded are the earlier, unfinished attempts that were deleted.
	Superseded []string
}

// RunCell runs cell index of the sweep in dir as a `narlab train` child
// process (standard output and error to stdout and stderr) and makes sure
// the cell ends with exactly one active run, FINISHED (see the package
// documentation). It returns an error if the training failed or was
// interrupted (its run then stays for the next attempt to supersede), or
// if another attempt of the cell is running ([ErrCellBusy]).
//
// Cancelling ctx sends SIGTERM to the training, which ends its run KILLED
// and keeps its last checkpoint for the next attempt.
func RunCell(ctx context.Context, dir string, index int, stdout, stderr io.Writer) (*CellResult, error) {
	sw, err := Load(dir)
	if err != nil {
		return nil, err
	}
	if index < 0 || index >= len(sw.Cells) {
		return nil, fmt.Errorf("sweep: cell index %d; sweep %s has cells 0-%d", index, sw.ID, len(sw.Cells)-1)
	}
	cell := sw.Cells[index]
	lock, err := lockCell(filepath.Join(sw.Dir, "cells", cell.Key+".lock"))
	if err != nil {
		return nil, fmt.Errorf("sweep: cell %s: %w", cell.Key, err)
	}
	defer lock.Close()

	c, err := sw.client()
	if err != nil {
		return nil, err
	}
	g := sw.group(c)
	// However the cell ends, its parent run follows (it ends with the last
	// cell); a cell that runs reopens it.
	defer func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		if err := sw.settle(sctx, c, false, cell.Key); err != nil {
			fmt.Fprintf(stderr, "narlab sweep: cell %s: updating the parent run: %v\n", cell.Key, err)
		}
	}()
	res, err := g.RunCell(ctx, cell.Key, stderr, func(ctx context.Context, earlier int) error {
		if err := g.Reopen(ctx, sw.ParentRunID); err != nil {
			return err
		}
		if err := sw.setAsideFinished(ctx, c, cell, stderr); err != nil {
			return err
		}
		tags := g.CellTags(cell.Key)
		keys := make([]string, 0, len(tags))
		for k := range tags {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		args := append([]string{"train"}, cell.Args...)
		args = append(args, "--dir", sw.CellDir(cell), "--experiment", sw.Spec.Experiment,
			"--tracking", sw.Tracking, "--parent-run", sw.ParentRunID)
		for _, k := range keys {
			args = append(args, "--tag", k+"="+tags[k])
		}
		fmt.Fprintf(stderr, "narlab sweep: cell %s (%d earlier unfinished attempts): %s %s\n",
			cell.Key, earlier, sw.Narlab, strings.Join(args, " "))
		cmd := exec.CommandContext(ctx, sw.Narlab, args...)
		cmd.Stdout, cmd.Stderr = stdout, stderr
		cmd.Env = sw.cellEnv()
		// The training dies with us (so the lock never outlives it) and
		// stops cleanly, resumable, when we are cancelled.
		// (Pdeathsig follows the thread that started the child: keep it.)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
		cmd.WaitDelay = time.Minute
		if err := cmd.Run(); err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) && ee.ExitCode() == tracking.ExitLost {
				// Passed on: the cell's task exits with the same status.
				return fmt.Errorf("narlab train: %w: some of its logged values were lost (%w; its output above counts them)", err, mlflow.ErrLost)
			}
			return fmt.Errorf("narlab train: %w", err)
		}
		return nil
	})
	if err != nil {
		return res, fmt.Errorf("sweep: %w", err)
	}
	return res, nil
}

// setAsideFinished handles a cell whose directory holds a finished
// training (result.json, written once its best checkpoint is tested) when
// the cell has no FINISHED run, which is when the cell trains: `narlab
// train` would report the saved results and log nothing, leaving the cell
// without a run. When that training's run is on the tracking server
// (deleted, as when a user deletes a cell's run to have it redone, or not
// FINISHED: its end was lost), the directory is renamed aside
// (cells/KEY.superseded-TIME) and the cell trains afresh. When the run is
// not there (it waits in the spool of the node that trained it, or its
// values were lost), the error says so and nothing is trained.
func (sw *Sweep) setAsideFinished(ctx context.Context, c *mlflow.Client, cell Cell, stderr io.Writer) error {
	dir := sw.CellDir(cell)
	path := filepath.Join(dir, "result.json")
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var saved struct {
		RunID string `json:"run_id"`
	}
	if err := json.Unmarshal(raw, &saved); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	var r *mlflow.Run
	if saved.RunID != "" {
		if r, err = c.GetRun(ctx, saved.RunID); err != nil && !mlflow.IsNotFound(err) {
			return err
		}
	}
	if r == nil {
		return fmt.Errorf("%s holds the cell's finished training, whose run %q is not on %s: it waits in the spool of the node "+
			"that trained it (`narlab mlflow sync` there delivers it), or its values were lost; delete the directory to train the cell again",
			dir, saved.RunID, c.URI())
	}
	state := string(r.Info.Status)
	if r.Info.LifecycleStage == "deleted" {
		state = "deleted"
	}
	aside := dir + ".superseded-" + time.Now().UTC().Format("20060102T150405")
	if err := os.Rename(dir, aside); err != nil {
		return fmt.Errorf("setting the finished training aside: %w", err)
	}
	fmt.Fprintf(stderr, "narlab sweep: cell %s: its finished training's run %s is %s on the server: training it again (the old directory is %s)\n",
		cell.Key, saved.RunID, state, aside)
	return nil
}

// supersede tags each stale attempt with the finished run's id and deletes
// it.
func supersede(ctx context.Context, c *mlflow.Client, stale []Attempt, finished string) ([]string, error) {
	var done []string
	for _, a := range stale {
		if a.Status == mlflow.StatusRunning || a.Status == mlflow.StatusScheduled {
			if err := c.EndRun(ctx, a.RunID, mlflow.StatusKilled); err != nil {
				return done, fmt.Errorf("sweep: ending the superseded run %s: %w", a.RunID, err)
			}
		}
		if err := c.SetTag(ctx, a.RunID, TagSupersededBy, finished); err != nil {
			return done, fmt.Errorf("sweep: tagging the superseded run %s: %w", a.RunID, err)
		}
		if err := c.DeleteRun(ctx, a.RunID); err != nil {
			return done, fmt.Errorf("sweep: deleting the superseded run %s: %w", a.RunID, err)
		}
		done = append(done, a.RunID)
	}
	return done, nil
}

// settle updates the parent run from the cells' runs ([Group.Settle]):
// each cell's attempts from before its latest submission (jobs.jsonl) do
// not count; final says no more cells run in this invocation. A cell runs
// while its lock is held by another process; done names a cell whose
// attempt has just ended here (its training returned, whatever its run
// says).
func (sw *Sweep) settle(ctx context.Context, c *mlflow.Client, final bool, done string) error {
	subs, err := sw.submissions()
	if err != nil {
		return err
	}
	since := map[string]int64{}
	for _, s := range subs {
		for _, k := range s.Cells {
			since[k] = max(since[k], s.Submitted.UnixMilli())
		}
	}
	keys := make([]string, len(sw.Cells))
	for i, cell := range sw.Cells {
		keys[i] = cell.Key
	}
	alive := func(key string) bool {
		if key == done {
			return false
		}
		lock, err := lockCell(filepath.Join(sw.Dir, "cells", key+".lock"))
		if err != nil {
			return true // held: an attempt runs (or the lock cannot be read: assume so)
		}
		lock.Close()
		return false
	}
	_, err = sw.group(c).Settle(ctx, sw.ParentRunID, keys, since, final, alive)
	return err
}

// attemptName names this task: SLURM's array job and task, or the process.
func attemptName() string {
	if j, t := os.Getenv("SLURM_ARRAY_JOB_ID"), os.Getenv("SLURM_ARRAY_TASK_ID"); j != "" && t != "" {
		return j + "_" + t
	}
	if j := os.Getenv("SLURM_JOB_ID"); j != "" {
		return j
	}
	return "local-" + strconv.Itoa(os.Getpid())
}

// lockCell takes the cell's exclusive lock (flock; on a shared file system
// it needs working locks, as NFSv4 and Lustre provide), without waiting.
func lockCell(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if ok, err := flock.TryLock(f); !ok {
		f.Close()
		if err == nil {
			return nil, ErrCellBusy
		}
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	return f, nil
}
