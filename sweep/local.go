package sweep

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// LocalResult is what [Sweep.RunLocal] did.
type LocalResult struct {
	Submission
	// Failed maps the key of each cell whose task failed to its error;
	// its output is in logs/KEY.out.
	Failed map[string]error
}

// RunLocal runs the cells that have no FINISHED run in MLflow on this
// machine, Spec.Local.Parallel at a time, each as `narlab sweep cell` (so
// the same exactly-once rules hold as on SLURM), and waits for them. Each
// task's output goes to logs/KEY.out. Cancelling ctx stops the running
// cells (their trainings end FAILED, resumable) and starts no more.
func (sw *Sweep) RunLocal(ctx context.Context) (_ *LocalResult, retErr error) {
	c, err := sw.client()
	if err != nil {
		return nil, err
	}
	done, err := sw.finishedCells(ctx, c)
	if err != nil {
		return nil, err
	}
	res := &LocalResult{Failed: map[string]error{}}
	for _, cell := range sw.Cells {
		if done[cell.Key] {
			res.Finished = append(res.Finished, cell)
		} else {
			res.Submitted = append(res.Submitted, cell)
		}
	}
	if len(res.Submitted) == 0 {
		// Every cell has finished: the parent has ended FINISHED with the
		// last of them (this ends a parent an older narlab left RUNNING).
		if err := sw.settle(ctx, c, true, ""); err != nil {
			return nil, fmt.Errorf("sweep: updating the parent run: %w", err)
		}
		return res, nil
	}
	if err := os.MkdirAll(sw.LogDir(), 0o755); err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	keys := make([]string, len(res.Submitted))
	for i, cell := range res.Submitted {
		keys[i] = cell.Key
	}
	if err := sw.recordSubmission(submission{JobID: "local-" + strconv.Itoa(os.Getpid()), Executor: "local",
		Submitted: time.Now().UTC(), Cells: keys}); err != nil {
		return nil, err
	}
	// The parent run is RUNNING while cells run; once the last one ends
	// (each cell's task settles it, and this process once more at the end,
	// counting the cells it did not start as KILLED) it ends as they did.
	if err := sw.group(c).Reopen(ctx, sw.ParentRunID); err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		if err := sw.settle(sctx, c, true, ""); err != nil && retErr == nil {
			retErr = fmt.Errorf("sweep: updating the parent run: %w", err)
		}
	}()
	sem := make(chan struct{}, sw.Spec.Local.Parallel)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, cell := range res.Submitted {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			mu.Lock()
			res.Failed[cell.Key] = fmt.Errorf("not started: %w", ctx.Err())
			mu.Unlock()
			continue
		}
		wg.Add(1)
		go func(cell Cell) {
			defer wg.Done()
			defer func() { <-sem }()
			if err := sw.runLocalCell(ctx, cell); err != nil {
				mu.Lock()
				res.Failed[cell.Key] = err
				mu.Unlock()
			}
		}(cell)
	}
	wg.Wait()
	return res, nil
}

func (sw *Sweep) runLocalCell(ctx context.Context, cell Cell) error {
	logPath := filepath.Join(sw.LogDir(), cell.Key+".out")
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	fmt.Fprintf(f, "=== narlab sweep: cell %s started at %s\n", cell.Key, time.Now().UTC().Format(time.RFC3339))
	cmd := exec.CommandContext(ctx, sw.Narlab, "sweep", "cell", "--dir", sw.Dir, "--index", strconv.Itoa(cell.Index))
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Env = sw.cellEnv()
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 2 * time.Minute
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%w (output: %s)", err, logPath)
	}
	return nil
}

// Summary is one line about a submission.
func (s *Submission) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d cells to run", len(s.Submitted))
	if len(s.Finished) > 0 {
		fmt.Fprintf(&b, ", %d already FINISHED", len(s.Finished))
	}
	if len(s.Queued) > 0 {
		fmt.Fprintf(&b, ", %d still queued or running", len(s.Queued))
	}
	return b.String()
}
