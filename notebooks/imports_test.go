package notebooks

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestNotebookImports checks, without Jupyter, that the Go cells of every
// notebook still match the module: each narlab package a notebook imports
// exists, and each exported name it uses through that package (pkg.Name)
// is declared there. It catches a moved package or a renamed function in
// seconds; TestNotebooks (not -short) runs the cells.
func TestNotebookImports(t *testing.T) {
	const module = "github.com/narlab/narlab/"
	files, err := filepath.Glob("*.ipynb")
	if err != nil || len(files) == 0 {
		t.Fatalf("no notebooks here (%v)", err)
	}
	importRe := regexp.MustCompile(`(?m)^\s*(?:(\w+)\s+)?"(` + regexp.QuoteMeta(module) + `[^"]+)"`)
	for _, fn := range files {
		raw, err := os.ReadFile(fn)
		if err != nil {
			t.Fatal(err)
		}
		var nb notebook
		if err := json.Unmarshal(raw, &nb); err != nil {
			t.Fatalf("%s: %v", fn, err)
		}
		var code strings.Builder
		for _, c := range nb.Cells {
			if c.CellType == "code" {
				code.WriteString(sourceText(c.Source))
				code.WriteString("\n")
			}
		}
		text := code.String()
		for _, m := range importRe.FindAllStringSubmatch(text, -1) {
			name, imp := m[1], m[2]
			if name == "" {
				name = path.Base(imp)
			}
			decls, err := exportedNames(filepath.Join("..", filepath.FromSlash(strings.TrimPrefix(imp, module))))
			if err != nil {
				t.Errorf("%s imports %s: %v", fn, imp, err)
				continue
			}
			for _, u := range regexp.MustCompile(`\b`+name+`\.([A-Z]\w*)`).FindAllStringSubmatch(text, -1) {
				if !decls[u[1]] {
					t.Errorf("%s uses %s.%s, which %s does not declare", fn, name, u[1], imp)
				}
			}
		}
	}
}

// sourceText is a cell's source: a string or a list of lines.
func sourceText(src any) string {
	switch s := src.(type) {
	case string:
		return s
	case []any:
		var b strings.Builder
		for _, l := range s {
			if l, ok := l.(string); ok {
				b.WriteString(l)
			}
		}
		return b.String()
	}
	return ""
}

// exportedNames are the package-level names declared by the package in dir
// (its non-test files).
func exportedNames(dir string) (map[string]bool, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	names := map[string]bool{}
	files := 0
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files++
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					names[d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						names[s.Name.Name] = true
					case *ast.ValueSpec:
						for _, id := range s.Names {
							names[id.Name] = true
						}
					}
				}
			}
		}
	}
	if files == 0 {
		return nil, fmt.Errorf("%s holds no Go package", dir)
	}
	return names, nil
}
