package tracking

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/narlab/narlab/internal/project"
	"github.com/narlab/narlab/tracking/mlflow"
)

// Option configures [Start].
type Option func(*options)

type options struct {
	runID       string
	runName     string
	tags        map[string]string
	parent      string
	note        string
	trackingURI string
	source      string
	logf        func(string, ...any)
}

// RunName names the run in the UI (default: chosen by the server).
func RunName(name string) Option { return func(o *options) { o.runName = name } }

// Resume logs to the existing run runID instead of creating one, as
// mlflow.start_run(run_id=…) does: the run is marked RUNNING again and
// keeps its experiment, name, parent, source, user and description; the
// params are logged to it (a param it has with another value is an
// error), and the other tags are set. Without this option, [Start] resumes
// $MLFLOW_RUN_ID when it is set (and unsets it, so that only the first run
// of the process resumes it).
func Resume(runID string) Option { return func(o *options) { o.runID = runID } }

// Tags sets tags when the run is created.
func Tags(tags map[string]string) Option {
	return func(o *options) {
		if o.tags == nil {
			o.tags = map[string]string{}
		}
		for k, v := range tags {
			o.tags[k] = v
		}
	}
}

// Parent makes the run a nested run of runID (a sweep's child).
func Parent(runID string) Option { return func(o *options) { o.parent = runID } }

// Note sets the run's Markdown description (shown on the run page).
func Note(markdown string) Option { return func(o *options) { o.note = markdown } }

// TrackingURI logs to the server at uri instead of MLFLOW_TRACKING_URI or
// the embedded local server.
func TrackingURI(uri string) Option { return func(o *options) { o.trackingURI = uri } }

// Source names the program in the run's mlflow.source.name tag (default:
// the executable's name and its subcommand, e.g. "narlab train" or
// "narlab dsr run").
func Source(name string) Option { return func(o *options) { o.source = name } }

// Logf receives the run's notices (server unreachable, back, spool
// replayed); default: standard error.
func Logf(f func(format string, args ...any)) Option { return func(o *options) { o.logf = f } }

// Run is a live MLflow run. Its methods are safe for concurrent use.
type Run struct {
	logger *mlflow.RunLogger
	sys    *systemMetrics // sysmetrics.go
}

// Start opens a run in the named experiment (created if missing; empty:
// $MLFLOW_EXPERIMENT_NAME) and logs params. The server is the TrackingURI
// option, else MLFLOW_TRACKING_URI, else the embedded local server
// (started or reused; its UI address is printed on standard error the
// first time in a process). If the server cannot be reached the run goes
// on offline and its data waits in the spool.
//
// The run gets MLflow's system tags ([SystemTags]: user, source — NOTEBOOK
// in a GoNB cell —, git commit), its user id, and a description (the Note
// option, or a default one that says so). With the Resume option, or
// $MLFLOW_RUN_ID set, it resumes that run instead of creating one.
func Start(ctx context.Context, experiment string, params map[string]string, opts ...Option) (*Run, error) {
	if _, err := TrackingTimeout(); err != nil {
		return nil, err
	}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	attach := o.runID
	if attach == "" {
		attach = takeRunID()
	}
	if strings.TrimSpace(experiment) == "" {
		experiment = DefaultExperiment("")
	}
	if strings.TrimSpace(experiment) == "" && attach == "" { // a resumed run keeps its own
		return nil, fmt.Errorf("tracking: empty experiment name (give one, or set %s)", mlflow.EnvExperimentName)
	}
	if attach != "" && o.parent != "" {
		return nil, fmt.Errorf("tracking: run %s (%s) is to be resumed, but the run was asked to be nested under %s; "+
			"a resumed run keeps its own place: unset %s or do not nest the run", attach, mlflow.EnvRunID, o.parent, mlflow.EnvRunID)
	}
	client, tracking, err := clientFor(ctx, o.trackingURI)
	if err != nil {
		return nil, err
	}
	spool, err := newSpoolDir()
	if err != nil {
		return nil, err
	}
	tags := SystemTags(o.source)
	note := o.note
	if note == "" {
		note = defaultNote(sourceName(o.source), experiment, params)
	}
	tags = append(tags, mlflow.Tag{Key: mlflow.TagNote, Value: note})
	for k, v := range o.tags {
		tags = append(tags, mlflow.Tag{Key: k, Value: v})
	}
	wait, err := TrackingTimeout()
	if err != nil {
		return nil, err
	}
	ro := mlflow.RunOptions{Experiment: experiment, RunName: o.runName, Tags: tags, ParentRunID: o.parent, AttachRunID: attach,
		SpoolDir: spool, Tracking: tracking, Logf: o.logf, CreateTimeout: min(wait, 15*time.Second), EndTimeout: wait}
	lg, err := client.StartRun(ctx, ro)
	if err != nil {
		if attach != "" {
			return nil, fmt.Errorf("tracking: resuming run %s (%s): %w", attach, mlflow.EnvRunID, err)
		}
		return nil, fmt.Errorf("tracking: starting a run in %q: %w", experiment, err)
	}
	r := &Run{logger: lg, sys: startSystemMetrics(lg.LogMetric)}
	liveRuns.add(r)
	if len(params) > 0 {
		if err := r.LogParams(params); err != nil {
			r.sys.Stop()
			lg.End(ctx, mlflow.StatusFailed)
			return nil, err
		}
	}
	return r, nil
}

