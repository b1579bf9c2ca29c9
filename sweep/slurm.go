package sweep

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/narlab/narlab/internal/fsutil"
)

// JobName is the SLURM job name of the sweep's arrays (squeue --name).
func (sw *Sweep) JobName() string { return "narlab-" + sw.ID }

// Script is the job-array script that runs the given cells: one array task
// per cell (the array index is the cell's index), at most Throttle at once.
func (sw *Sweep) Script(cells []Cell) (string, error) {
	if len(cells) == 0 {
		return "", fmt.Errorf("sweep: a job array needs at least one cell")
	}
	idx := make([]int, len(cells))
	for i, c := range cells {
		idx[i] = c.Index
	}
	sort.Ints(idx)
	array := arrayRange(idx)
	cfg := sw.Spec.Slurm
	if cfg.Throttle > 0 {
		array += "%" + strconv.Itoa(cfg.Throttle)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/bash\n")
	fmt.Fprintf(&b, "# narlab sweep %s: %d of its %d cells, one array task each.\n", sw.ID, len(cells), len(sw.Cells))
	fmt.Fprintf(&b, "# Written by `narlab sweep run`; submit the sweep again with `narlab sweep run --dir %s`.\n", sw.Dir)
	fmt.Fprintf(&b, "#SBATCH --job-name=%s\n", sw.JobName())
	fmt.Fprintf(&b, "#SBATCH --array=%s\n", array)
	fmt.Fprintf(&b, "#SBATCH --output=%s\n", filepath.Join(sw.LogDir(), "%x-%A_%a.out"))
	if cfg.Partition != "" {
		fmt.Fprintf(&b, "#SBATCH --partition=%s\n", cfg.Partition)
	}
	if cfg.Time != "" {
		fmt.Fprintf(&b, "#SBATCH --time=%s\n", cfg.Time)
	}
	if cfg.Mem != "" {
		fmt.Fprintf(&b, "#SBATCH --mem=%s\n", cfg.Mem)
	}
	fmt.Fprintf(&b, "#SBATCH --cpus-per-task=%d\n", max(cfg.CPUs, 1))
	if cfg.GPUs > 0 {
		fmt.Fprintf(&b, "#SBATCH --gres=gpu:%d\n", cfg.GPUs)
	}
	for _, l := range cfg.Sbatch {
		fmt.Fprintf(&b, "#SBATCH %s\n", l)
	}
	b.WriteString("#\n# Array index: cell\n")
	for _, c := range cells {
		fmt.Fprintf(&b, "#   %d: %s\n", c.Index, c.Key)
	}
	b.WriteString("set -euo pipefail\n")
	fmt.Fprintf(&b, "export MLFLOW_TRACKING_URI=%s\n", shellQuote(sw.Tracking))
	if sw.Root != "" {
		fmt.Fprintf(&b, "export NARLAB_ROOT=%s\n", shellQuote(sw.Root))
	}
	b.WriteString("# The cell's `narlab train` (printed at the top of this task's output), run so\n")
	b.WriteString("# that the cell ends FINISHED exactly once in MLflow (see docs/sweep.md).\n")
	fmt.Fprintf(&b, "exec %s sweep cell --dir %s --index \"$SLURM_ARRAY_TASK_ID\"\n", shellQuote(sw.Narlab), shellQuote(sw.Dir))
	return b.String(), nil
}

// arrayRange writes sorted indices as SLURM's array list: "0-3,5,7-8".
func arrayRange(idx []int) string {
	var parts []string
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && idx[j+1] == idx[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", idx[i], idx[j]))
		} else {
			parts = append(parts, strconv.Itoa(idx[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// QueuedTask is an array task of the sweep that SLURM still holds.
type QueuedTask struct {
	JobID string // the array task's job id, e.g. "123_4"
	Index int    // the array index (the cell's index)
	State string // PENDING, RUNNING, COMPLETING, …
}

// Queue lists the sweep's array tasks in `squeue` (pending, running,
// completing) by cell index. sacct is not needed, so it works where job
// accounting is off.
func (sw *Sweep) Queue(ctx context.Context) (map[int]QueuedTask, error) {
	cmd := exec.CommandContext(ctx, "squeue", "--array", "--noheader", "--name="+sw.JobName(), "--format=%i|%K|%T")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("sweep: squeue: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	tasks := map[int]QueuedTask{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line == "" {
			continue
		}
		f := strings.Split(line, "|")
		if len(f) != 3 {
			return nil, fmt.Errorf("sweep: unexpected squeue line %q", line)
		}
		i, err := strconv.Atoi(f[1])
		if err != nil {
			return nil, fmt.Errorf("sweep: squeue line %q: array index %q", line, f[1])
		}
		tasks[i] = QueuedTask{JobID: f[0], Index: i, State: f[2]}
	}
	return tasks, nil
}

// Submission is what a submission did.
type Submission struct {
	JobID     string // the job array's id ("" when nothing was submitted, or for local runs)
	Submitted []Cell // the cells submitted
	Finished  []Cell // skipped: FINISHED in MLflow
	Queued    []Cell // skipped: SLURM still holds a task for them
	Script    string // the script's path
}

// SubmitSlurm submits the cells that are neither FINISHED in MLflow nor
// still queued or running in SLURM as one job array, through a script
// written atomically to the sweep directory.
func (sw *Sweep) SubmitSlurm(ctx context.Context) (*Submission, error) {
	sub := &Submission{Script: filepath.Join(sw.Dir, scriptFile)}
	if _, err := exec.LookPath("sbatch"); err != nil {
		return nil, fmt.Errorf("sweep: the slurm executor needs sbatch and squeue on PATH (run on the cluster's login node): %w", err)
	}
	c, err := sw.client()
	if err != nil {
		return nil, err
	}
	done, err := sw.finishedCells(ctx, c)
	if err != nil {
		return nil, err
	}
	queued, err := sw.Queue(ctx)
	if err != nil {
		return nil, err
	}
	for _, cell := range sw.Cells {
		switch _, q := queued[cell.Index]; {
		case done[cell.Key]:
			sub.Finished = append(sub.Finished, cell)
		case q:
			sub.Queued = append(sub.Queued, cell)
		default:
			sub.Submitted = append(sub.Submitted, cell)
		}
	}
	if len(sub.Submitted) == 0 {
		// Nothing to run: the parent ends once the queued cells have (this
		// also ends a parent an older narlab left RUNNING).
		if err := sw.settle(ctx, c, false, ""); err != nil {
			return nil, fmt.Errorf("sweep: updating the parent run: %w", err)
		}
		return sub, nil
	}
	script, err := sw.Script(sub.Submitted)
	if err != nil {
		return nil, err
	}
	if err := fsutil.CheckWritableDir(sw.LogDir()); err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	if err := fsutil.WriteFile(sub.Script, []byte(script), 0o755); err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	// The parent run is RUNNING while the cells are queued or run (it ends
	// with the last of them); the submission's time is taken before any
	// task can start.
	if err := sw.group(c).Reopen(ctx, sw.ParentRunID); err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	submitted := time.Now().UTC()
	cmd := exec.CommandContext(ctx, "sbatch", "--parsable", sub.Script)
	cmd.Dir = sw.Dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("sweep: sbatch %s: %w: %s", sub.Script, err, strings.TrimSpace(stderr.String()))
	}
	id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";")
	if _, err := strconv.Atoi(id); err != nil {
		return nil, fmt.Errorf("sweep: sbatch printed %q; expected a job id", strings.TrimSpace(string(out)))
	}
	sub.JobID = id
	keys := make([]string, len(sub.Submitted))
	for i, c := range sub.Submitted {
		keys[i] = c.Key
	}
	if err := sw.recordSubmission(submission{JobID: id, Executor: "slurm", Submitted: submitted, Cells: keys}); err != nil {
		return sub, fmt.Errorf("sweep: job %s was submitted but not recorded: %w", id, err)
	}
	return sub, nil
}

// errNoSqueue tells Status that SLURM is not reachable from here.
var errNoSqueue = errors.New("squeue is not on PATH")
