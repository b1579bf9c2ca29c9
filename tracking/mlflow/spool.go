package mlflow

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/narlab/narlab/internal/flock"
	"github.com/narlab/narlab/internal/fsutil"
)

// A Spool is the on-disk write-ahead log of one run's requests to the
// tracking server: a directory holding
//
//	meta.json        what the spool is for (local id, tracking server, experiment)
//	requests.jsonl   one record per line: {"crc":"…","seq":N,"op":…,"body":…}
//	state.json       the acknowledged sequence number and the server's run id
//	artifacts/       copies of artifacts not yet uploaded
//	rejected.jsonl   requests the server refused for good, with its answer
//	lock             held (flock) by the one process that uses the spool
//
// Every request is appended (and fsync'd) before it is sent; records are
// sent strictly in sequence order, one at a time, and state.json is
// replaced atomically (and fsync'd) after each success. A record body is
// the exact REST body, without the run id, which the server assigns and
// which is added when sending.
//
// # Exactly once
//
// Because a record is sent only after its predecessor was acknowledged on
// disk, at most one record is in doubt at any time: the first one after the
// acknowledged sequence number, after a crash, a kill or a failed attempt
// whose failure does not prove that the server ignored it (a timeout, a
// reset connection, a 5xx other than 503). An in-doubt record is checked
// against the server before it is sent again:
//
//   - create-run: runs are tagged narlab.spool_id = the spool's local id, so
//     the run is looked up by that tag and adopted if it exists;
//   - log-batch: the metric history of each key in the batch is read and the
//     points already there (same key, step, timestamp and value) are left
//     out;
//   - params, tags, run updates and artifact uploads are idempotent and are
//     simply sent again.
//
// So every metric point reaches the server exactly once, with the caveat
// that two points with the same key, step, millisecond timestamp and value
// are one point (MLflow's SQL stores deduplicate them too). Records are
// replayed in order, so the final value of a tag is the last one set.
//
// A torn last line (a crash in the middle of an append) fails its checksum
// and is removed when the spool is opened; the request it held was never
// sent, and the call that appended it had not returned.
type Spool struct {
	dir  string
	meta SpoolMeta

	lockFile *os.File
	f        *os.File // requests.jsonl, opened for appending

	mu       sync.Mutex
	next     int64 // the next sequence number
	state    spoolState
	firstOff int64 // offset of the first unacknowledged record at open
	appended chan struct{}
}

// SpoolMeta describes a spool.
type SpoolMeta struct {
	Version    int       `json:"version"`
	LocalID    string    `json:"local_id"`
	Tracking   string    `json:"tracking"` // LocalTracking, or the server's address (without credentials)
	Experiment string    `json:"experiment"`
	RunName    string    `json:"run_name,omitempty"`
	Created    time.Time `json:"created"`
}

// LocalTracking is SpoolMeta.Tracking for runs logged to the embedded local
// server, whose port changes from start to start.
const LocalTracking = "local"

type spoolState struct {
	Acked        int64  `json:"acked"`
	RunID        string `json:"run_id,omitempty"`
	ExperimentID string `json:"experiment_id,omitempty"`
	ArtifactURI  string `json:"artifact_uri,omitempty"`
	Rejected     int    `json:"rejected,omitempty"`
	Ended        bool   `json:"ended,omitempty"` // a terminal run update was delivered
	Done         bool   `json:"done,omitempty"`  // ended and fully delivered; requests.jsonl removed
}

// record is one line of requests.jsonl.
type record struct {
	Seq  int64           `json:"seq"`
	Op   string          `json:"op"`
	Body json.RawMessage `json:"body,omitempty"`
	// Artifact uploads: the run-relative path and the spool-relative file.
	Path string `json:"path,omitempty"`
	File string `json:"file,omitempty"`
	// create_run: the experiment by name (created if needed), and the spool
	// of a parent run whose server id was not known yet.
	Experiment  string `json:"experiment,omitempty"`
	ParentSpool string `json:"parent_spool,omitempty"`
}