var announce sync.Once

// CheckTrackingURI checks, without contacting anything, the tracking server
// a run would log to: uri, else MLFLOW_TRACKING_URI (empty: narlab's local
// server, nothing to check). Commands call it before any work, so a
// malformed address fails at once instead of after the work it would log.
func CheckTrackingURI(uri string) error {
	what := "--tracking"
	if uri == "" {
		uri, what = os.Getenv(mlflow.EnvTrackingURI), "$"+mlflow.EnvTrackingURI
	}
	if uri == "" {
		return nil
	}
	if _, err := mlflow.NewClient(uri, mlflow.EnvOptions()...); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// clientFor picks the tracking server: uri, MLFLOW_TRACKING_URI, or the
// embedded local server. tracking is what the spool records.
func clientFor(ctx context.Context, uri string) (*mlflow.Client, string, error) {
	if uri == "" {
		uri = os.Getenv(mlflow.EnvTrackingURI)
	}
	if uri != "" {
		c, err := mlflow.NewClient(uri, mlflow.EnvOptions()...)
		if err != nil {
			return nil, "", fmt.Errorf("tracking: %w", err)
		}
		return c, "", nil
	}
	srv, reused, err := mlflow.EnsureServer(ctx, mlflow.ServerConfig{})
	if err != nil {
		return nil, "", fmt.Errorf("tracking: no MLFLOW_TRACKING_URI and the local MLflow server did not start: %w", err)
	}
	announce.Do(func() {
		verb := "started"
		if reused {
			verb = "using"
		}
		fmt.Fprintf(announceWriter(), "narlab: %s the local MLflow server; UI at %s\n", verb, srv.URL)
	})
	c, err := srv.Client()
	if err != nil {
		return nil, "", fmt.Errorf("tracking: %w", err)
	}
	return c, mlflow.LocalTracking, nil
}

// SpoolRoot is the directory holding the spools of runs: DATA/mlflow/spool.
func SpoolRoot() (string, error) {
	d, err := mlflow.DefaultServerDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "spool"), nil
}

func newSpoolDir() (string, error) {
	root, err := SpoolRoot()
	if err != nil {
		return "", fmt.Errorf("tracking: %w", err)
	}
	var b [4]byte
	rand.Read(b[:])
	return filepath.Join(root, time.Now().UTC().Format("20060102T150405.000")+"-"+hex.EncodeToString(b[:])), nil
}

