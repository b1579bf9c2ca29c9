package mlflow

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// SyncOptions configure [Sync].
type SyncOptions struct {
	// MarkAbandoned is the status given to a run whose logging process
	// went away without ending it (a crash or a kill), once its spool is
	// delivered; "" leaves such runs RUNNING. `narlab mlflow sync` uses
	// KILLED, with the time of the spool's last write as the end time.
	MarkAbandoned RunStatus
	// Retry bounds the attempts per request (default: the client's policy).
	Retry *RetryPolicy
	// Logf receives notices (the spool's disk full); nil: none.
	Logf func(format string, args ...any)
}

// SyncResult reports what [Sync] did with one spool.
type SyncResult struct {
	Dir          string
	Experiment   string
	RunID        string
	ExperimentID string
	Sent         int     // requests delivered now
	Rejected     []error // requests the server refused (kept in rejected.jsonl)
	Pending      int64   // requests still waiting
	Ended        bool    // the run has its final status on the server
	Busy         bool    // another process holds the spool; nothing was done
}

// Sync delivers the pending requests of the spool in dir, in order. The
// first one is treated as in doubt (see [Spool]), so a crash between
// sending it and recording its acknowledgment does not duplicate it; so is
// every later one until one proves new (the server has none of its
// points), which covers a state.json that fell behind on a full disk. It
// stops at the first request that still fails after the retry policy; the
// error then wraps [ErrPending]. Rejected requests are recorded and
// reported in the result, and make the error non-nil, but do not stop the
// replay.
func Sync(ctx context.Context, c *Client, dir string, opts SyncOptions) (res SyncResult, err error) {
	res.Dir = dir
	s, err := OpenSpool(dir)
	if err != nil {
		res.Busy = errors.Is(err, ErrSpoolBusy)
		return res, err
	}
	defer s.Close()
	s.logf = opts.Logf
	res.Experiment = s.meta.Experiment
	policy := c.retry
	if opts.Retry != nil {
		policy = *opts.Retry
	}
	nc := *c
	nc.retry = NoRetry
	d := &deliverer{c: &nc, s: s}
	defer func() {
		st := s.snapshot()
		res.RunID, res.ExperimentID, res.Ended = st.RunID, st.ExperimentID, st.Ended
		res.Pending = s.Pending()
	}()
	if s.snapshot().Done {
		return res, nil
	}
	rd, err := s.reader()
	if err != nil {
		return res, err
	}
	defer rd.Close()
	inDoubt := true // until a record proves new: see above
	for {
		rec, ok, err := rd.next(s.committed())
		if err != nil {
			return res, err
		}
		if !ok {
			break
		}
		if err := syncOne(ctx, d, rec, inDoubt, policy, &res); err != nil {
			return res, err
		}
		if d.fresh {
			inDoubt = false
		}
	}
	if st := s.snapshot(); !st.Ended && opts.MarkAbandoned != "" && st.RunID != "" {
		if !opts.MarkAbandoned.Terminal() {
			return res, &ValidationError{What: fmt.Sprintf("status %q for abandoned runs", opts.MarkAbandoned), Reason: "expected FINISHED, FAILED or KILLED"}
		}
		end := time.Now()
		if fi, err := os.Stat(filepath.Join(dir, requestsFile)); err == nil {
			end = fi.ModTime()
		}
		body, _ := updateRunBody(opts.MarkAbandoned, end)
		seq, err := s.append(record{Op: opUpdateRun, Body: body})
		if err != nil {
			return res, err
		}
		if err := syncOne(ctx, d, record{Seq: seq, Op: opUpdateRun, Body: body}, false, policy, &res); err != nil {
			return res, err
		}
	}
	if st := s.snapshot(); st.Ended && s.Pending() == 0 {
		if err := s.finish(); err != nil {
			return res, fmt.Errorf("mlflow: spool %s: the run was delivered, but its spool could not record it: %w "+
				"(a later sync checks the server before it sends anything again)", dir, err)
		}
	}
	s.mu.Lock()
	stateErr := s.stateErr
	s.mu.Unlock()
	if stateErr != nil {
		return res, fmt.Errorf("mlflow: spool %s: what was delivered could not be recorded: %w "+
			"(a later sync checks the server before it sends anything again)", dir, stateErr)
	}
	if len(res.Rejected) > 0 {
		return res, fmt.Errorf("mlflow: spool %s: %w", dir, errors.Join(res.Rejected...))
	}
	return res, nil
}

// syncOne delivers one record with retries (policy p, Retry-After honoured).
func syncOne(ctx context.Context, d *deliverer, rec record, inDoubt bool, p RetryPolicy, res *SyncResult) error {
	rejected := false
	_, err := retryLoop(ctx, p, 0, nil, func(int) (bool, error) {
		err := d.deliver(ctx, rec, inDoubt)
		if err == nil {
			return false, nil
		}
		if classify(err) == kindPermanent && ctx.Err() == nil {
			rejected = true
			return false, err
		}
		if !notApplied(err) {
			inDoubt = true
		}
		return true, err
	})
	switch {
	case err == nil:
		res.Sent++
		return nil
	case rejected:
		res.Rejected = append(res.Rejected, fmt.Errorf("%s was rejected: %w", rec.describe(), err))
		return d.s.reject(rec, err)
	}
	return fmt.Errorf("mlflow: spool %s: %s not delivered to %s: %v: %w", d.s.dir, rec.describe(), d.c.URI(), err, ErrPending)
}

// FindSpools returns the spool directories under root (at most four levels
// down), sorted by path.
func FindSpools(root string) ([]string, error) {
	var dirs []string
	root = filepath.Clean(root)
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil
		}
		if !e.IsDir() {
			return nil
		}
		if rel, _ := filepath.Rel(root, p); strings.Count(rel, string(filepath.Separator)) >= 4 {
			return filepath.SkipDir
		}
		if e.Name() == artifactsDir && p != root {
			return filepath.SkipDir
		}
		if _, err := os.Stat(filepath.Join(p, metaFile)); err == nil {
			dirs = append(dirs, p)
			return filepath.SkipDir
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	sort.Strings(dirs)
	return dirs, err
}

// SyncAll syncs every spool under root that is not done and not held by a
// running process. clientFor picks the client for a spool (from its
// SpoolMeta.Tracking); it may return nil to skip a spool.
func SyncAll(ctx context.Context, root string, clientFor func(SpoolMeta) (*Client, error), opts SyncOptions) ([]SyncResult, error) {
	dirs, err := FindSpools(root)
	if err != nil {
		return nil, fmt.Errorf("mlflow: looking for spools under %s: %w", root, err)
	}
	var results []SyncResult
	var errs []error
	for _, dir := range dirs {
		st, err := InspectSpool(dir)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if st.Done {
			continue
		}
		if st.Busy {
			results = append(results, SyncResult{Dir: dir, Experiment: st.Meta.Experiment, RunID: st.RunID, Pending: st.Pending, Busy: true})
			continue
		}
		c, err := clientFor(st.Meta)
		if err != nil {
			errs = append(errs, fmt.Errorf("mlflow: spool %s: %w", dir, err))
			continue
		}
		if c == nil {
			continue
		}
		res, err := Sync(ctx, c, dir, opts)
		if res.Busy {
			res.Experiment, res.Pending = st.Meta.Experiment, st.Pending
			results = append(results, res)
			continue
		}
		results = append(results, res)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return results, errors.Join(errs...)
}
