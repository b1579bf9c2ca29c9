package mlflow

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"

	"github.com/google/uuid"
)

// What the spool does when its disk does not take a record (a full
// filesystem, a quota, an I/O error): the record is kept in memory and
// delivered from there, and the spool goes back to disk as soon as it can.
// See the section "A disk that does not take the spool" on [Spool].

// DefaultMaxMemory bounds the bytes of requests a spool holds in memory
// while its disk does not take them and the server does not answer; beyond
// it new requests are dropped and counted as lost ([LostError]).
const DefaultMaxMemory = 256 << 20

// maxArtifactInMemory is the largest file artifact whose contents are read
// into memory when the disk does not take its copy; a larger one is
// uploaded from its own path.
const maxArtifactInMemory = 16 << 20

// ErrLost is wrapped by the error of a run (see [LostError]) some of whose
// requests neither the spool's disk nor the server took before the run
// ended: they are gone, and the error counts them.
var ErrLost = errors.New("logged values lost")

// A DiskError is a failure to write the spool's files: a full filesystem,
// a quota, an I/O error. It names the filesystem and what it had free.
type DiskError struct {
	Dir  string // the spool's directory
	What string // what was being written, e.g. "writing requests.jsonl"
	FS   string // the filesystem, described (type, mount point, free space)
	Err  error
}

func (e *DiskError) Error() string {
	// The system's own words (no space left on device, disk quota
	// exceeded), without the temporary file names around them.
	cause := e.Err.Error()
	var errno syscall.Errno
	if errors.As(e.Err, &errno) {
		cause = errno.Error()
	}
	return fmt.Sprintf("%s in %s: %s (%s)", e.What, e.Dir, cause, e.FS)
}

func (e *DiskError) Unwrap() error { return e.Err }

// diskErr wraps a write failure in the spool dir as a *DiskError (an error
// that already is one is returned as it is).
func diskErr(dir, what string, err error) error {
	var de *DiskError
	if errors.As(err, &de) {
		return err
	}
	return &DiskError{Dir: dir, What: what, FS: describeFS(dir), Err: err}
}

// newMemorySpool is the spool of a run whose spool directory could not be
// created or written (cause, a *DiskError): it lives in memory only.
func newMemorySpool(dir string, meta SpoolMeta, cause error) *Spool {
	_, err := os.Lstat(dir)
	meta.Version = 1
	if meta.LocalID == "" {
		meta.LocalID = uuid.NewString()
	}
	return &Spool{dir: dir, meta: meta, next: 1, appended: make(chan struct{}, 1), maxMem: DefaultMaxMemory,
		memOnly: true, madeDir: errors.Is(err, os.ErrNotExist), diskErr: cause, lastDiskErr: cause}
}

// memSize is what a record held in memory costs.
func (rec record) memSize() int64 {
	return int64(len(rec.Body)+len(rec.data)+len(rec.Path)+len(rec.File)+len(rec.Experiment)+len(rec.ParentSpool)+len(rec.src)) + 64
}

// memFree returns the bytes of the memory budget left.
func (s *Spool) memFree() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxMem - s.memBytes
}

func (s *Spool) notify(format string, args ...any) {
	if s.logf != nil {
		s.logf(format, args...)
	}
}

// storeLocked writes rec (rec.Seq == s.next) to disk, or keeps it in
// memory when the disk does not take it.
func (s *Spool) storeLocked(rec record) error {
	if !s.memOnly && s.f != nil && !s.broken && s.spillLocked() {
		err := s.writeLocked(&rec)
		if err == nil {
			if s.diskErr != nil {
				if !s.backTold {
					s.notify("mlflow: the spool %s can be written again; the run's requests go to it as before", s.dir)
					s.backTold = true
				}
				s.diskErr = nil
			}
			return nil
		}
		var de *DiskError
		if !errors.As(err, &de) {
			return err
		}
		s.toMemoryLocked(err)
	}
	return s.keepLocked(rec)
}

// toMemoryLocked records that the disk did not take a write: err.
func (s *Spool) toMemoryLocked(err error) {
	if s.lastDiskErr == nil {
		s.notify("mlflow: the run's spool cannot be written: %v. What the run logs is kept in memory, in order, and sent "+
			"directly while %s answers; the spool is written again once it can be. Nothing is lost unless the process ends "+
			"before the server has taken it.", err, s.serverName())
	}
	s.diskErr, s.lastDiskErr = err, err
}