func sourceName(s string) string {
	if s != "" {
		return s
	}
	name := filepath.Base(os.Args[0])
	// The (sub)command: up to two leading arguments that are not flags,
	// e.g. "narlab train" or "narlab dsr run".
	for _, a := range os.Args[1:min(len(os.Args), 3)] {
		if strings.HasPrefix(a, "-") || strings.ContainsAny(a, "/=.") {
			break
		}
		name += " " + a
	}
	return name
}

// gitCommit is the HEAD commit of the project's checkout, or "".
func gitCommit() string {
	root, err := project.Root()
	if err != nil {
		return ""
	}
	out, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// Logger is what the benchmark packages (experiments/clrstext,
// experiments/dsrbench, …) record a run's results through: *Run implements
// it, so a notebook or command passes its run, and a test can pass an
// in-memory recorder.
type Logger interface {
	LogMetric(key string, step int64, value float64) error
	LogArtifact(artifactPath string, data []byte) error
	LogTable(artifactPath string, columns []string, rows [][]any) error
}

var _ Logger = (*Run)(nil)

// ID returns the server's run id ("" while the run has not reached the
// server yet).
func (r *Run) ID() string { return r.logger.RunID() }

// URL returns the run's page in the MLflow UI.
func (r *Run) URL() string { return r.logger.URL() }

// Logger returns the underlying MLflow run logger.
func (r *Run) Logger() *mlflow.RunLogger { return r.logger }

// LogMetric records value at step under key (e.g. "train/loss"). It only
// appends to a buffer; non-finite values are sent in MLflow's encoding.
func (r *Run) LogMetric(key string, step int64, value float64) error {
	return r.logger.LogMetric(key, step, value)
}

// LogMetricAt is LogMetric with the point's time given: a point that a
// logged model shares (ModelOptions.Metrics) is logged with the same
// time by both.
func (r *Run) LogMetricAt(key string, step int64, value float64, t time.Time) error {
	return r.logger.LogMetricAt(key, step, value, t)
}

// LogParams records parameters (each key once per run).
func (r *Run) LogParams(p map[string]string) error { return r.logger.LogParams(p) }

// SetTag sets a tag.
func (r *Run) SetTag(key, value string) error { return r.logger.SetTag(key, value) }

// LogArtifact uploads data as the artifact artifactPath (e.g.
// "plots/val_curve.png").
func (r *Run) LogArtifact(artifactPath string, data []byte) error {
	return r.logger.LogArtifactBytes(artifactPath, data)
}

// LogArtifactFile uploads a local file as the artifact artifactPath.
func (r *Run) LogArtifactFile(localPath, artifactPath string) error {
	return r.logger.LogArtifactFile(localPath, artifactPath)
}

// LogTable uploads a table in the JSON layout the MLflow UI renders as a
// table (artifactPath should end in .json).
func (r *Run) LogTable(artifactPath string, columns []string, rows [][]any) error {
	return r.logger.LogTable(artifactPath, columns, rows)
}

// Flush waits until everything logged so far reached the server (or ctx
// ends; the data then stays in the spool).
func (r *Run) Flush(ctx context.Context) error { return r.logger.Flush(ctx) }

// End ends the run with status (FINISHED, FAILED or KILLED) after sending
// what is buffered; what the server does not take stays in the spool for
// `narlab mlflow sync`.
func (r *Run) End(ctx context.Context, status mlflow.RunStatus) error {
	defer liveRuns.remove(r)
	r.sys.Stop()
	return r.logger.End(ctx, status)
}

// liveRuns are the runs of this process that have not ended, so that a
// signal can end them all (see [EndLiveRuns]).
var liveRuns = runSet{m: map[*Run]bool{}}

type runSet struct {
	mu sync.Mutex
	m  map[*Run]bool
}

func (s *runSet) add(r *Run)    { s.mu.Lock(); s.m[r] = true; s.mu.Unlock() }
func (s *runSet) remove(r *Run) { s.mu.Lock(); delete(s.m, r); s.mu.Unlock() }

// EndLiveRuns ends every run of this process that has not ended with
// status (KILLED after a signal), waiting at most timeout for the server;
// what it does not take stays in the runs' spools. It returns the errors of
// the runs that could not be ended completely.
func EndLiveRuns(status mlflow.RunStatus, timeout time.Duration) error {
	liveRuns.mu.Lock()
	runs := make([]*Run, 0, len(liveRuns.m))
	for r := range liveRuns.m {
		runs = append(runs, r)
	}
	liveRuns.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	errs := make([]error, len(runs))
	var wg sync.WaitGroup
	for i, r := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := r.End(ctx, status); err != nil && !errors.Is(err, mlflow.ErrEnded) {
				errs[i] = err
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// EndWith ends the run FINISHED when err is nil, KILLED when err says the
// work was interrupted (a signal, see [InterruptContext], or a cancelled
// context), and otherwise FAILED; the error is recorded in the tag
// narlab.error. After an interruption it waits at most
// [InterruptEndTimeout] for the server.
func (r *Run) EndWith(ctx context.Context, err error) error {
	if err == nil {
		return r.End(ctx, mlflow.StatusFinished)
	}
	status := mlflow.StatusFailed
	if errors.Is(err, ErrInterrupted) || errors.Is(err, context.Canceled) {
		status = mlflow.StatusKilled
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), InterruptEndTimeout)
		defer cancel()
	}
	msg := err.Error()
	if len(msg) > 4000 {
		cut := 4000
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + "…"
	}
	r.logger.SetTag("narlab.error", msg)
	return r.End(ctx, status)
}

// ErrInterrupted is the cause of a context ended by SIGINT or SIGTERM (see
// [InterruptContext]).
var ErrInterrupted = errors.New("interrupted by a signal")

// ExitLost is the exit status of a narlab command whose error wraps
// [mlflow.ErrLost]: some of its logged values neither its run's spool (a
// full disk) nor the tracking server took, and its message counts them
// per metric key. A command that runs another narlab process (a sweep's
// cell, its training) passes the status on.
const ExitLost = 3

// InterruptEndTimeout bounds how long a run interrupted by a signal waits
// for the tracking server before the process exits (what is not delivered
// stays in the spool for `narlab mlflow sync`).
const InterruptEndTimeout = 5 * time.Second

// InterruptContext returns a context that is cancelled, with a cause
// wrapping [ErrInterrupted] and naming the signal, when the process gets
// SIGINT or SIGTERM. The first signal only cancels the context, so the
// command can end its run as KILLED; a second one ends the process at once.
// stop releases the signals.
func InterruptContext(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			signal.Stop(ch) // a second signal gets the default action
			fmt.Fprintf(os.Stderr, "narlab: %v: stopping; an MLflow run ends as KILLED (a second signal exits at once)\n", sig)
			cancel(fmt.Errorf("%w (%v)", ErrInterrupted, sig))
		case <-done:
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			signal.Stop(ch)
			close(done)
			cancel(context.Canceled)
		})
	}
}

