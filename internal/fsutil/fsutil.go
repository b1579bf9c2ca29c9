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

// WriteOption changes how Write makes its file durable.
type WriteOption func(*writeConfig)

type writeConfig struct{ skipDirSync bool }

// SkipDirSync leaves the directory unsynced after the rename: the caller
// writing many files into one directory syncs it once (SyncDir) after the
// last, instead of once per file. Each file is still synced before it is
// renamed, so none is ever seen half-written; until the directory is
// synced, a crash may lose the renames.
func SkipDirSync() WriteOption { return func(c *writeConfig) { c.skipDirSync = true } }

// Write is WriteFile for content produced by a function: write streams
// into the temporary file, and nothing appears at path unless it returns
// nil. Use it for large outputs that should not be built in memory.
func Write(path string, perm os.FileMode, write func(w io.Writer) error, opts ...WriteOption) (err error) {
	var cfg writeConfig
	for _, o := range opts {
		o(&cfg)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, DirMode); err != nil {
		return fmt.Errorf("create directory for %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = write(tmp); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Chmod(perm &^ umask); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if !cfg.skipDirSync {
		SyncDir(dir)
	}
	return nil
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
