package cliflag_test

import (
	"flag"
	"fmt"
	"io"

	"github.com/narlab/narlab/internal/cliflag"
)

// A command's flags checked by its table of ranges before it does any work.
func Example() {
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Int("steps", 500, "training steps")
	rules := cliflag.Rules{Bounds: func(key string) (cliflag.Bound, bool) {
		b, ok := map[string]cliflag.Bound{"train --steps": {Min: 1, Max: 100_000, Why: "training steps"}}[key]
		return b, ok
	}}
	_ = fs.Parse([]string{"--steps", "0"})
	fmt.Println(rules.Check(fs))
	// Output: --steps 0: out of range; accepted 1..100000 (training steps)
}
