package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// maxCmdFunc is the longest function (its lines from `func` to the closing
// brace) docs/ARCHITECTURE.md allows in cmd/: a command parses flags, makes
// one library call and prints; more than this holds protocol logic that
// belongs in a library.
const maxCmdFunc = 80

// A longFunc is a function over maxCmdFunc lines.
type longFunc struct {
	file, name string
	lines      int
}

func (f longFunc) String() string { return fmt.Sprintf("%s: %s is %d lines", f.file, f.name, f.lines) }

// TestCmdFunctionLength fails naming every function (methods and
// functions, not function literals, which count toward the function that
// holds them) of the non-test Go files under cmd/ longer than maxCmdFunc
// lines.
func TestCmdFunctionLength(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	long, files, err := longFuncs(filepath.Join(root, "cmd"), root, maxCmdFunc)
	if err != nil {
		t.Fatal(err)
	}
	if files < 10 {
		t.Fatalf("read only %d files under cmd/; the walk is broken", files)
	}
	for _, f := range long {
		t.Errorf("%v; at most %d: move what is not flags and printing into a library (docs/ARCHITECTURE.md, cmd/...)", f, maxCmdFunc)
	}
}

// longFuncs returns the functions over max lines in the non-test Go files
// under dir (paths relative to root), and the number of files read.
func longFuncs(dir, root string, max int) ([]longFunc, int, error) {
	var out []longFunc
	files := 0
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != dir && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		rel, _ := filepath.Rel(root, path)
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > max {
				out = append(out, longFunc{file: filepath.ToSlash(rel), name: funcName(fd), lines: n})
			}
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].file+out[i].name < out[j].file+out[j].name })
	return out, files, err
}

// funcName is a function's name, with its receiver's type for a method
// ("(*Grid).run").
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	typ := fd.Recv.List[0].Type
	star := ""
	if s, ok := typ.(*ast.StarExpr); ok {
		typ, star = s.X, "*"
	}
	if ix, ok := typ.(*ast.IndexExpr); ok { // a generic type's method
		typ = ix.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return "(" + star + id.Name + ")." + fd.Name.Name
	}
	return fd.Name.Name
}

// TestLongFuncsFindsThem runs the check on a made-up command whose
// function, method and generic method are one line over the limit and one
// at it, so that a check that stops finding them fails here.
func TestLongFuncsFindsThem(t *testing.T) {
	dir := t.TempDir()
	body := func(name string, n int) string { // a declaration of n lines
		return name + " {\n" + strings.Repeat("\t_ = 0\n", n-2) + "}\n"
	}
	src := "package main\n\ntype T struct{}\ntype G[X any] struct{}\n\n" +
		body("func long()", 5) + body("func ok()", 4) + body("func (t *T) method()", 5) + body("func (g G[X]) generic()", 5) +
		"func lit() {\n\tf := func() {\n" + strings.Repeat("\t\t_ = 0\n", 3) + "\t}\n\tf()\n}\n"
	if err := writeFile(filepath.Join(dir, "cmd", "tool", "main.go"), src); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(filepath.Join(dir, "cmd", "tool", "main_test.go"), "package main\n\n"+body("func TestLong(t *testing.T)", 9)); err != nil {
		t.Fatal(err)
	}
	long, files, err := longFuncs(filepath.Join(dir, "cmd"), dir, 4)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(long)
	want := "[cmd/tool/main.go: (*T).method is 5 lines cmd/tool/main.go: (G).generic is 5 lines cmd/tool/main.go: lit is 8 lines cmd/tool/main.go: long is 5 lines]"
	if got != want || files != 1 {
		t.Errorf("found %s in %d files; want %s in 1 (tests are not counted)", got, files, want)
	}
}

func writeFile(path, data string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(data), 0o644)
}
