package archtest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// maxREADME is the README's budget: a front door (what narlab is, the two
// commands, an example, the data layout, one summary table), with the
// measurement record in docs/performance.md.
const maxREADME = 12_000

// TestREADME keeps the README a front door that stands alone: at most
// maxREADME bytes, the two commands within its first screen, no link
// outside the repository (../shared/… is not part of it) and no relative
// link to a file that does not exist.
func TestREADME(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	if len(raw) > maxREADME {
		t.Errorf("README.md is %d bytes, over its %d: move records to docs/ (measurements: docs/performance.md)", len(raw), maxREADME)
	}
	lines := strings.Split(text, "\n")
	first := strings.Join(lines[:min(40, len(lines))], "\n")
	for _, cmd := range []string{"make run", "make test"} {
		if !strings.Contains(first, cmd) {
			t.Errorf("README.md's first 40 lines do not show %q", cmd)
		}
	}
	// The first training a reader meets runs on a CPU in minutes: a
	// bounded number of steps of a small model (the defaults are the
	// paper's GPU protocol, hours here).
	if i := strings.Index(text, "narlab train "); i < 0 {
		t.Error("README.md shows no `narlab train` command")
	} else {
		cmd, _, _ := strings.Cut(text[i:], "`")
		steps := regexp.MustCompile(`--steps (\d+)`).FindStringSubmatch(cmd)
		hidden := regexp.MustCompile(`--hidden (\d+)`).FindStringSubmatch(cmd)
		if steps == nil || len(steps[1]) > 3 || hidden == nil || len(hidden[1]) > 2 {
			t.Errorf("README.md's first training command %q is not CPU-sized: give it --steps (at most 999) and --hidden (at most 99)", cmd)
		}
	}
	if strings.Contains(text, "../") {
		t.Error("README.md points outside the repository (../…): link repository docs instead")
	}
	for _, m := range regexp.MustCompile(`\]\(([^)#?]+)(?:[#?][^)]*)?\)`).FindAllStringSubmatch(text, -1) {
		target := m[1]
		if strings.Contains(target, "://") {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(target))); err != nil {
			t.Errorf("README.md links to %s, which does not exist", target)
		}
	}
}
