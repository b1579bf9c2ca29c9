package sweep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/narlab/narlab/experiments/mlflow"
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
// Cancelling ctx sends SIGTERM to the training, which ends its run FAILED
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
	before, err := sw.cellAttempts(ctx, c, cell.Key)
	if err != nil {
		return nil, err
	}
	var finished, stale []Attempt
	for _, a := range before {
		if a.Status == mlflow.StatusFinished {
			finished = append(finished, a)
		} else {
			stale = append(stale, a)
		}
	}
	if len(finished) > 0 {
		// Finished earlier (a resubmission raced with the task, or the
		// task that finished it was stopped before it cleaned up).
		res := &CellResult{Outcome: AlreadyFinished, RunID: finished[0].RunID}
		if res.Superseded, err = supersede(ctx, c, stale, res.RunID); err != nil {
			return res, err
		}
		fmt.Fprintf(stderr, "narlab sweep: cell %s already FINISHED (run %s); nothing to do\n", cell.Key, res.RunID)
		return res, nil
	}
	// No process writes to the stale runs any more (we hold the lock): end
	// the ones left RUNNING by a killed task, so none looks alive.
	for _, a := range stale {
		if a.Status == mlflow.StatusRunning || a.Status == mlflow.StatusScheduled {
			if err := c.EndRun(ctx, a.RunID, mlflow.StatusKilled); err != nil {
				return nil, fmt.Errorf("sweep: cell %s: ending the abandoned run %s: %w", cell.Key, a.RunID, err)
			}
		}
	}

	args := append([]string{"train"}, cell.Args...)
	args = append(args, "--dir", sw.CellDir(cell), "--experiment", sw.Spec.Experiment,
		"--tracking", sw.Tracking, "--parent-run", sw.ParentRunID,
		"--tag", TagSweep+"="+sw.ID, "--tag", TagRole+"=cell", "--tag", TagCell+"="+cell.Key,
		"--tag", TagAttempt+"="+attemptName())
	fmt.Fprintf(stderr, "narlab sweep: cell %s (%d earlier unfinished attempts): %s %s\n",
		cell.Key, len(stale), sw.Narlab, strings.Join(args, " "))
	cmd := exec.CommandContext(ctx, sw.Narlab, args...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.Env = os.Environ()
	if sw.Root != "" {
		cmd.Env = append(cmd.Env, "NARLAB_ROOT="+sw.Root)
	}
	// The training dies with us (so the lock never outlives it) and
	// stops cleanly, resumable, when we are cancelled.
	// (Pdeathsig follows the thread that started the child: keep it.)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = time.Minute
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("sweep: cell %s: narlab train: %w", cell.Key, err)
	}

	after, err := sw.cellAttempts(ctx, c, cell.Key)
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
		return nil, fmt.Errorf("sweep: cell %s: narlab train succeeded but its run is not FINISHED on %s (still in this node's spool? run narlab mlflow sync)", cell.Key, sw.Tracking)
	case 1:
	default:
		return nil, fmt.Errorf("sweep: cell %s: %d new FINISHED runs; expected one", cell.Key, len(mine))
	}
	res := &CellResult{Outcome: Trained, RunID: mine[0].RunID}
	res.Superseded, err = supersede(ctx, c, stale, res.RunID)
	return res, err
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
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrCellBusy
		}
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	return f, nil
}
