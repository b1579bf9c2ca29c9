package sweep

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/narlab/narlab/internal/fsutil"
	"github.com/narlab/narlab/tracking/mlflow"
)

// The tags of a sweep's runs.
const (
	TagSweep = "narlab.sweep.id"   // the sweep's id, on the parent run and every cell's runs
	TagRole  = "narlab.sweep.role" // "parent" or "cell"
	TagCell  = "narlab.sweep.cell" // the cell's key
	// TagAttempt names the task that ran an attempt: the SLURM job and
	// array task ("123_4"), or "local-PID".
	TagAttempt = "narlab.sweep.attempt"
	// TagSupersededBy is set on an unfinished attempt once a later attempt
	// of its cell finished, to that run's id (the attempt is then deleted).
	TagSupersededBy = "narlab.sweep.superseded_by"
)

// Files of a sweep directory.
const (
	stateFile  = "sweep.json"
	scriptFile = "job.sbatch"
	jobsFile   = "jobs.jsonl"
)

// Sweep is a prepared sweep: the contents of its directory's sweep.json.
type Sweep struct {
	ID    string `json:"id"`
	Spec  Spec   `json:"spec"`
	Cells []Cell `json:"cells"`
	// Tracking is the MLflow server every cell logs to.
	Tracking     string `json:"tracking"`
	ExperimentID string `json:"experiment_id"`
	ParentRunID  string `json:"parent_run_id"`
	// Narlab is the narlab executable the cells run (an absolute path the
	// compute nodes can reach); Root is the project root they run with.
	Narlab  string    `json:"narlab"`
	Root    string    `json:"narlab_root,omitempty"`
	Created time.Time `json:"created"`

	// Dir is the sweep directory (absolute).
	Dir string `json:"-"`
	// MovedFrom is the tracking server recorded in sweep.json when
	// [Prepare] found it not answering and the sweep's parent run on
	// another server, MovedVia (MovedVia names it: MLFLOW_TRACKING_URI, or
	// narlab's local server, which came back on another port); both empty
	// otherwise.
	MovedFrom, MovedVia string `json:"-"`
}

// Options are the environment of [Prepare].
type Options struct {
	// Tracking is the MLflow server's URI; empty: the one recorded in the
	// sweep directory, else MLFLOW_TRACKING_URI.
	Tracking string
	// Narlab is the narlab executable the cells run (required for a new
	// sweep; later submissions keep the recorded one unless set).
	Narlab string
	// Root is the project root the cells run with (NARLAB_ROOT).
	Root string
	// Check parses one cell's `narlab train` flags and checks the
	// training they describe (see [Spec.Validate]). A sweep does not know
	// what a cell trains (it sits below the benchmark protocols), so its
	// caller gives it: narlab's is its train parser followed by
	// clrs30.Config.ValidateElsewhere, the one validation of a training
	// that `narlab train` and clrs30.Run use too.
	Check func(args []string) error
}

// CellDir is the cell's run directory (its checkpoints).
func (sw *Sweep) CellDir(c Cell) string { return filepath.Join(sw.Dir, "cells", c.Key) }

// LogDir holds the tasks' output.
func (sw *Sweep) LogDir() string { return filepath.Join(sw.Dir, "logs") }

