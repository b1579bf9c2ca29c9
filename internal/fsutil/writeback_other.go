//go:build !linux

package fsutil

import "os"

// startWriteback does nothing where sync_file_range is missing: the sync
// before the rename writes everything.
func startWriteback(f *os.File) {}
