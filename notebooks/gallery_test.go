package notebooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGalleryShared checks that the gallery's pages (docs/notebooks, made
// by scripts/notebooks-html.sh) share one stylesheet and one script
// instead of repeating nbconvert's 260 KB of styles each: every page links
// gallery.css and gallery.js, which exist, and has no style block left in
// its head.
func TestGalleryShared(t *testing.T) {
	dir := filepath.Join("..", "docs", "notebooks")
	pages, _ := filepath.Glob(filepath.Join(dir, "[0-9]*.html"))
	if len(pages) == 0 {
		t.Fatalf("no gallery pages in %s", dir)
	}
	for _, shared := range []string{"gallery.css", "gallery.js"} {
		if fi, err := os.Stat(filepath.Join(dir, shared)); err != nil || fi.Size() == 0 {
			t.Errorf("the gallery's shared %s is missing or empty: %v", shared, err)
		}
	}
	for _, p := range pages {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		head, _, _ := strings.Cut(string(raw), "<body")
		for _, want := range []string{`<link rel="stylesheet" href="gallery.css">`, `<script type="module" src="gallery.js">`} {
			if !strings.Contains(head, want) {
				t.Errorf("%s does not link %s (run scripts/gallery_clean.py on it)", filepath.Base(p), want)
			}
		}
		if n := strings.Count(head, "<style"); n > 0 {
			t.Errorf("%s keeps %d style blocks in its head: they belong in gallery.css", filepath.Base(p), n)
		}
	}
}
