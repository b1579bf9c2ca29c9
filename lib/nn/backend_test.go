package nn

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gomlx/compute"
)

// TestCheckBackend: the pre-work check of a --backend value says what is
// wrong without starting anything; a sweep (pluginHere false) does not look
// for a plugin file meant for another machine.
func TestCheckBackend(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing_plugin.so")
	xla := slices.Contains(compute.List(), "xla")
	for _, c := range []struct {
		name, config string
		pluginHere   bool
		needsXLA     bool
		want         string // a part of the error; "" for none
	}{
		{"pure Go", "go", true, false, ""},
		{"unknown name", "foo", true, false, `unknown backend "foo" (this binary has: `},
		{"missing plugin here", "xla:" + missing, true, true, "the XLA plugin " + missing},
		{"missing plugin on another machine", "xla:" + missing, false, true, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.needsXLA && !xla {
				t.Skip("this binary has no XLA backend (cgo off or -tags noxla)")
			}
			err := CheckBackend(c.config, c.pluginHere)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v; want one with %q", err, c.want)
			}
		})
	}
	// The list of backends in the message is sorted (it was in map order).
	err := CheckBackend("foo", true)
	list := err.Error()[strings.Index(err.Error(), "has: ")+5:]
	list = list[:strings.Index(list, ";")]
	if names := strings.Split(list, ", "); !slices.IsSorted(names) {
		t.Errorf("backends listed out of order: %v", names)
	}
}
