//go:build unix

package flock

import (
	"os"
	"path/filepath"
	"testing"
)

// Two open file descriptions of one file contend for its lock as two
// processes would.
func TestTryLockLockUnlock(t *testing.T) {
	p := filepath.Join(t.TempDir(), "lock")
	open := func() *os.File {
		f, err := os.OpenFile(p, os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	a, b := open(), open()
	if ok, err := TryLock(a); !ok || err != nil {
		t.Fatalf("TryLock(a) = %v, %v; want true, nil", ok, err)
	}
	if ok, err := TryLock(b); ok || err != nil {
		t.Fatalf("TryLock(b) while a holds it = %v, %v; want false, nil", ok, err)
	}
	done := make(chan error)
	go func() { done <- Lock(b) }()
	if err := Unlock(a); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Lock(b) after a's Unlock: %v", err)
	}
	if ok, err := TryLock(a); ok || err != nil {
		t.Fatalf("TryLock(a) while b holds it = %v, %v; want false, nil", ok, err)
	}
	b.Close() // closing drops the lock
	if ok, err := TryLock(a); !ok || err != nil {
		t.Fatalf("TryLock(a) after b closed = %v, %v; want true, nil", ok, err)
	}
}

// A closed file is an error, not a lock held by someone else.
func TestTryLockClosed(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "lock"))
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if ok, err := TryLock(f); ok || err == nil {
		t.Fatalf("TryLock(closed) = %v, %v; want false and an error", ok, err)
	}
}