// Load reads the sweep in dir.
func Load(dir string) (*Sweep, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	data, err := os.ReadFile(filepath.Join(abs, stateFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("sweep: %s holds no sweep (no %s); start one with narlab sweep run --spec FILE --dir %s", dir, stateFile, dir)
	}
	if err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	var sw Sweep
	if err := json.Unmarshal(data, &sw); err != nil {
		return nil, fmt.Errorf("sweep: %s: %w", filepath.Join(abs, stateFile), err)
	}
	sw.Dir = abs
	if sw.ID == "" || len(sw.Cells) == 0 || sw.Tracking == "" || sw.ParentRunID == "" {
		return nil, fmt.Errorf("sweep: %s is incomplete (id, cells, tracking server and parent run are required)", filepath.Join(abs, stateFile))
	}
	return &sw, nil
}

// Prepare makes dir the sweep of spec, or, with a nil spec, loads the sweep
// already there. It checks everything before it changes anything: the
// spec (and each cell's train flags), that dir holds no other sweep, that
// the tracking server answers. Then it finds or creates the experiment and
// the parent run and writes sweep.json. Preparing the same spec again
// (a resubmission) finds the same parent run.
func Prepare(ctx context.Context, dir string, spec *Spec, o Options) (*Sweep, error) {
	if id := os.Getenv(mlflow.EnvRunID); id != "" {
		return nil, fmt.Errorf("sweep: %s=%s asks to resume one run, but a sweep makes a parent run and a run per cell; unset %s", mlflow.EnvRunID, id, mlflow.EnvRunID)
	}
	sw, err := Plan(dir, spec, o)
	if err != nil {
		return nil, err
	}
	if sw.Tracking == "" {
		return nil, fmt.Errorf("sweep: no tracking server: every cell logs to one MLflow server all nodes can reach; pass --tracking URI or set %s (see narlab mlflow serve)", mlflow.EnvTrackingURI)
	}
	// Checked, not created: a sweep whose server does not answer leaves no
	// empty directory behind (sweep.json's writer creates it).
	if err := fsutil.CheckCreatableDir(sw.Dir); err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	if o.Tracking == "" {
		sw.followServer(ctx)
	}
	c, err := sw.client()
	if err != nil {
		return nil, err
	}
	exp, err := c.GetOrCreateExperiment(ctx, sw.Spec.Experiment)
	if err != nil {
		return nil, fmt.Errorf("sweep: tracking server %s: %w", sw.Tracking, err)
	}
	if sw.ExperimentID != "" && sw.ExperimentID != exp.ID {
		// Another server, or the experiment was recreated: find the parent
		// run again there.
		sw.ParentRunID = ""
	}
	sw.ExperimentID = exp.ID
	if err := sw.ensureParent(ctx, c); err != nil {
		return nil, err
	}
	if err := sw.save(); err != nil {
		return nil, err
	}
	return sw, nil
}

// Plan is [Prepare] without its effects: it checks the spec and the
// directory and returns the sweep as Prepare would start it, without
// contacting the tracking server or writing anything (the parent run is
// not known yet unless the directory holds the sweep already).
func Plan(dir string, spec *Spec, o Options) (*Sweep, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	if strings.ContainsAny(abs, " \t\n%'\"\\$`") {
		return nil, fmt.Errorf("sweep: directory %q: no spaces, quotes, '%%', '$' or backslashes (it goes into #SBATCH lines)", abs)
	}
	var old *Sweep
	if _, err := os.Stat(filepath.Join(abs, stateFile)); err == nil {
		if old, err = Load(abs); err != nil {
			return nil, err
		}
	}
	var sw Sweep
	switch {
	case spec == nil && old == nil:
		return nil, fmt.Errorf("sweep: %s holds no sweep; give the grid (--spec FILE or --algos, --processors, --seeds)", dir)
	case spec == nil:
		sw = *old
		if err := sw.Spec.Validate(o.Check); err != nil {
			return nil, err
		}
	default:
		s := *spec
		if err := s.Validate(o.Check); err != nil {
			return nil, err
		}
		sw = Sweep{ID: s.ID(), Spec: s, Cells: s.Cells(), Dir: abs, Created: time.Now().UTC()}
		if old != nil {
			if old.ID != sw.ID && sameGrid(old, &sw) {
				// The same cells listed in another order (say, --algos all
				// against a sorted list): keep the recorded order, which
				// the cells' array indices follow.
				sw.ID, sw.Cells = old.ID, old.Cells
				sw.Spec.Algorithms, sw.Spec.Processors, sw.Spec.Seeds, sw.Spec.Vary = old.Spec.Algorithms, old.Spec.Processors, old.Spec.Seeds, old.Spec.Vary
			}
			if old.ID != sw.ID {
				return nil, fmt.Errorf("sweep: %s holds sweep %s, a different grid from this one (%s); use another --dir, or leave out the grid to resubmit it", dir, old.ID, sw.ID)
			}
			sw.Tracking, sw.ExperimentID, sw.ParentRunID = old.Tracking, old.ExperimentID, old.ParentRunID
			sw.Narlab, sw.Root, sw.Created = old.Narlab, old.Root, old.Created
		}
	}
	sw.Dir = abs
	if o.Tracking != "" {
		sw.Tracking = o.Tracking
	}
	if sw.Tracking == "" {
		sw.Tracking = os.Getenv(mlflow.EnvTrackingURI)
	}
	if o.Narlab != "" {
		sw.Narlab = o.Narlab
	}
	if o.Root != "" {
		sw.Root = o.Root
	}
	if sw.Narlab == "" {
		return nil, fmt.Errorf("sweep: no narlab executable for the cells")
	}
	if st, err := os.Stat(sw.Narlab); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
		return nil, fmt.Errorf("sweep: the cells' narlab executable %s is not an executable file", sw.Narlab)
	}
	return &sw, nil
}

