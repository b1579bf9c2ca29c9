//go:build !(cgo && !noxla && linux && (amd64 || arm64))

package engine

// KeepBuffers is malloc_linux.go's switch between evaluation and training
// modes; elsewhere the system's allocator is left as it is.
func KeepBuffers(bool) {}

// setUpMalloc is malloc_linux.go's set-up; elsewhere there is none.
func setUpMalloc() {}
