package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const testenvPath = module + "/internal/testenv"

// TestEveryTestMainUsesTestenv: every package with tests has a TestMain
// that runs them under internal/testenv (testenv.Main or testenv.Run), so
// that no test binary runs in the checkout's data directory or leaves a
// process running unnoticed.
func TestEveryTestMainUsesTestenv(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	missing, err := packagesWithoutTestenv(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range missing {
		t.Errorf("%s", m)
	}
	if len(missing) > 0 {
		t.Log("add a main_test.go with: func TestMain(m *testing.M) { testenv.Main(m) } (see internal/testenv)")
	}
}

// TestTestMainCheckFindsViolations runs the check on a small tree.
func TestTestMainCheckFindsViolations(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"go.mod":             "module " + module + "\n",
		"good/a_test.go":     "package good\nimport (\"testing\"; \"" + testenvPath + "\")\nfunc TestMain(m *testing.M) { testenv.Main(m) }\n",
		"renamed/a_test.go":  "package renamed_test\nimport (\"testing\"; te \"" + testenvPath + "\")\nfunc TestMain(m *testing.M) { os.Exit(te.Run(m)) }\n",
		"none/a_test.go":     "package none\nimport \"testing\"\nfunc TestX(t *testing.T) {}\n",
		"plain/a_test.go":    "package plain\nimport (\"os\"; \"testing\")\nfunc TestMain(m *testing.M) { os.Exit(m.Run()) }\n",
		"other/a_test.go":    "package other\nimport (\"testing\"; \"example.com/testenv\")\nfunc TestMain(m *testing.M) { testenv.Main(m) }\n",
		"notests/a.go":       "package notests\n",
		"testdata/x_test.go": "package x\n",
	}
	for name, src := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := packagesWithoutTestenv(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"none: no TestMain", "other: TestMain does not call testenv.Main or testenv.Run", "plain: TestMain does not call testenv.Main or testenv.Run"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// packagesWithoutTestenv returns, for each package directory under root
// with _test.go files whose TestMain is missing or does not call
// internal/testenv's Main or Run, a line saying which.
func packagesWithoutTestenv(root string) ([]string, error) {
	type state struct{ hasTests, hasMain, callsTestenv bool }
	dirs := map[string]*state{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") ||
				rel == "data" || rel == "bin") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); rel != "." && err == nil {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(rel))
		st := dirs[dir]
		if st == nil {
			st = &state{}
			dirs[dir] = st
		}
		st.hasTests = true
		// The name testenv goes by in this file ("" inside the package itself).
		name := "-"
		if dir == "internal/testenv" {
			name = ""
		}
		for _, is := range f.Imports {
			if p, _ := strconv.Unquote(is.Path.Value); p == testenvPath {
				name = "testenv"
				if is.Name != nil {
					name = is.Name.Name
				}
			}
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || fn.Name.Name != "TestMain" || fn.Body == nil {
				continue
			}
			st.hasMain = true
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				switch f := call.Fun.(type) {
				case *ast.SelectorExpr:
					if x, ok := f.X.(*ast.Ident); ok && x.Name == name && (f.Sel.Name == "Main" || f.Sel.Name == "Run") {
						st.callsTestenv = true
					}
				case *ast.Ident:
					if name == "" && (f.Name == "Main" || f.Name == "Run") {
						st.callsTestenv = true
					}
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []string
	for dir, st := range dirs {
		switch {
		case !st.hasTests:
		case !st.hasMain:
			out = append(out, dir+": no TestMain")
		case !st.callsTestenv:
			out = append(out, dir+": TestMain does not call testenv.Main or testenv.Run")
		}
	}
	sort.Strings(out)
	return out, nil
}