// followServer moves a resubmitted sweep whose recorded server does not
// accept connections to a server that holds the sweep's parent run, in
// the sweep's experiment (the same tracking store served at another
// address): the server of MLFLOW_TRACKING_URI when it is set, else, when
// the recorded server was on this machine's loopback, narlab's local
// server (started if need be: a local sweep's server comes back on
// another port after a restart). Otherwise it changes nothing, and a
// server that does not answer is reported as before.
func (sw *Sweep) followServer(ctx context.Context) {
	if sw.ParentRunID == "" {
		return
	}
	u, err := url.Parse(sw.Tracking)
	if err != nil || u.Host == "" || answers(u) {
		return
	}
	if env := os.Getenv(mlflow.EnvTrackingURI); env != "" {
		if env != sw.Tracking && sw.holdsParent(ctx, env) {
			sw.MovedFrom, sw.MovedVia, sw.Tracking = sw.Tracking, mlflow.EnvTrackingURI, env
		}
		return
	}
	if ip := net.ParseIP(u.Hostname()); u.Hostname() != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return
	}
	srv, _, err := mlflow.EnsureServer(ctx, mlflow.ServerConfig{})
	if err != nil || srv.URL == sw.Tracking || !sw.holdsParent(ctx, srv.URL) {
		return
	}
	sw.MovedFrom, sw.MovedVia, sw.Tracking = sw.Tracking, "narlab's local server", srv.URL
}

// answers says whether u's host accepts a TCP connection within 3 s.
func answers(u *url.URL) bool {
	host := u.Host
	if u.Port() == "" {
		port := "80"
		if u.Scheme == "https" {
			port = "443"
		}
		host = net.JoinHostPort(u.Hostname(), port)
	}
	conn, err := net.DialTimeout("tcp", host, 3*time.Second)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

// holdsParent says whether the server at uri has the sweep's parent run,
// in the sweep's experiment.
func (sw *Sweep) holdsParent(ctx context.Context, uri string) bool {
	c, err := mlflow.NewClient(uri, mlflow.EnvOptions()...)
	if err != nil {
		return false
	}
	probe, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	run, err := c.GetRun(probe, sw.ParentRunID)
	return err == nil && (sw.ExperimentID == "" || run.Info.ExperimentID == sw.ExperimentID)
}

// sameGrid says whether two sweeps have one experiment and the same cells
// (keys and train flags), whatever their order.
func sameGrid(a, b *Sweep) bool {
	if a.Spec.Name != b.Spec.Name || a.Spec.Experiment != b.Spec.Experiment || len(a.Cells) != len(b.Cells) {
		return false
	}
	args := make(map[string]string, len(a.Cells))
	for _, c := range a.Cells {
		args[c.Key] = fmt.Sprintf("%q", c.Args)
	}
	for _, c := range b.Cells {
		if got, ok := args[c.Key]; !ok || got != fmt.Sprintf("%q", c.Args) {
			return false
		}
		delete(args, c.Key)
	}
	return len(args) == 0
}

func (sw *Sweep) save() error {
	data, err := json.MarshalIndent(sw, "", "  ")
	if err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	if err := fsutil.WriteFile(filepath.Join(sw.Dir, stateFile), append(data, '\n'), fsutil.DataMode); err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	return nil
}

func (sw *Sweep) client() (*mlflow.Client, error) {
	c, err := mlflow.NewClient(sw.Tracking, mlflow.EnvOptions()...)
	if err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	return c, nil
}

// cellEnv is the environment of a cell's process: this one's, less
// MLFLOW_RUN_ID (each cell makes its own run), with NARLAB_ROOT when the
// sweep has a project root.
func (sw *Sweep) cellEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, mlflow.EnvRunID+"=") {
			env = append(env, kv)
		}
	}
	if sw.Root != "" {
		env = append(env, "NARLAB_ROOT="+sw.Root)
	}
	return env
}

