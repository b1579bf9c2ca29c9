//go:build !linux

package mlflow

// fsDescription names the filesystem holding p (its free space is not
// read on this platform).
func fsDescription(p string) string { return "the filesystem of " + p }
