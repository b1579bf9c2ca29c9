package mlflow

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
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
//
// # A disk that does not take the spool
//
// When a record cannot be written (a full filesystem, a quota, an I/O
// error), what was written of it is cut off again and the record is kept in
// memory, in sequence, behind the records on disk; the sender delivers it
// like any other, so while the server answers nothing is lost and nothing
// is sent twice. Once memory holds nothing unacknowledged and the disk takes
// a record again, the spool is back on disk (records held in memory and not
// yet delivered are written to it first). A record delivered from memory
// leaves a gap in requests.jsonl's sequence, which is written only after
// state.json acknowledges every record of the gap. When no new state.json
// fits, the old one is overwritten in place (a few bytes in its own
// block); where even that fails, the process goes on with its
// acknowledgments in memory, and a later replay of the spool ([Sync])
// treats every record as in doubt until it finds one the server has not
// seen (records are delivered in order, so none after it was). What neither the disk nor the server
// took by the end of the run is lost, and counted ([LostError]). The
// details are in memory.go.
type Spool struct {
	dir  string
	meta SpoolMeta

	lockFile *os.File
	f        *os.File // requests.jsonl, opened for appending; nil when the spool lives in memory only

	mu       sync.Mutex
	next     int64 // the next sequence number
	state    spoolState
	firstOff int64 // offset of the first unacknowledged record at open
	appended chan struct{}
	closed   bool

	// The disk and what it did not take (memory.go).
	size        int64    // the end of requests.jsonl's last complete record
	diskLast    int64    // the sequence number of requests.jsonl's last record
	persisted   int64    // the acknowledged sequence number as state.json holds it
	mem         []record // records the disk did not take, in order, none acknowledged
	memBytes    int64
	maxMem      int64
	diskErr     error // why new records go to memory; nil while the disk takes them
	lastDiskErr error // the last such failure, kept after the disk took records again
	stateErr    error // why state.json is behind; nil while it is current
	broken      bool  // a failed write could not be cut off: the disk is not used again
	inMemory    int64 // records that went to memory over the spool's life
	backTold    bool  // the return to disk was told (once a run)
	lost        lostTally
	memOnly     bool // nothing of the spool is on disk (its files could not be created)
	madeDir     bool // a memory-only spool whose directory this process created
	logf        func(format string, args ...any)
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

	// An artifact held in memory (its File is empty): its bytes, or the
	// absolute path of the file to upload. Never written as such: a
	// record written to disk gets a copy in artifacts/ first.
	data []byte
	src  string
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
// already hold a spool). When the disk does not take the spool's files, the
// error wraps a [*DiskError] and nothing is left behind; [Client.StartRun]
// then goes on with a spool held in memory.
func CreateSpool(dir string, meta SpoolMeta) (*Spool, error) {
	_, statErr := os.Lstat(dir)
	made := errors.Is(statErr, fs.ErrNotExist)
	if err := os.MkdirAll(filepath.Join(dir, artifactsDir), fsutil.DirMode); err != nil {
		if made {
			os.RemoveAll(dir)
		}
		return nil, fmt.Errorf("mlflow: creating spool: %w", diskErr(dir, "creating the spool", err))
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
	s := &Spool{dir: dir, meta: meta, lockFile: lf, next: 1, appended: make(chan struct{}, 1), maxMem: DefaultMaxMemory}
	// undo removes what was written when the disk did not take it all.
	undo := func(err error) (*Spool, error) {
		s.release()
		if made {
			os.RemoveAll(dir)
		} else {
			for _, name := range []string{metaFile, stateFile, requestsFile, lockName} {
				os.Remove(filepath.Join(dir, name))
			}
		}
		return nil, fmt.Errorf("mlflow: creating spool: %w", diskErr(dir, "creating the spool", err))
	}
	b, _ := json.MarshalIndent(meta, "", "  ")
	if err := fsutil.WriteFile(filepath.Join(dir, metaFile), append(b, '\n'), fsutil.DataMode); err != nil {
		return undo(err)
	}
	if err := s.writeState(); err != nil {
		return undo(err)
	}
	s.f, err = openNoFollow(filepath.Join(dir, requestsFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, fsutil.DataMode)
	if err != nil {
		return undo(err)
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
	s := &Spool{dir: dir, meta: meta, lockFile: lf, appended: make(chan struct{}, 1), maxMem: DefaultMaxMemory}
	if b, err := os.ReadFile(filepath.Join(dir, stateFile)); err == nil {
		if err := json.Unmarshal(b, &s.state); err != nil {
			s.release()
			return nil, fmt.Errorf("mlflow: spool %s: damaged %s: %w", dir, stateFile, err)
		}
	}
	s.persisted = s.state.Acked
	if s.state.Done {
		s.next = s.state.Acked + 1
		s.closed = true
		return s, nil
	}
	last, firstOff, size, err := scanRequests(filepath.Join(dir, requestsFile), s.state.Acked)
	if err != nil {
		s.release()
		return nil, fmt.Errorf("mlflow: spool %s: %w", dir, err)
	}
	s.diskLast, s.size = last, size
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

// scanRequests checks requests.jsonl: it returns the last sequence number,
// the offset of the first record after acked and the size of the complete
// records, truncating a torn last line. Sequence numbers increase by one,
// except across a gap of records delivered from memory (see [Spool]),
// which state.json acknowledges.
func scanRequests(name string, acked int64) (last, firstOff, size int64, err error) {
	st, err := os.Stat(name)
	if errors.Is(err, os.ErrNotExist) {
		return 0, 0, 0, nil
	}
	if err != nil {
		return 0, 0, 0, err
	}
	fileSize := st.Size()
	firstOff = -1
	var end int64 // the offset after the last good record
	err = eachLine(name, func(off int64, line []byte, complete bool) error {
		rec, perr := parseRecord(line)
		if perr == nil && !complete {
			perr = errors.New("no end of line")
		}
		if perr == nil && rec.Seq != last+1 && last != 0 && (rec.Seq <= last || rec.Seq-1 > acked) {
			perr = fmt.Errorf("sequence %d after %d", rec.Seq, last)
		}
		if perr != nil {
			lineEnd := off + int64(len(line))
			if complete {
				lineEnd++
			}
			if lineEnd >= fileSize {
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
		return 0, 0, 0, err
	}
	if firstOff < 0 {
		firstOff = end
	}
	return last, firstOff, end, nil
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

// append stores rec (its Seq is assigned here): written to requests.jsonl
// and fsync'd, or, when the disk does not take it, kept in memory (see
// [Spool]). The error is non-nil only for a closed spool, a record that
// cannot be encoded, or a record dropped because memory is full too (it is
// then counted as lost and the error wraps [ErrLost]).
func (s *Spool) append(rec record) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, fmt.Errorf("mlflow: spool %s is closed", s.dir)
	}
	rec.Seq = s.next
	if err := s.storeLocked(rec); err != nil {
		return 0, err
	}
	s.next++
	select {
	case s.appended <- struct{}{}:
	default:
	}
	return rec.Seq, nil
}

// writeLocked appends rec to requests.jsonl and fsyncs it; for an artifact
// held in memory it first writes its copy into artifacts/. A failed write
// is cut off again, so the file always ends with a complete record. Disk
// failures are *DiskError; an unencodable record is another error.
func (s *Spool) writeLocked(rec *record) error {
	madeCopy := ""
	if rec.Op == opArtifact && rec.File == "" {
		name := copyName(rec.Seq, rec.Path)
		dst := filepath.Join(s.dir, artifactsDir, name)
		var err error
		switch {
		case rec.src != "":
			err = copyFile(rec.src, dst)
		default:
			err = fsutil.WriteFile(dst, rec.data, fsutil.DataMode)
		}
		if err != nil {
			os.Remove(dst)
			return diskErr(s.dir, "writing a copy of artifact "+rec.Path, err)
		}
		fsutil.SyncDir(filepath.Join(s.dir, artifactsDir))
		madeCopy = dst
		rec.File, rec.data, rec.src = artifactsDir+"/"+name, nil, ""
	}
	undoCopy := func() {
		if madeCopy != "" {
			os.Remove(madeCopy)
			rec.File = ""
		}
	}
	line, err := encodeRecord(*rec)
	if err != nil {
		undoCopy()
		return fmt.Errorf("mlflow: spooling a %s request: %w", rec.Op, err)
	}
	_, err = s.f.Write(line)
	if err == nil {
		err = s.f.Sync()
	}
	if err != nil {
		// What was written of the line must go: a later record after it
		// would follow a damaged line.
		if terr := s.f.Truncate(s.size); terr != nil {
			s.broken = true
			err = fmt.Errorf("%w (and cutting off the partial record failed: %v; the spool is not written to again)", err, terr)
		}
		undoCopy()
		return diskErr(s.dir, "writing "+requestsFile, err)
	}
	s.size += int64(len(line))
	s.diskLast = rec.Seq
	return nil
}

// appendArtifact copies the artifact (data, or the file src) into the spool
// and appends its upload record. When the disk does not take the copy, the
// artifact is kept in memory (data, or the file's contents while they fit
// the memory budget), or else uploaded from src itself.
func (s *Spool) appendArtifact(artifactPath string, data []byte, src string) (int64, error) {
	if err := ValidateArtifactPath(artifactPath); err != nil {
		return 0, err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return 0, fmt.Errorf("mlflow: spool %s is closed", s.dir)
	}
	onDisk := s.f != nil && !s.broken && s.spillLocked()
	name := copyName(s.next, artifactPath)
	s.mu.Unlock()
	if onDisk {
		// The name is unique under the append lock that the callers hold.
		dst := filepath.Join(s.dir, artifactsDir, name)
		var err error
		if src != "" {
			var in *os.File
			if in, err = os.Open(src); err != nil {
				return 0, fmt.Errorf("mlflow: artifact %s: %w", artifactPath, err)
			}
			in.Close()
			err = copyFile(src, dst)
		} else {
			err = fsutil.WriteFile(dst, data, fsutil.DataMode)
		}
		if err == nil {
			fsutil.SyncDir(filepath.Join(s.dir, artifactsDir))
			return s.append(record{Op: opArtifact, Path: artifactPath, File: artifactsDir + "/" + name})
		}
		os.Remove(dst)
		s.mu.Lock()
		s.toMemoryLocked(diskErr(s.dir, "writing a copy of artifact "+artifactPath, err))
		s.mu.Unlock()
	}
	rec := record{Op: opArtifact, Path: artifactPath, data: data}
	if src != "" {
		abs, err := filepath.Abs(src)
		if err != nil {
			return 0, fmt.Errorf("mlflow: artifact %s: %w", artifactPath, err)
		}
		rec.src = abs
		if fi, err := os.Stat(abs); err == nil && fi.Size() <= maxArtifactInMemory && s.memFree() >= fi.Size() {
			if b, err := os.ReadFile(abs); err == nil {
				rec.data, rec.src = b, ""
			}
		}
	}
	if rec.data == nil && rec.src == "" {
		rec.data = []byte{}
	}
	return s.append(rec)
}

// pendingContents counts what the unacknowledged records hold: metric
// points, and the other requests (params, tags, run updates, artifacts).
func (s *Spool) pendingContents() (points, other int64) {
	s.mu.Lock()
	acked, limit := s.state.Acked, s.size
	mem := append([]record(nil), s.mem...)
	s.mu.Unlock()
	count := func(rec record) {
		if rec.Op == opLogBatch {
			if b, err := decodeBatch(rec.Body); err == nil {
				points += int64(len(b.Metrics))
				if len(b.Params)+len(b.Tags) > 0 {
					other++
				}
				return
			}
		}
		other++
	}
	if s.f != nil {
		f, err := os.Open(filepath.Join(s.dir, requestsFile))
		if err == nil {
			_ = fsutil.ScanLines(io.LimitReader(f, limit), func(_ int, line []byte) error {
				if rec, err := parseRecord(line); err == nil && rec.Seq > acked {
					count(rec)
				}
				return nil
			})
			f.Close()
		}
	}
	for _, rec := range mem {
		count(rec)
	}
	return points, other
}

// ack records that the server applied record seq, with the run's server
// identity when it changed. The acknowledgment holds in memory even when
// state.json cannot be replaced (the disk is full); see [Spool].
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
	if len(s.mem) > 0 && s.mem[0].Seq == rec.Seq {
		s.memBytes -= s.mem[0].memSize()
		s.mem[0] = record{}
		s.mem = s.mem[1:]
	}
	if !s.memOnly {
		s.writeStateLocked()
	}
	if rec.Op == opArtifact && !s.memOnly {
		if rec.File == "" {
			// Delivered from memory, it may have been written to disk
			// meanwhile, with a copy of this name.
			rec.File = artifactsDir + "/" + copyName(rec.Seq, rec.Path)
		}
		s.removeArtifactCopy(rec)
	}
	return nil
}

// copyName is the name of the copy of the artifact of record seq.
func copyName(seq int64, artifactPath string) string {
	return fmt.Sprintf("%08d-%s", seq, path.Base(artifactPath))
}

// reject records that the server refused rec for good, then acknowledges
// it. When rejected.jsonl cannot be written, the refusal is still reported
// by the caller, and a notice says the file lacks it.
func (s *Spool) reject(rec record, cause error) error {
	line, _ := jsonMarshal(struct {
		Time  time.Time `json:"time"`
		Error string    `json:"error"`
		Rec   record    `json:"record"`
	}{time.Now().UTC(), cause.Error(), rec})
	var err error
	if !s.memOnly {
		var f *os.File
		f, err = openNoFollow(filepath.Join(s.dir, rejectedFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, fsutil.DataMode)
		if err == nil {
			_, err = f.Write(append(line, '\n'))
			if err == nil {
				err = f.Sync()
			}
			f.Close()
		}
	}
	if err != nil && s.logf != nil {
		s.logf("mlflow: spool %s: the refusal of %s could not be recorded in %s: %v", s.dir, rec.describe(), rejectedFile, err)
	}
	return s.ack(rec, func(st *spoolState) { st.Rejected++ })
}

func (s *Spool) snapshot() spoolState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

// writeState replaces state.json atomically. Call with s.mu held, or
// before the spool is shared.
func (s *Spool) writeState() error {
	b, _ := json.Marshal(s.state)
	b = append(b, '\n')
	name := filepath.Join(s.dir, stateFile)
	if err := fsutil.WriteFile(name, b, fsutil.DataMode); err != nil {
		// A full disk has no room for the new file, but the old one's
		// block takes the few bytes of the new state in place.
		if ierr := overwriteInPlace(name, b); ierr != nil {
			return diskErr(s.dir, "writing "+stateFile, err)
		}
	}
	s.persisted = s.state.Acked
	return nil
}

// overwriteInPlace replaces the contents of the existing regular file name
// with data, in place, and fsyncs it: what replaces state.json when the
// disk has no room for a new file. state.json is far smaller than a disk
// block, so the write needs no new block and lands in one sector.
func overwriteInPlace(name string, data []byte) error {
	f, err := openNoFollow(name, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.WriteAt(data, 0); err != nil {
		return err
	}
	if err := f.Truncate(int64(len(data))); err != nil {
		return err
	}
	return f.Sync()
}

// finish marks a fully delivered spool done and removes its request log.
// A spool held only in memory leaves nothing behind.
func (s *Spool) finish() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state.Acked != s.next-1 {
		return nil
	}
	if s.memOnly { // nothing was written
		s.closed = true
		if s.madeDir {
			os.RemoveAll(s.dir)
		}
		return nil
	}
	s.state.Done = true
	if err := s.writeState(); err != nil {
		s.state.Done = false
		return err
	}
	s.closed = true
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
	return os.Remove(filepath.Join(s.dir, requestsFile))
}

// Close releases the spool; unacknowledged records stay on disk (and those
// held in memory are lost: see [RunLogger.End], which accounts for them).
func (s *Spool) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var err error
	s.closed = true
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
// open (or creation). A spool held only in memory has none.
func (s *Spool) reader() (*recordReader, error) {
	if s.memOnly {
		return &recordReader{}, nil
	}
	f, err := os.Open(filepath.Join(s.dir, requestsFile))
	if err != nil {
		return nil, fmt.Errorf("mlflow: reading spool %s: %w", s.dir, err)
	}
	return &recordReader{f: f, off: s.firstOff}, nil
}

// nextRecord returns the record after the acknowledged ones, from memory
// or from requests.jsonl (read through rd, which it advances), or ok=false
// while there is none yet.
func (s *Spool) nextRecord(rd *recordReader) (rec record, ok bool, err error) {
	s.mu.Lock()
	want := s.state.Acked + 1
	if len(s.mem) > 0 && s.mem[0].Seq == want {
		rec = s.mem[0]
		s.mu.Unlock()
		return rec, true, nil
	}
	onDisk, limit := want <= s.diskLast, s.size
	s.mu.Unlock()
	if !onDisk {
		return rec, false, nil
	}
	for {
		rec, ok, err = rd.next(limit)
		if err != nil || !ok {
			return rec, ok, err
		}
		switch {
		case rec.Seq == want:
			return rec, true, nil
		case rec.Seq > want:
			return rec, false, fmt.Errorf("mlflow: spool %s: record %d is missing (the next one on disk is %d)", s.dir, want, rec.Seq)
		}
	}
}

// committed returns the size of requests.jsonl's complete records.
func (s *Spool) committed() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.size
}

// recordReader reads complete records from requests.jsonl, from an offset,
// while the file is being appended to.
type recordReader struct {
	f   *os.File // nil: no file (a spool held in memory)
	off int64
	buf []byte // bytes read past off
}

// next returns the next complete record before limit (the end of the
// records known to be complete), or ok=false when there is none yet.
func (r *recordReader) next(limit int64) (rec record, ok bool, err error) {
	if r.f == nil {
		return rec, false, nil
	}
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
		at := r.off + int64(len(r.buf))
		if at >= limit {
			return rec, false, nil
		}
		chunk := make([]byte, min(256<<10, limit-at))
		n, err := r.f.ReadAt(chunk, at)
		r.buf = append(r.buf, chunk[:n]...)
		if n == 0 {
			if err == nil || errors.Is(err, io.EOF) {
				return rec, false, nil
			}
			return rec, false, err
		}
	}
}

func (r *recordReader) Close() error {
	if r.f == nil {
		return nil
	}
	return r.f.Close()
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
