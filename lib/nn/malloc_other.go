//go:build !(cgo && !noxla && linux && (amd64 || arm64))

package nn

// keepBuffers is malloc_linux.go's switch between evaluation and training
// modes; elsewhere the system's allocator is left as it is.
func keepBuffers(bool) {}