// EnvTrackingTimeout names the environment variable that bounds how long a
// command waits for an unreachable or slow tracking server: creating a run
// (at most 15 s of it) and ending one. A Go duration ("30s", "2m") or a
// number of seconds; default 60 s.
const EnvTrackingTimeout = "NARLAB_MLFLOW_TIMEOUT"

// TrackingTimeout returns the wait that [EnvTrackingTimeout] sets.
func TrackingTimeout() (time.Duration, error) {
	v := strings.TrimSpace(os.Getenv(EnvTrackingTimeout))
	if v == "" {
		return time.Minute, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		var secs float64
		if _, serr := fmt.Sscanf(v, "%g", &secs); serr == nil && fmt.Sprint(secs) == v {
			d, err = time.Duration(secs*float64(time.Second)), nil
		}
	}
	if err != nil || d < time.Second || d > 24*time.Hour {
		return 0, fmt.Errorf("tracking: %s=%q: expected a duration from 1s to 24h, such as 30s or 2m (or a number of seconds)", EnvTrackingTimeout, v)
	}
	return d, nil
}

// Client returns a client of the tracking server that [Start] would use:
// uri, else MLFLOW_TRACKING_URI, else the embedded local server (started
// if needed).
func Client(ctx context.Context, uri string) (*mlflow.Client, error) {
	c, _, err := clientFor(ctx, uri)
	return c, err
}

