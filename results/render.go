package results

import (
	"bytes"
	"embed"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/template"
	"time"
)

//go:embed templates/*.tmpl
var templates embed.FS

// funcs are the templates' helpers beside view's methods.
var funcs = template.FuncMap{
	"pct": func(x float64) float64 { return 100 * x },
	"dur": func(s float64) string { return time.Duration(s * float64(time.Second)).Round(time.Second).String() },
}

// Pages are the files Render writes, relative to the repository's root:
// whole pages from a template of the same name, and README.md, whose
// marked sections (<!-- results:NAME --> … <!-- /results:NAME -->) are
// rendered from templates/readme-NAME.md.tmpl.
var Pages = []string{"docs/performance.md", "docs/performance-steady.md", "docs/results.md", "README.md"}

// MaxPerformancePage is docs/performance.md's budget: a page of current
// figures, with the history in docs/log/.
const MaxPerformancePage = 20_000

// Render reads root/results and returns every page of Pages rendered from
// it, keyed by path. README.md is the committed one with its marked
// sections replaced.
func Render(root string) (map[string][]byte, error) {
	s, err := Load(filepath.Join(root, "results"))
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, page := range Pages {
		if page == "README.md" {
			continue // spliced below
		}
		b, err := execute(filepath.Base(page)+".tmpl", view{s})
		if err != nil {
			return nil, err
		}
		out[page] = b
	}
	if n := len(out["docs/performance.md"]); n > MaxPerformancePage {
		return nil, fmt.Errorf("results: docs/performance.md would be %d bytes, over its %d: move history to docs/log/", n, MaxPerformancePage)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		return nil, err
	}
	readme, err = splice(readme, view{s})
	if err != nil {
		return nil, err
	}
	out["README.md"] = readme
	return out, nil
}

func execute(name string, v view) ([]byte, error) {
	t, err := template.New(name).Option("missingkey=error").Funcs(funcs).ParseFS(templates, "templates/"+name)
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	var b bytes.Buffer
	if err := t.Execute(&b, v); err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	return b.Bytes(), nil
}

// splice replaces each marked section of text with its template's output.
func splice(text []byte, v view) ([]byte, error) {
	s := string(text)
	names, err := templates.ReadDir("templates")
	if err != nil {
		return nil, err
	}
	for _, e := range names {
		name, ok := strings.CutPrefix(e.Name(), "readme-")
		if !ok {
			continue
		}
		name = strings.TrimSuffix(name, ".md.tmpl")
		open, end := "<!-- results:"+name+" -->\n", "<!-- /results:"+name+" -->"
		i := strings.Index(s, open)
		j := strings.Index(s, end)
		if i < 0 || j < i {
			return nil, fmt.Errorf("results: README.md has no section %s…%s", strings.TrimSpace(open), end)
		}
		body, err := execute(e.Name(), v)
		if err != nil {
			return nil, err
		}
		s = s[:i+len(open)] + strings.TrimSuffix(string(body), "\n") + "\n" + s[j:]
	}
	return []byte(s), nil
}