func (s *Spool) serverName() string {
	if s.meta.Tracking == "" || s.meta.Tracking == LocalTracking {
		return "the tracking server"
	}
	return s.meta.Tracking
}

// keepLocked holds rec in memory, or drops it (counted as lost) when the
// memory budget is spent.
func (s *Spool) keepLocked(rec record) error {
	size := rec.memSize()
	if s.memBytes+size > s.maxMem {
		if s.lost.empty() {
			s.notify("mlflow: the run's requests held in memory reached %d MiB, and neither the spool's disk nor %s takes them: "+
				"further ones are dropped, and counted when the run ends", s.maxMem>>20, s.serverName())
		}
		s.lost.add(rec)
		s.removeCopyOf(rec)
		return fmt.Errorf("mlflow: %s dropped (memory full, the spool's disk and the server unavailable): %w", rec.describe(), ErrLost)
	}
	s.mem = append(s.mem, rec)
	s.memBytes += size
	s.inMemory++
	return nil
}

// spillLocked writes the records held in memory to disk, in order, and
// reports whether memory holds none afterwards (so that a new record may
// go to disk). Records delivered from memory leave a gap in the disk's
// sequence, allowed only once state.json acknowledges the whole gap.
func (s *Spool) spillLocked() bool {
	if s.memOnly || s.f == nil || s.broken {
		return false
	}
	gapEnd := s.next - 1
	if len(s.mem) > 0 {
		gapEnd = s.mem[0].Seq - 1
	}
	if gapEnd > s.diskLast && s.persisted < gapEnd {
		if s.writeStateLocked() != nil || s.persisted < gapEnd {
			return false
		}
	}
	n := 0
	for len(s.mem) > 0 {
		rec := s.mem[0]
		if err := s.writeLocked(&rec); err != nil {
			s.diskErr = err
			return false
		}
		s.memBytes -= s.mem[0].memSize()
		s.mem[0] = record{}
		s.mem = s.mem[1:]
		n++
	}
	if n > 0 {
		if !s.backTold {
			s.notify("mlflow: the spool %s can be written again; the %d requests held in memory were written to it", s.dir, n)
			s.backTold = true
		}
		s.diskErr = nil
	}
	return true
}

// writeStateLocked replaces state.json; when it cannot, the
// acknowledgments stay in memory (see [Spool]) and the first failure is
// told.
func (s *Spool) writeStateLocked() error {
	err := s.writeState()
	switch {
	case err != nil && s.stateErr == nil:
		s.notify("mlflow: %v; the run's acknowledgments are kept in memory (a later `narlab mlflow sync` "+
			"checks the server before it sends anything again)", err)
		s.stateErr = err
	case err == nil:
		s.stateErr = nil
	}
	return err
}

// removeCopyOf removes the artifact copy that a record held in memory
// names (written when the disk took the copy but not the record).
func (s *Spool) removeCopyOf(rec record) {
	if rec.Op == opArtifact && rec.File != "" && !s.memOnly {
		s.removeArtifactCopy(rec)
	}
}

// settleMemory is called when a run stops: what memory still holds is
// written to disk if it can be, and is lost otherwise. It returns the
// losses of the spool's life (nil: none).
func (s *Spool) settleMemory(server error) *LostError {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.mem) > 0 {
		s.spillLocked()
	}
	for _, rec := range s.mem {
		s.lost.add(rec)
		s.removeCopyOf(rec)
	}
	s.mem, s.memBytes = nil, 0
	if s.lost.empty() {
		return nil
	}
	return &LostError{Points: s.lost.points, Other: s.lost.others(), Disk: s.lastDiskErr, Server: server}
}

// memoryUse says how many records went to memory over the spool's life
// and why the disk did not take them (nil: it always did).
func (s *Spool) memoryUse() (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inMemory, s.lastDiskErr
}

// where says where undelivered requests wait.
func (s *Spool) where() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.memOnly:
		return "memory (the spool " + s.dir + " could not be created)"
	case len(s.mem) > 0:
		return "the spool " + s.dir + " and memory (the spool's disk does not take them)"
	}
	return "the spool " + s.dir
}

// How a lost run creation and end are told.
const (
	lostCreate = "the run's creation"
	lostEnd    = "the run's end status"
)

// lostTally counts the requests a spool lost.
type lostTally struct {
	points       map[string]int64
	params, tags int
	other        []string
}