// The record operations.
const (
	opCreateRun = "create_run" // body: runs/create without experiment_id
	opLogBatch  = "log_batch"  // body: runs/log-batch without run_id
	opUpdateRun = "update_run" // body: runs/update without run_id
	opDeleteTag = "delete_tag" // body: runs/delete-tag without run_id
	opArtifact  = "artifact"   // PUT of File as Path
	opLogInputs = "log_inputs" // body: runs/log-inputs without run_id
	// opAttachRun replaces create_run for a run that exists already
	// (MLFLOW_RUN_ID): body {"run_id": …}; delivering it marks the run
	// RUNNING again, as mlflow.start_run(run_id=…) does.
	opAttachRun = "attach_run"
)

const (
	metaFile     = "meta.json"
	requestsFile = "requests.jsonl"
	stateFile    = "state.json"
	rejectedFile = "rejected.jsonl"
	lockName     = "lock"
	artifactsDir = "artifacts"
)

// ErrSpoolBusy is returned when another process holds a spool.
var ErrSpoolBusy = errors.New("the spool is in use by another process")

// CreateSpool makes a new spool in dir (created if needed; it must not
// already hold a spool).
func CreateSpool(dir string, meta SpoolMeta) (*Spool, error) {
	if err := os.MkdirAll(filepath.Join(dir, artifactsDir), fsutil.DirMode); err != nil {
		return nil, fmt.Errorf("mlflow: creating spool: %w", err)
	}
	if err := checkSpoolFiles(dir); err != nil {
		return nil, err
	}
	if _, err := os.Lstat(filepath.Join(dir, metaFile)); err == nil {
		return nil, fmt.Errorf("mlflow: creating spool: %s already holds a spool; use a new directory per run", dir)
	}
	lf, err := lockSpool(dir)
	if err != nil {
		return nil, err
	}
	meta.Version = 1
	if meta.LocalID == "" {
		meta.LocalID = uuid.NewString()
	}
	if meta.Created.IsZero() {
		meta.Created = time.Now().UTC()
	}
	s := &Spool{dir: dir, meta: meta, lockFile: lf, next: 1, appended: make(chan struct{}, 1)}
	b, _ := json.MarshalIndent(meta, "", "  ")
	if err := writeFileAtomic(filepath.Join(dir, metaFile), append(b, '\n')); err != nil {
		s.release()
		return nil, fmt.Errorf("mlflow: creating spool: %w", err)
	}
	if err := s.writeState(); err != nil {
		s.release()
		return nil, err
	}
	s.f, err = openNoFollow(filepath.Join(dir, requestsFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, fsutil.DataMode)
	if err != nil {
		s.release()
		return nil, fmt.Errorf("mlflow: creating spool: %w", err)
	}
	fsutil.SyncDir(dir)
	return s, nil
}

// OpenSpool opens an existing spool for replay. It fails with an error
// wrapping [ErrSpoolBusy] if another process holds it. A torn last line is
// removed; a damaged line before the last one is an error (nothing after it
// can be trusted to be in order).
func OpenSpool(dir string) (*Spool, error) {
	if err := checkSpoolFiles(dir); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(dir, metaFile))
	if err != nil {
		return nil, fmt.Errorf("mlflow: %s is not a spool: %w", dir, err)
	}
	var meta SpoolMeta
	if err := json.Unmarshal(b, &meta); err != nil {
		return nil, fmt.Errorf("mlflow: spool %s: damaged %s: %w", dir, metaFile, err)
	}
	lf, err := lockSpool(dir)
	if err != nil {
		return nil, err
	}
	s := &Spool{dir: dir, meta: meta, lockFile: lf, appended: make(chan struct{}, 1)}
	if b, err := os.ReadFile(filepath.Join(dir, stateFile)); err == nil {
		if err := json.Unmarshal(b, &s.state); err != nil {
			s.release()
			return nil, fmt.Errorf("mlflow: spool %s: damaged %s: %w", dir, stateFile, err)
		}
	}
	if s.state.Done {
		s.next = s.state.Acked + 1
		return s, nil
	}
	last, firstOff, err := scanRequests(filepath.Join(dir, requestsFile), s.state.Acked)
	if err != nil {
		s.release()
		return nil, fmt.Errorf("mlflow: spool %s: %w", dir, err)
	}
	if last < s.state.Acked {
		last = s.state.Acked
	}
	s.next, s.firstOff = last+1, firstOff
	s.f, err = openNoFollow(filepath.Join(dir, requestsFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, fsutil.DataMode)
	if err != nil {
		s.release()
		return nil, fmt.Errorf("mlflow: opening spool: %w", err)
	}
	return s, nil
}

func lockSpool(dir string) (*os.File, error) {
	lf, err := openNoFollow(filepath.Join(dir, lockName), os.O_CREATE|os.O_RDWR, fsutil.DataMode)
	if err != nil {
		return nil, fmt.Errorf("mlflow: locking spool %s: %w", dir, err)
	}
	ok, err := flock.TryLock(lf)
	if err != nil {
		lf.Close()
		return nil, fmt.Errorf("mlflow: locking spool %s: %w", dir, err)
	}
	if !ok {
		lf.Close()
		pid, _ := os.ReadFile(filepath.Join(dir, lockName))
		return nil, fmt.Errorf("mlflow: spool %s (process %s): %w", dir, bytes.TrimSpace(pid), ErrSpoolBusy)
	}
	_ = lf.Truncate(0)
	_, _ = lf.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return lf, nil
}

// eachLine calls fn with every line of the file name (without its
// newline), its byte offset and whether it ended with a newline (only the
// last line may not). It reads in chunks, so memory holds one line at a
// time; a line longer than fsutil.MaxLine is an error.
func eachLine(name string, fn func(off int64, line []byte, complete bool) error) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 256<<10)
	var off int64
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > fsutil.MaxLine {
			return fmt.Errorf("%s: line at byte %d is longer than %d MiB", requestsFile, off, fsutil.MaxLine>>20)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if len(line) > 0 {
			complete := line[len(line)-1] == '\n'
			body := line
			if complete {
				body = line[:len(line)-1]
			}
			if ferr := fn(off, body, complete); ferr != nil {
				return ferr
			}
			off += int64(len(line))
		}
		if err != nil { // io.EOF
			return nil
		}
		line = line[:0]
	}
}

