package fsutil

import (
	"os"

	"golang.org/x/sys/unix"
)

// startWriteback asks the kernel to start writing f's data to disk without
// waiting for it (sync_file_range, SYNC_FILE_RANGE_WRITE), so that the
// sync that follows has little left to do. Errors are ignored: that sync
// reports them.
func startWriteback(f *os.File) {
	if rc, err := f.SyscallConn(); err == nil {
		rc.Control(func(fd uintptr) { unix.SyncFileRange(int(fd), 0, 0, unix.SYNC_FILE_RANGE_WRITE) })
	}
}
