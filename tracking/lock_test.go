package tracking

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestLockRunDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	l, err := LockRunDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	// flock locks belong to an open file, so a second open in this
	// process is refused as another process's would be.
	_, err = LockRunDir(dir)
	if !errors.Is(err, ErrRunDirBusy) || !strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("second lock: %v, want ErrRunDirBusy naming pid %d", err, os.Getpid())
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	l2, err := LockRunDir(dir)
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	l2.Release()
	// A file where the directory should be is an error, not a lock.
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, nil, 0o644)
	if _, err := LockRunDir(f); err == nil {
		t.Error("locked a regular file as a run directory")
	}
}
