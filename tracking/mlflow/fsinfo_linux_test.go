package mlflow

import (
	"path/filepath"
	"strings"
	"testing"
)

// The filesystem named in messages is the one holding the directory (or
// its nearest existing parent, for a spool not created yet).
func TestDescribeFS(t *testing.T) {
	dir := t.TempDir()
	got := describeFS(filepath.Join(dir, "not", "yet"))
	if !strings.Contains(got, " free of ") {
		t.Errorf("describeFS = %q; want the free space", got)
	}
	if mount, _ := mountOf(dir); mount == "" || !strings.HasPrefix(dir, strings.TrimSuffix(mount, "/")) {
		t.Errorf("mountOf(%s) = %q; want a mount point above it", dir, mount)
	}
}
