//go:build cgo && !noxla

package nn

// XLA/PJRT (cgo): the CPU and CUDA plugins. Build with -tags noxla (or
// CGO_ENABLED=0) for a binary with the pure-Go backend only.
import _ "github.com/gomlx/go-xla/compute/xla"