// errStopScan ends eachLine early without an error.
var errStopScan = errors.New("stop")

// scanRequests checks requests.jsonl: it returns the last sequence number
// and the offset of the first record after acked, truncating a torn last
// line.
func scanRequests(name string, acked int64) (last, firstOff int64, err error) {
	st, err := os.Stat(name)
	if errors.Is(err, os.ErrNotExist) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, err
	}
	size := st.Size()
	firstOff = -1
	var end int64 // the offset after the last good record
	err = eachLine(name, func(off int64, line []byte, complete bool) error {
		rec, perr := parseRecord(line)
		if perr == nil && !complete {
			perr = errors.New("no end of line")
		}
		if perr == nil && rec.Seq != last+1 && last != 0 {
			perr = fmt.Errorf("sequence %d after %d", rec.Seq, last)
		}
		if perr != nil {
			lineEnd := off + int64(len(line))
			if complete {
				lineEnd++
			}
			if lineEnd >= size {
				// A torn last line: the append that wrote it never returned.
				if err := os.Truncate(name, off); err != nil {
					return fmt.Errorf("removing a torn last line: %w", err)
				}
				return errStopScan
			}
			return fmt.Errorf("%s: line at byte %d is damaged (%v) and is followed by more records; "+
				"move the spool aside and inspect it", requestsFile, off, perr)
		}
		last = rec.Seq
		if firstOff < 0 && rec.Seq > acked {
			firstOff = off
		}
		end = off + int64(len(line)) + 1
		return nil
	})
	if err != nil && !errors.Is(err, errStopScan) {
		return 0, 0, err
	}
	if firstOff < 0 {
		firstOff = end
	}
	return last, firstOff, nil
}