// SyncPending replays, in order, every run spool under [SpoolRoot] that
// still holds requests the server has not acknowledged (the server was
// down, or the logging process was killed), each to the server it was
// logged to. Runs whose process went away without ending are marked
// KILLED once delivered.
func SyncPending(ctx context.Context) ([]mlflow.SyncResult, error) {
	root, err := SpoolRoot()
	if err != nil {
		return nil, fmt.Errorf("tracking: %w", err)
	}
	return syncUnder(ctx, root)
}

// SyncSpools is [SyncPending] for the run spools under root (a spool
// directory itself, or a directory holding spools up to four levels down),
// e.g. spools copied from another machine.
func SyncSpools(ctx context.Context, root string) ([]mlflow.SyncResult, error) {
	if st, err := os.Stat(root); err != nil {
		return nil, fmt.Errorf("tracking: spool directory: %w", err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("tracking: %s is not a directory; expected a run spool or a directory of spools", root)
	}
	return syncUnder(ctx, root)
}

// sameServer reports whether two tracking URIs name the same server
// (scheme, host and port).
func sameServer(a, b string) bool {
	ua, err1 := url.Parse(strings.TrimSpace(a))
	ub, err2 := url.Parse(strings.TrimSpace(b))
	if err1 != nil || err2 != nil || ua.Host == "" {
		return false
	}
	port := func(u *url.URL) string {
		if p := u.Port(); p != "" {
			return p
		}
		if u.Scheme == "https" {
			return "443"
		}
		return "80"
	}
	return strings.EqualFold(ua.Scheme, ub.Scheme) && strings.EqualFold(ua.Hostname(), ub.Hostname()) && port(ua) == port(ub)
}

// withoutCredentials keeps the client options of the environment that are
// not credentials (retries, timeouts, TLS): a server named by a spool gets
// the spool's requests, never this machine's token or password.
func withoutCredentials(opts []mlflow.Option) []mlflow.Option {
	return append(opts, mlflow.WithToken(""), mlflow.WithBasicAuth("", ""))
}

func syncUnder(ctx context.Context, root string) ([]mlflow.SyncResult, error) {
	pick := func(m mlflow.SpoolMeta) (*mlflow.Client, error) {
		if m.Tracking == mlflow.LocalTracking {
			srv, _, err := mlflow.EnsureServer(ctx, mlflow.ServerConfig{})
			if err != nil {
				return nil, err
			}
			return srv.Client()
		}
		if m.Tracking == "" {
			return nil, fmt.Errorf("the spool does not say which server its run belongs to")
		}
		// A spool may come from elsewhere: the credentials in the
		// environment go only to the server MLFLOW_TRACKING_URI names.
		if sameServer(m.Tracking, os.Getenv(mlflow.EnvTrackingURI)) {
			return mlflow.NewClient(m.Tracking, mlflow.EnvOptions()...)
		}
		return mlflow.NewClient(m.Tracking, withoutCredentials(mlflow.EnvOptions())...)
	}
	return mlflow.SyncAll(ctx, root, pick, mlflow.SyncOptions{MarkAbandoned: mlflow.StatusKilled})
}
