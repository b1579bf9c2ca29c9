//go:build linux && cgo

package hugepages

import (
	"os"
	"syscall"
)

// Reexec starts the running program again, with the same arguments and
// the tunable added to its environment, when Wanted says so; it returns
// only when it does not (or when exec fails, which leaves the program
// running as it was). Call it first thing in main (or TestMain), before any
// goroutine or file depends on the process.
func Reexec() {
	if !Wanted() {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	_ = syscall.Exec(exe, os.Args, Environ(os.Environ()))
}