const crcPrefix = `{"crc":"`

// encodeRecord returns the line for rec: its JSON with a leading "crc"
// field, the CRC-32 of the rest of the line.
func encodeRecord(rec record) ([]byte, error) {
	b, err := jsonMarshal(rec)
	if err != nil {
		return nil, err
	}
	rest := b[1:]
	line := make([]byte, 0, len(b)+24)
	line = append(line, crcPrefix...)
	line = fmt.Appendf(line, "%08x", crc32.ChecksumIEEE(rest))
	line = append(line, '"', ',')
	line = append(line, rest...)
	return append(line, '\n'), nil
}

// parseRecord parses and checks one line (without its newline).
func parseRecord(line []byte) (record, error) {
	var rec record
	n := len(crcPrefix)
	if len(line) < n+10 || string(line[:n]) != crcPrefix || line[n+8] != '"' || line[n+9] != ',' {
		return rec, errors.New("not a spool record")
	}
	want, err := strconv.ParseUint(string(line[n:n+8]), 16, 32)
	if err != nil {
		return rec, errors.New("bad checksum field")
	}
	if crc32.ChecksumIEEE(line[n+10:]) != uint32(want) {
		return rec, errors.New("checksum mismatch")
	}
	if err := json.Unmarshal(line, &rec); err != nil {
		return rec, err
	}
	if rec.Seq <= 0 || rec.Op == "" {
		return rec, errors.New("record without seq or op")
	}
	return rec, nil
}

// Dir returns the spool's directory.
func (s *Spool) Dir() string { return s.dir }

// Meta returns the spool's description.
func (s *Spool) Meta() SpoolMeta { return s.meta }

// RunID returns the server's id of the run, or "" before the run was
// created on the server.
func (s *Spool) RunID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state.RunID
}

// Pending returns the number of records not yet acknowledged.
func (s *Spool) Pending() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.next - 1 - s.state.Acked
}

// append writes rec (its Seq is assigned here) and fsyncs it.
func (s *Spool) append(rec record) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return 0, fmt.Errorf("mlflow: spool %s is closed", s.dir)
	}
	rec.Seq = s.next
	line, err := encodeRecord(rec)
	if err != nil {
		return 0, fmt.Errorf("mlflow: spooling a %s request: %w", rec.Op, err)
	}
	if _, err := s.f.Write(line); err != nil {
		return 0, fmt.Errorf("mlflow: writing spool %s: %w", s.dir, err)
	}
	if err := s.f.Sync(); err != nil {
		return 0, fmt.Errorf("mlflow: syncing spool %s: %w", s.dir, err)
	}
	s.next++
	select {
	case s.appended <- struct{}{}:
	default:
	}
	return rec.Seq, nil
}

// appendArtifact copies the artifact (data, or the file src) into the spool
// and appends its upload record.
func (s *Spool) appendArtifact(artifactPath string, data []byte, src string) (int64, error) {
	if err := ValidateArtifactPath(artifactPath); err != nil {
		return 0, err
	}
	s.mu.Lock()
	name := fmt.Sprintf("%08d-%s", s.next, path.Base(artifactPath))
	s.mu.Unlock()
	// The name is unique under the append lock that the callers hold.
	dst := filepath.Join(s.dir, artifactsDir, name)
	var err error
	if src != "" {
		err = copyFile(src, dst)
	} else {
		err = writeFileAtomic(dst, data)
	}
	if err != nil {
		return 0, fmt.Errorf("mlflow: spooling artifact %s: %w", artifactPath, err)
	}
	fsutil.SyncDir(filepath.Join(s.dir, artifactsDir))
	return s.append(record{Op: opArtifact, Path: artifactPath, File: artifactsDir + "/" + name})
}

