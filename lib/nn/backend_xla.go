//go:build cgo && !noxla

package nn

// XLA/PJRT (cgo): the CPU and CUDA plugins. Build with -tags noxla (or
// CGO_ENABLED=0) for a binary with the pure-Go backend only.
import "github.com/gomlx/go-xla/compute/xla"

// noPluginDownloads turns go-xla's plugin downloads off before narlab
// makes an XLA backend: go-xla downloads plugins from GitHub when it finds
// none, which is unreachable here and at many sites, and narlab installs
// them from PyPI instead (make setup, make gpu). go-xla reads
// GOMLX_NO_AUTO_INSTALL only when its package initialises, so setting the
// variable later changes nothing; its switch is turned off here, when a
// backend is made, not on import.
func noPluginDownloads() { xla.EnableAutoInstall(false) }