func (l *lostTally) empty() bool {
	return len(l.points) == 0 && len(l.other) == 0 && l.params == 0 && l.tags == 0
}

// others describes the lost requests other than metric points.
func (l *lostTally) others() []string {
	created := !slices.Contains(l.other, lostCreate)
	var out []string
	for _, o := range l.other {
		if o == lostEnd && created {
			o += " (the run is left RUNNING on the server)"
		}
		out = append(out, o)
	}
	if l.params > 0 {
		out = append(out, fmt.Sprintf("%d params", l.params))
	}
	if l.tags > 0 {
		out = append(out, fmt.Sprintf("%d tag values", l.tags))
	}
	return out
}

func (l *lostTally) add(rec record) {
	switch rec.Op {
	case opLogBatch:
		b, err := decodeBatch(rec.Body)
		if err != nil {
			l.other = append(l.other, "a log-batch request")
			return
		}
		for _, m := range b.Metrics {
			if l.points == nil {
				l.points = map[string]int64{}
			}
			l.points[m.Key]++
		}
		l.params += len(b.Params)
		l.tags += len(b.Tags)
	case opCreateRun:
		l.other = append(l.other, lostCreate)
	case opAttachRun:
		l.other = append(l.other, "the run's resumption")
	case opUpdateRun:
		l.other = append(l.other, lostEnd)
	case opArtifact:
		l.other = append(l.other, "artifact "+rec.Path)
	case opLogInputs:
		l.other = append(l.other, "the run's dataset inputs")
	case opDeleteTag:
		l.other = append(l.other, "a tag deletion")
	default:
		l.other = append(l.other, "a "+rec.Op+" request")
	}
}

// A LostError counts what a run logged that neither its spool's disk nor
// the tracking server took before the run ended. It wraps [ErrLost].
type LostError struct {
	Points map[string]int64 // metric points lost, by key
	Other  []string         // the other requests lost, described ("artifact plots/x.png", "3 params", …)
	Disk   error            // why the spool did not take them (a *DiskError), or nil
	Server error            // the server's last failure, or nil
}

// LostPoints returns the number of metric points lost.
func (e *LostError) LostPoints() int64 {
	var n int64
	for _, c := range e.Points {
		n += c
	}
	return n
}

func (e *LostError) Error() string {
	var parts []string
	if n := e.LostPoints(); n > 0 {
		keys := make([]string, 0, len(e.Points))
		for k := range e.Points {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var per []string
		for _, k := range keys {
			per = append(per, fmt.Sprintf("%s: %d", k, e.Points[k]))
		}
		parts = append(parts, fmt.Sprintf("%d metric points (%s)", n, strings.Join(per, ", ")))
	}
	if len(e.Other) > 0 {
		other := e.Other
		if len(other) > 12 {
			other = append(other[:12:12], fmt.Sprintf("%d more", len(e.Other)-12))
		}
		parts = append(parts, fmt.Sprintf("%d other requests (%s)", len(e.Other), strings.Join(other, ", ")))
	}
	why := "the spool's disk did not take them"
	if e.Disk != nil {
		why = fmt.Sprintf("the spool's disk did not take them (%v)", e.Disk)
	}
	server := "the tracking server did not take them before the run ended"
	if e.Server != nil {
		server = fmt.Sprintf("the tracking server did not take them before the run ended (%v)", e.Server)
	}
	return fmt.Sprintf("mlflow: %s were lost: %s, and %s", strings.Join(parts, " and "), why, server)
}

func (e *LostError) Unwrap() error { return ErrLost }

// describeFS describes the filesystem holding path (or its nearest
// existing parent) for messages: its type and mount point where the
// platform says, and its free and total space.
func describeFS(path string) string {
	p, err := filepath.Abs(path)
	if err != nil {
		p = path
	}
	for {
		if _, err := os.Stat(p); err == nil {
			break
		}
		parent := filepath.Dir(p)
		if parent == p {
			break
		}
		p = parent
	}
	return fsDescription(p)
}

// bytesText writes a byte count for a message: 0 B, 512 B, 64 KiB, 3.2 GiB.
func bytesText(n uint64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n), -1
	for v >= unit && i < 4 {
		v /= unit
		i++
	}
	s := fmt.Sprintf("%.1f", v)
	s = strings.TrimSuffix(s, ".0")
	return s + " " + []string{"KiB", "MiB", "GiB", "TiB", "PiB"}[i]
}
