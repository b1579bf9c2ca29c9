//go:build xla

package nn

import _ "github.com/gomlx/gomlx/backends/xla" // XLA/PJRT (cgo): CPU and CUDA plugins
