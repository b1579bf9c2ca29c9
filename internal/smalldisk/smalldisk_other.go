//go:build !linux

package smalldisk

import (
	"os"
	"testing"
)

// EnvUserNS is as on Linux; unused here.
const EnvUserNS = "NARLAB_SMALLDISK_USERNS"

// Run cannot make a small filesystem on this platform: under CI=true the
// test fails, elsewhere it is skipped.
func Run(t *testing.T, size int64, fn func(t *testing.T, dir string)) {
	t.Helper()
	msg := "smalldisk: this test needs a small real filesystem (a tmpfs), which narlab's tests make on Linux only"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip("SKIPPED: " + msg)
}

// Fill is not available on this platform.
func Fill(t testing.TB, dir string) { t.Helper(); t.Fatal("smalldisk: Fill needs Linux") }

// Unfill is not available on this platform.
func Unfill(t testing.TB, dir string) { t.Helper(); t.Fatal("smalldisk: Unfill needs Linux") }

// Free is not available on this platform.
func Free(t testing.TB, dir string) int64 {
	t.Helper()
	t.Fatal("smalldisk: Free needs Linux")
	return 0
}
