//go:build unix

// Package flock is narlab's one way to take a whole-file advisory lock
// (flock(2)): the run directory of a training, a sweep cell, the MLflow
// spool and the server directories of internal/launch all lock through it.
// The kernel drops a lock when its holder exits, however it exits, so a
// killed process never leaves a stale lock behind. On a shared file system
// the locks need the file system's support (NFSv4 and Lustre have it).
package flock

import (
	"errors"
	"os"
	"syscall"
)

// TryLock takes an exclusive lock on f without waiting; it reports false
// (and no error) when another open file description holds it.
func TryLock(f *os.File) (bool, error) {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

// Lock takes an exclusive lock on f, waiting for it.
func Lock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX) }

// Unlock drops the lock on f (closing f drops it too).
func Unlock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// Share takes a shared lock on f, waiting for it, or turns the exclusive
// lock f holds into a shared one (flock(2) converts it, though not
// atomically: another process may take the lock in between). Many open
// file descriptions can hold a shared lock at once; none of them can then
// take it exclusively, so an exclusive TryLock tells a process whether
// anyone else holds it at all.
func Share(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_SH) }
