//go:build !linux || !cgo

package hugepages

// Reexec does nothing here: without cgo there is no glibc malloc (nor XLA)
// to steer, and the tunable is Linux's.
func Reexec() {}
