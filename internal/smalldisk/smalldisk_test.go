package smalldisk

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// The filesystem is real and small: a write past its size fails with
// ENOSPC; Fill leaves no byte free, Unfill gives the room back.
func TestRun(t *testing.T) {
	Run(t, 32<<10, func(t *testing.T, dir string) {
		err := os.WriteFile(filepath.Join(dir, "big"), make([]byte, 64<<10), 0o644)
		if !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("writing 64 KiB into a 32 KiB filesystem: %v; want ENOSPC", err)
		}
		if err := os.Remove(filepath.Join(dir, "big")); err != nil {
			t.Fatal(err)
		}
		if free := Free(t, dir); free < 28<<10 {
			t.Fatalf("%d bytes free in an empty 32 KiB filesystem", free)
		}
		Fill(t, dir)
		if err := os.WriteFile(filepath.Join(dir, "one"), []byte("x"), 0o644); !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("writing a byte into a full filesystem: %v; want ENOSPC", err)
		}
		Unfill(t, dir)
		if err := os.WriteFile(filepath.Join(dir, "two"), []byte("x"), 0o644); err != nil {
			t.Fatalf("writing a byte after Unfill: %v", err)
		}
	})
}
