package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// processCalls are calls that change the whole process (its collector,
// memory limit, threads, environment, signals, the C allocator) or a
// library's process-wide setting: a binary makes them explicitly
// (engine.TuneProcess, hugepages.Reexec), a library never on import.
var processCalls = map[string]bool{
	"os.Setenv": true, "os.Unsetenv": true, "os.Clearenv": true, "os.Chdir": true,
	"debug.SetGCPercent": true, "debug.SetMemoryLimit": true, "debug.SetMaxThreads": true, "debug.SetMaxStack": true,
	"debug.SetPanicOnFault": true, "debug.SetTraceback": true, "runtime.GOMAXPROCS": true, "runtime.LockOSThread": true,
	"signal.Notify": true, "signal.Ignore": true, "C.mallopt": true, "xla.EnableAutoInstall": true,
	"engine.TuneProcess": true, "hugepages.Reexec": true,
}

// initEffects lists the calls of processCalls in the init functions of a
// Go source file, as "file:line: call".
func initEffects(fset *token.FileSet, f *ast.File) []string {
	var out []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || fn.Name.Name != "init" || fn.Body == nil {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && processCalls[x.Name+"."+sel.Sel.Name] {
					out = append(out, fset.Position(call.Pos()).String()+": "+x.Name+"."+sel.Sel.Name)
				}
			}
			return true
		})
	}
	return out
}

// TestNoProcessEffectsOnImport checks that no init function of a library
// package (lib/, tracking, sweep, experiments, plots, kernel) changes the
// process: importing lib/nn, say, leaves the collector, malloc and the
// environment as they were (lib/spectralgnn's TestNoProcessTuning checks
// it at run time).
func TestNoProcessEffectsOnImport(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	var found []string
	for _, dir := range []string{"lib", "tracking", "sweep", "experiments", "plots", "kernel"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			found = append(found, initEffects(fset, f)...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range found {
		t.Errorf("%s in an init function: a library must not change the process on import (make it an explicit call the binaries make)", e)
	}
}

// TestInitEffectsCheck checks the checker: it finds such calls in init
// functions, nested ones included, and nowhere else.
func TestInitEffectsCheck(t *testing.T) {
	src := `package p
import ("os"; "runtime/debug")
func init() { if os.Getenv("GOGC") == "" { debug.SetGCPercent(50) } }
func init() { register(); func() { os.Setenv("X", "1") }() }
func Tune() { debug.SetGCPercent(50) }
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := initEffects(fset, f)
	if len(got) != 2 || !strings.HasSuffix(got[0], "debug.SetGCPercent") || !strings.HasSuffix(got[1], "os.Setenv") {
		t.Errorf("found %q; want the two calls in the init functions", got)
	}
}
