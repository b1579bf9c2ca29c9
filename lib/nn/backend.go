package nn

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/gomlx/gomlx/backends"
	_ "github.com/gomlx/gomlx/backends/simplego" // the pure-Go backend, "go"
)

// Backend returns the GoMLX backend named by config ("go" — run as
// "go:ops_sequential", see below — any "go:…" simplego config, or
// "xla:PLUGIN" in binaries built with -tags xla); empty config means
// $GOMLX_BACKEND, and "go" when that is unset too.
func Backend(config string) (backends.Backend, error) {
	if config == "" {
		config = os.Getenv("GOMLX_BACKEND")
	}
	if config == "" || config == "go" {
		// The default parallel op scheduling of gomlx v0.26.0's simplego
		// deadlocks on small matrix products (workers waiting on workers);
		// sequential ops are safe and parallelise inside each op.
		config = "go:ops_sequential"
	}
	name, _, _ := strings.Cut(config, ":")
	if !slices.Contains(backends.List(), name) {
		return nil, fmt.Errorf("nn: unknown backend %q (registered: %v; XLA needs a binary built with -tags xla)", config, backends.List())
	}
	b, err := backends.NewWithConfig(config)
	if err != nil {
		return nil, fmt.Errorf("nn: backend %q: %w (registered: %v; XLA needs a binary built with -tags xla)", config, err, backends.List())
	}
	return b, nil
}