// pendingContents counts what the unacknowledged records hold: metric
// points, and the other requests (params, tags, run updates, artifacts).
func (s *Spool) pendingContents() (points, other int64) {
	acked := s.snapshot().Acked
	f, err := os.Open(filepath.Join(s.dir, requestsFile))
	if err != nil {
		return 0, s.Pending()
	}
	defer f.Close()
	_ = fsutil.ScanLines(f, func(_ int, line []byte) error {
		rec, err := parseRecord(line)
		if err != nil || rec.Seq <= acked {
			return nil
		}
		if rec.Op == opLogBatch {
			if b, err := decodeBatch(rec.Body); err == nil {
				points += int64(len(b.Metrics))
				if len(b.Params)+len(b.Tags) > 0 {
					other++
				}
				return nil
			}
		}
		other++
		return nil
	})
	return points, other
}

// ack records that the server applied record seq, with the run's server
// identity when it changed.
func (s *Spool) ack(rec record, update func(*spoolState)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rec.Seq != s.state.Acked+1 {
		return fmt.Errorf("mlflow: spool %s: acknowledging record %d after %d (out of order)", s.dir, rec.Seq, s.state.Acked)
	}
	s.state.Acked = rec.Seq
	if update != nil {
		update(&s.state)
	}
	if err := s.writeState(); err != nil {
		return err
	}
	if rec.Op == opArtifact {
		s.removeArtifactCopy(rec)
	}
	return nil
}

// reject records that the server refused rec for good, then acknowledges it.
func (s *Spool) reject(rec record, cause error) error {
	line, _ := jsonMarshal(struct {
		Time  time.Time `json:"time"`
		Error string    `json:"error"`
		Rec   record    `json:"record"`
	}{time.Now().UTC(), cause.Error(), rec})
	f, err := openNoFollow(filepath.Join(s.dir, rejectedFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, fsutil.DataMode)
	if err != nil {
		return fmt.Errorf("mlflow: spool %s: recording a rejected request: %w", s.dir, err)
	}
	_, err = f.Write(append(line, '\n'))
	if err == nil {
		err = f.Sync()
	}
	f.Close()
	if err != nil {
		return fmt.Errorf("mlflow: spool %s: recording a rejected request: %w", s.dir, err)
	}
	return s.ack(rec, func(st *spoolState) { st.Rejected++ })
}

func (s *Spool) snapshot() spoolState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

// writeState replaces state.json atomically. Call with s.mu held.
func (s *Spool) writeState() error {
	b, _ := json.Marshal(s.state)
	if err := writeFileAtomic(filepath.Join(s.dir, stateFile), append(b, '\n')); err != nil {
		return fmt.Errorf("mlflow: spool %s: writing %s: %w", s.dir, stateFile, err)
	}
	return nil
}

// finish marks a fully delivered spool done and removes its request log.
func (s *Spool) finish() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state.Acked != s.next-1 {
		return nil
	}
	s.state.Done = true
	if err := s.writeState(); err != nil {
		return err
	}
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
	return os.Remove(filepath.Join(s.dir, requestsFile))
}

// Close releases the spool; unacknowledged records stay on disk.
func (s *Spool) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var err error
	if s.f != nil {
		err = s.f.Close()
		s.f = nil
	}
	s.release()
	return err
}

func (s *Spool) release() {
	if s.lockFile != nil {
		_ = flock.Unlock(s.lockFile)
		s.lockFile.Close()
		s.lockFile = nil
	}
}

// reader returns a reader of the records after the acknowledged ones at
// open (or creation).
func (s *Spool) reader() (*recordReader, error) {
	f, err := os.Open(filepath.Join(s.dir, requestsFile))
	if err != nil {
		return nil, fmt.Errorf("mlflow: reading spool %s: %w", s.dir, err)
	}
	return &recordReader{f: f, off: s.firstOff}, nil
}

