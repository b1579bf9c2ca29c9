package nn

import (
	"os"
	"strings"
	"testing"
)

// The markers around the generated processors table in docs/baselines.md.
const (
	tableBegin = "<!-- processors table: generated from lib/nn's registry by TestProcessorsDocTable; NARLAB_UPDATE_DOCS=1 rewrites it -->\n"
	tableEnd   = "<!-- end of processors table -->\n"
)

// TestProcessorsDocTable checks that docs/baselines.md's processors table
// is the registry's (processorsTable): a processor added or changed shows
// there. With NARLAB_UPDATE_DOCS=1 it rewrites the table instead.
func TestProcessorsDocTable(t *testing.T) {
	const path = "../../docs/baselines.md"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i, j := strings.Index(doc, tableBegin), strings.Index(doc, tableEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no processors table between the markers %q and %q", path, tableBegin, tableEnd)
	}
	want := processorsTable()
	got := doc[i+len(tableBegin) : j]
	if got == want {
		return
	}
	if os.Getenv("NARLAB_UPDATE_DOCS") == "1" {
		if err := os.WriteFile(path, []byte(doc[:i+len(tableBegin)]+want+doc[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote the processors table of %s", path)
		return
	}
	t.Errorf("%s's processors table is not the registry's; rerun with NARLAB_UPDATE_DOCS=1 to rewrite it. Want:\n%s", path, want)
}
