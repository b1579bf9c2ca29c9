// Package fsutil holds narlab's one atomic file writer and its one JSONL
// reader and writer. Every file narlab writes goes through WriteFile or
// Write, so an interrupted command never leaves a half-written file behind,
// and every JSON-lines input is read by ReadJSONL or ScanLines with the same
// documented line limit (MaxLine).
package fsutil

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// Modes for WriteFile and Write. Data, checkpoints and figures are
// DataMode; files that hold secrets (tokens, passwords) are SecretMode.
// Both are reduced by the process umask, as os.WriteFile does.
const (
	DataMode   os.FileMode = 0o644
	SecretMode os.FileMode = 0o600
	DirMode    os.FileMode = 0o755
)

// umask is the process umask, read once at start-up (reading it means
// setting it, which is only safe before other goroutines create files).
var umask = func() os.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return os.FileMode(m)
}()

// Umask returns the process umask read at start-up.
func Umask() os.FileMode { return umask }

// WriteFile writes data to path atomically: parent directories are created,
// the bytes go to a uniquely named temporary file in the same directory,
// which is synced, given mode perm (less the umask) and renamed over path.
// Readers see either the old file or the whole new one, never a part.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write is WriteFile for content produced by a function: write streams
// into the temporary file, and nothing appears at path unless it returns
// nil. Use it for large outputs that should not be built in memory.
func Write(path string, perm os.FileMode, write func(w io.Writer) error) error {
	tmp, err := writeTemp(path, perm, write)
	if err != nil {
		return err
	}
	if err := syncAndRename(tmp, path); err != nil {
		return err
	}
	SyncDir(filepath.Dir(path))
	return nil
}

// writeTemp writes a file's content to a new temporary file beside path
// (parent directories created), gives it mode perm less the umask and
// returns it open; on failure nothing is left behind.
func writeTemp(path string, perm os.FileMode, write func(w io.Writer) error) (tmp *os.File, err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, DirMode); err != nil {
		return nil, fmt.Errorf("create directory for %s: %w", path, err)
	}
	tmp, err = os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	if err = write(tmp); err == nil {
		err = tmp.Chmod(perm &^ umask)
	}
	if err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return tmp, nil
}

// syncAndRename syncs and closes a temporary file and renames it over
// path; on failure the temporary file is removed.
func syncAndRename(tmp *os.File, path string) error {
	err := tmp.Sync()
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Batch writes many files atomically together, for commands that write
// dozens of files in a row: each file's sync before its rename, and its
// directory's after it, is a journal commit that costs as much as writing
// a small file, and the kernel runs it on the cores the command uses.
// Write puts a file's content in a temporary file beside its path and
// asks the kernel to start writing it to disk; Commit syncs all of them
// at once, renames each into place and syncs each directory once. Until
// Commit returns, every path keeps what it held (a crash leaves the
// temporary files, named .NAME.tmp-*); Abort removes them. Each file is
// held open until then. A Batch is safe for concurrent use.
type Batch struct {
	mu      sync.Mutex
	pending []pendingFile
}

type pendingFile struct {
	tmp  *os.File
	path string
}

// Write writes path's content into the batch (see Write).
func (b *Batch) Write(path string, perm os.FileMode, write func(w io.Writer) error) error {
	tmp, err := writeTemp(path, perm, write)
	if err != nil {
		return err
	}
	startWriteback(tmp)
	b.mu.Lock()
	b.pending = append(b.pending, pendingFile{tmp, path})
	b.mu.Unlock()
	return nil
}

// Commit syncs every file written to the batch (concurrently, so that the
// file system commits them together), renames each over its path and
// syncs their directories. It returns the errors of the files that could
// not be committed; those are removed, the others are in place.
func (b *Batch) Commit() error {
	b.mu.Lock()
	pending := b.pending
	b.pending = nil
	b.mu.Unlock()
	errs := make([]error, len(pending))
	var wg sync.WaitGroup
	for i, p := range pending {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = syncAndRename(p.tmp, p.path)
		}()
	}
	wg.Wait()
	dirs := map[string]bool{}
	for _, p := range pending {
		if d := filepath.Dir(p.path); !dirs[d] {
			dirs[d] = true
			SyncDir(d)
		}
	}
	return errors.Join(errs...)
}

// Abort removes the files written to the batch since the last Commit.
func (b *Batch) Abort() {
	b.mu.Lock()
	pending := b.pending
	b.pending = nil
	b.mu.Unlock()
	for _, p := range pending {
		p.tmp.Close()
		os.Remove(p.tmp.Name())
	}
}

// SyncDir makes the entries created or renamed in dir durable; errors are
// ignored because some file systems do not support syncing a directory.
func SyncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// CheckCreatableDir reports whether files could be created in dir, without
// creating anything: dir is a writable directory, or the nearest of its
// ancestors that exists is one (writers create the rest, as Write does).
// Commands check their output paths with it before any work, so a command
// that then fails on another check leaves no empty directory behind.
func CheckCreatableDir(dir string) error {
	d := filepath.Clean(dir)
	for {
		st, err := os.Stat(d)
		if err == nil {
			if !st.IsDir() {
				return fmt.Errorf("output directory %s: %s is not a directory", dir, d)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("output directory %s: %w", dir, err)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return fmt.Errorf("output directory %s: none of its parents exists", dir)
		}
		d = parent
	}
	if err := probeWritable(d); err != nil {
		if d != filepath.Clean(dir) {
			return fmt.Errorf("output directory %s cannot be created in %s: %w", dir, d, err)
		}
		return fmt.Errorf("output directory %s is not writable: %w", dir, err)
	}
	return nil
}

// probeWritable creates and removes a file in dir.
func probeWritable(dir string) error {
	f, err := os.CreateTemp(dir, ".narlab-writable-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// CheckWritableDir reports whether files can be created in dir (creating
// it if needed), so a command can fail before doing any work rather than
// at its first save.
func CheckWritableDir(dir string) error {
	if err := os.MkdirAll(dir, DirMode); err != nil {
		return fmt.Errorf("output directory %s: %w", dir, err)
	}
	if err := probeWritable(dir); err != nil {
		return fmt.Errorf("output directory %s is not writable: %w", dir, err)
	}
	return nil
}