// recordReader reads complete records from requests.jsonl, from an offset,
// while the file is being appended to.
type recordReader struct {
	f   *os.File
	off int64
	buf []byte // bytes read past off
}

// next returns the next complete record, or ok=false when there is none yet.
func (r *recordReader) next() (rec record, ok bool, err error) {
	for {
		if i := bytes.IndexByte(r.buf, '\n'); i >= 0 {
			line := r.buf[:i]
			rec, err := parseRecord(line)
			if err != nil {
				return rec, false, fmt.Errorf("mlflow: spool record at byte %d: %w", r.off, err)
			}
			r.off += int64(i + 1)
			r.buf = r.buf[i+1:]
			return rec, true, nil
		}
		if len(r.buf) > fsutil.MaxLine {
			return rec, false, fmt.Errorf("mlflow: spool record at byte %d: longer than %d MiB without an end of line", r.off, fsutil.MaxLine>>20)
		}
		chunk := make([]byte, 256<<10)
		n, err := r.f.ReadAt(chunk, r.off+int64(len(r.buf)))
		r.buf = append(r.buf, chunk[:n]...)
		if n == 0 {
			if err == nil || errors.Is(err, io.EOF) {
				return rec, false, nil
			}
			return rec, false, err
		}
	}
}

func (r *recordReader) Close() error { return r.f.Close() }

// writeFileAtomic writes one of the spool's files (data, mode DataMode less
// the umask) atomically.
func writeFileAtomic(name string, data []byte) error {
	return fsutil.WriteFile(name, data, fsutil.DataMode)
}

// SpoolStatus summarizes a spool for `narlab mlflow status`.
type SpoolStatus struct {
	Dir      string
	Meta     SpoolMeta
	RunID    string
	Pending  int64 // records not yet delivered
	Rejected int   // records the server refused (see rejected.jsonl)
	Done     bool
	Busy     bool // held by a running process
}

// InspectSpool reads a spool's status without taking it over.
func InspectSpool(dir string) (SpoolStatus, error) {
	st := SpoolStatus{Dir: dir}
	if err := checkSpoolFiles(dir); err != nil {
		return st, err
	}
	b, err := os.ReadFile(filepath.Join(dir, metaFile))
	if err != nil {
		return st, fmt.Errorf("mlflow: %s is not a spool: %w", dir, err)
	}
	if err := json.Unmarshal(b, &st.Meta); err != nil {
		return st, fmt.Errorf("mlflow: spool %s: damaged %s: %w", dir, metaFile, err)
	}
	var state spoolState
	if b, err := os.ReadFile(filepath.Join(dir, stateFile)); err == nil {
		_ = json.Unmarshal(b, &state)
	}
	st.RunID, st.Rejected, st.Done = state.RunID, state.Rejected, state.Done
	if !state.Done {
		last, _, err := scanRequestsReadOnly(filepath.Join(dir, requestsFile))
		if err != nil {
			return st, fmt.Errorf("mlflow: spool %s: %w", dir, err)
		}
		if last > state.Acked {
			st.Pending = last - state.Acked
		}
	}
	if lf, err := openNoFollow(filepath.Join(dir, lockName), os.O_RDWR, 0); err == nil {
		ok, _ := flock.TryLock(lf)
		if ok {
			_ = flock.Unlock(lf)
		} else {
			st.Busy = true
		}
		lf.Close()
	}
	return st, nil
}

// scanRequestsReadOnly returns the last complete, valid sequence number.
func scanRequestsReadOnly(name string) (last int64, n int, err error) {
	err = eachLine(name, func(_ int64, line []byte, complete bool) error {
		if !complete {
			return nil
		}
		if rec, err := parseRecord(line); err == nil {
			last = rec.Seq
			n++
		}
		return nil
	})
	if errors.Is(err, os.ErrNotExist) {
		return 0, 0, nil
	}
	return last, n, err
}
