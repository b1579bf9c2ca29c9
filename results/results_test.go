package results

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPagesUpToDate renders every page from the committed rows and fails
// when the committed page differs: a figure typed into a page by hand, or
// rows appended without `go generate ./results`.
func TestPagesUpToDate(t *testing.T) {
	pages, err := Render("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range Pages {
		got, err := os.ReadFile(filepath.Join("..", p))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, pages[p]) {
			t.Errorf("%s differs from what results/*.jsonl renders (first difference at line %d): run `go generate ./results` and commit",
				p, firstDiffLine(got, pages[p]))
		}
	}
	if n := len(pages["docs/performance.md"]); n > MaxPerformancePage {
		t.Errorf("docs/performance.md is %d bytes, over %d", n, MaxPerformancePage)
	}
}

func firstDiffLine(a, b []byte) int {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return i + 1
		}
	}
	return min(len(la), len(lb)) + 1
}
