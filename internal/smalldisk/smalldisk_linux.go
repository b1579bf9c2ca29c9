//go:build linux

package smalldisk

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// envDir tells a test binary run again inside a user namespace where its
// small filesystem is mounted; envSize its size.
const (
	envDir  = "NARLAB_SMALLDISK_DIR"
	envSize = "NARLAB_SMALLDISK_SIZE"
	// EnvUserNS, set to 1, makes Run use the user namespace even as root
	// (to test that path where root could mount directly).
	EnvUserNS = "NARLAB_SMALLDISK_USERNS"
)

// tmpfsMagic is statfs's f_type of a tmpfs.
const tmpfsMagic = 0x01021994

// Run calls fn with the directory of a fresh tmpfs of size bytes (rounded
// up to whole pages by the kernel) that this process and its children see;
// see the package comment for how. t must be a top-level test or subtest
// whose name selects it alone (-test.run).
func Run(t *testing.T, size int64, fn func(t *testing.T, dir string)) {
	t.Helper()
	if dir := os.Getenv(envDir); dir != "" {
		// Inside the namespace of a parent test process.
		if os.Getenv(envSize) != strconv.FormatInt(size, 10) {
			t.Fatalf("smalldisk: the parent mounted %s bytes at %s, this test asks %d", os.Getenv(envSize), dir, size)
		}
		checkTmpfs(t, dir)
		fn(t, dir)
		return
	}
	dir := filepath.Join(t.TempDir(), "smalldisk")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var why []string
	if os.Geteuid() == 0 && os.Getenv(EnvUserNS) != "1" {
		err := syscall.Mount("narlab-smalldisk", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, fmt.Sprintf("size=%d,mode=0755", size))
		if err == nil {
			t.Cleanup(func() {
				if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
					t.Errorf("smalldisk: unmounting %s: %v", dir, err)
				}
			})
			checkTmpfs(t, dir)
			fn(t, dir)
			return
		}
		why = append(why, fmt.Sprintf("mounting a tmpfs as root: %v", err))
	}
	if err := probeUserNS(dir, size); err != nil {
		why = append(why, fmt.Sprintf("mounting one in a user namespace (unshare --user --map-root-user --mount): %v", err))
		unavailable(t, strings.Join(why, "; "))
		return
	}
	runInside(t, dir, size)
}

// unavailable fails the test under CI=true and skips it elsewhere.
func unavailable(t *testing.T, why string) {
	t.Helper()
	msg := "smalldisk: this test needs a small real filesystem, and none could be made here (" + why + "). " +
		"Run it as root, or where unprivileged user namespaces are allowed (sysctl kernel.unprivileged_userns_clone=1; " +
		"on Ubuntu also kernel.apparmor_restrict_unprivileged_userns=0)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip("SKIPPED: " + msg)
}

// mountScript mounts a tmpfs of size "$1" on "$2" and runs the rest of
// its arguments.
const mountScript = `set -e; mount --make-rprivate / 2>/dev/null || true; mount -t tmpfs -o "size=$1,mode=0755" narlab-smalldisk "$2"; shift 2; exec "$@"`

func unshareCmd(dir string, size int64, args ...string) *exec.Cmd {
	return exec.Command("unshare", append([]string{"--user", "--map-root-user", "--mount", "sh", "-c", mountScript, "smalldisk",
		strconv.FormatInt(size, 10), dir}, args...)...)
}

// probeUserNS checks that a tmpfs can be mounted in a user namespace.
func probeUserNS(dir string, size int64) error {
	if _, err := exec.LookPath("unshare"); err != nil {
		return err
	}
	out, err := unshareCmd(dir, size, "true").CombinedOutput()
	if err != nil {
		return fmt.Errorf("%v: %s", err, bytes.TrimSpace(out))
	}
	return nil
}

// runInside runs t again in a child test process inside a new user and
// mount namespace with the tmpfs mounted on dir, and takes its verdict.
func runInside(t *testing.T, dir string, size int64) {
	t.Helper()
	var pattern []string
	for _, part := range strings.Split(t.Name(), "/") {
		pattern = append(pattern, "^"+regexp.QuoteMeta(part)+"$")
	}
	args := []string{os.Args[0], "-test.run=" + strings.Join(pattern, "/"), "-test.v", "-test.count=1"}
	if testing.Short() {
		args = append(args, "-test.short")
	}
	cmd := unshareCmd(dir, size, args...)
	cmd.Env = append(os.Environ(), envDir+"="+dir, envSize+"="+strconv.FormatInt(size, 10))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	t.Logf("smalldisk: ran in a user namespace with a %d-byte tmpfs on %s:\n%s", size, dir, out.String())
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		t.Fatalf("smalldisk: the test failed in its user namespace (%v)", err)
	case err != nil:
		t.Fatalf("smalldisk: running the test in a user namespace: %v", err)
	case !bytes.Contains(out.Bytes(), []byte("--- PASS: "+t.Name()+" ")):
		if bytes.Contains(out.Bytes(), []byte("--- SKIP: "+t.Name()+" ")) {
			t.Skip("SKIPPED in its user namespace (see the log)")
		}
		t.Fatalf("smalldisk: the test did not pass in its user namespace (no PASS line for %s)", t.Name())
	}
}

// checkTmpfs checks that dir is the root of a tmpfs.
func checkTmpfs(t *testing.T, dir string) {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatalf("smalldisk: %v", err)
	}
	if int64(st.Type) != tmpfsMagic {
		t.Fatalf("smalldisk: %s is not on a tmpfs (type %#x)", dir, st.Type)
	}
}

// Fill writes a file into dir until its filesystem is full; nothing is
// left to a later write (on a tmpfs, not even a page).
func Fill(t testing.TB, dir string) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for n := len(buf); n > 0; {
		_, err := f.Write(buf[:n])
		if errors.Is(err, syscall.ENOSPC) {
			n /= 2
			continue
		}
		if err != nil {
			t.Fatalf("smalldisk: filling %s: %v", dir, err)
		}
	}
	if err := f.Sync(); err != nil && !errors.Is(err, syscall.ENOSPC) {
		t.Fatal(err)
	}
	if free := Free(t, dir); free != 0 {
		t.Fatalf("smalldisk: %s still has %d bytes free after filling it", dir, free)
	}
}

// Free returns the bytes free on dir's filesystem.
func Free(t testing.TB, dir string) int64 {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	return int64(st.Bavail) * int64(st.Bsize)
}

// Unfill removes what Fill wrote, so the filesystem has room again.
func Unfill(t testing.TB, dir string) {
	t.Helper()
	if err := os.Remove(filepath.Join(dir, "filler")); err != nil {
		t.Fatal(err)
	}
}
