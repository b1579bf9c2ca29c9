package tracking

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/narlab/narlab/internal/flock"
	"github.com/narlab/narlab/internal/fsutil"
)

// RunDirLockFile is the lock file a training process holds in its run
// directory (see [LockRunDir]).
const RunDirLockFile = ".narlab-lock"

// ErrRunDirBusy is returned by [LockRunDir] when another process holds the
// run directory.
var ErrRunDirBusy = errors.New("run directory in use")

// A RunDirLock is held on a run directory while a process trains in it.
type RunDirLock struct{ f *os.File }

// LockRunDir takes the run directory dir (created if needed) for this
// process: an exclusive lock (flock) on dir/.narlab-lock, which holds the
// pid and start time of its holder. A second process fails at once with an
// error wrapping [ErrRunDirBusy] that names the holder. The lock goes away
// with the process, however it ends; Release drops it earlier.
func LockRunDir(dir string) (*RunDirLock, error) {
	if err := fsutil.CheckWritableDir(dir); err != nil {
		return nil, err
	}
	p := filepath.Join(dir, RunDirLockFile)
	f, err := os.OpenFile(p, os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW, fsutil.DataMode)
	if err != nil {
		return nil, fmt.Errorf("locking run directory %s: %w", dir, err)
	}
	if ok, err := flock.TryLock(f); !ok {
		f.Close()
		if err == nil {
			holder, _ := os.ReadFile(p)
			who := string(bytes.TrimSpace(holder))
			if who == "" {
				who = "another process"
			}
			return nil, fmt.Errorf("%w: %s is held by %s; wait for it to finish, stop it, or use another --dir", ErrRunDirBusy, dir, who)
		}
		return nil, fmt.Errorf("locking run directory %s: %w", dir, err)
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte("pid "+strconv.Itoa(os.Getpid())+" (since "+time.Now().Format(time.RFC3339)+")\n"), 0)
	return &RunDirLock{f: f}, nil
}

// Release drops the lock.
func (l *RunDirLock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	_ = flock.Unlock(l.f)
	err := l.f.Close()
	l.f = nil
	return err
}