// group is the sweep's parent run and cells in MLflow.
func (sw *Sweep) group(c *mlflow.Client) Group {
	return Group{Client: c, ExperimentID: sw.ExperimentID, ID: sw.ID}
}

// ensureParent finds the sweep's parent run (recorded, or by its tags, in
// case an earlier submission created it but did not get to record it) or
// creates it.
func (sw *Sweep) ensureParent(ctx context.Context, c *mlflow.Client) error {
	note := fmt.Sprintf("narlab sweep **%s**: %d cells (%s × %s × seeds %v). Directory: `%s`.",
		sw.ID, len(sw.Cells), strings.Join(sw.Spec.Algorithms, ", "), strings.Join(sw.Spec.Processors, ", "), sw.Spec.Seeds, sw.Dir)
	id, err := sw.group(c).EnsureParent(ctx, sw.ParentRunID, ParentOptions{Name: sw.Spec.Name, Source: "narlab sweep", Note: note,
		Params: []mlflow.Param{
			{Key: "sweep_id", Value: sw.ID}, {Key: "cells", Value: fmt.Sprint(len(sw.Cells))},
			{Key: "algorithms", Value: strings.Join(sw.Spec.Algorithms, ",")},
			{Key: "processors", Value: strings.Join(sw.Spec.Processors, ",")},
			{Key: "seeds", Value: strings.Trim(fmt.Sprint(sw.Spec.Seeds), "[]")},
		}})
	if err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	sw.ParentRunID = id
	return nil
}

// attempts returns the active runs of the sweep's cells by cell key,
// oldest first.
func (sw *Sweep) attempts(ctx context.Context, c *mlflow.Client) (map[string][]Attempt, error) {
	out, err := sw.group(c).Attempts(ctx)
	if err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	return out, nil
}

// finishedCells returns the keys of the cells with a FINISHED active run.
// Earlier attempts of those cells still active and ended (FAILED or KILLED;
// left when a task stopped between its training's end and its clean-up)
// are superseded on the way, as the cell's task would have done.
func (sw *Sweep) finishedCells(ctx context.Context, c *mlflow.Client) (map[string]bool, error) {
	byKey, err := sw.attempts(ctx, c)
	if err != nil {
		return nil, err
	}
	done := map[string]bool{}
	for k, as := range byKey {
		fin := ""
		var stale []Attempt
		for _, a := range as {
			switch {
			case a.Status == mlflow.StatusFinished && fin == "":
				fin = a.RunID
			case a.Status == mlflow.StatusFailed || a.Status == mlflow.StatusKilled:
				stale = append(stale, a)
			}
		}
		if fin == "" {
			continue
		}
		done[k] = true
		if _, err := supersede(ctx, c, stale, fin); err != nil {
			return nil, fmt.Errorf("sweep: cell %s: %w", k, err)
		}
	}
	return done, nil
}

// submission is one line of jobs.jsonl.
type submission struct {
	JobID     string    `json:"job_id"`
	Executor  string    `json:"executor"`
	Submitted time.Time `json:"submitted"`
	Cells     []string  `json:"cells"`
}

// submissions reads jobs.jsonl (none yet: empty).
func (sw *Sweep) submissions() ([]submission, error) {
	path := filepath.Join(sw.Dir, jobsFile)
	var subs []submission
	if f, err := os.Open(path); err == nil {
		err = fsutil.ReadJSONL(f, func(_ int, v submission) error { subs = append(subs, v); return nil })
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("sweep: %s: %w", path, err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	return subs, nil
}

func (sw *Sweep) recordSubmission(s submission) error {
	path := filepath.Join(sw.Dir, jobsFile)
	subs, err := sw.submissions()
	if err != nil {
		return err
	}
	subs = append(subs, s)
	return fsutil.Write(path, fsutil.DataMode, func(w io.Writer) error {
		jw := fsutil.NewJSONLWriter(w)
		for _, s := range subs {
			if err := jw.Write(s); err != nil {
				return err
			}
		}
		return jw.Flush()
	})
}
