package archtest

import (
	"bufio"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const (
	module    = "github.com/narlab/narlab"
	tableDoc  = "docs/ARCHITECTURE.md"
	tableHead = "| path | what lives there | may import | tests may also import |"
)

// A rule is one row of the table.
type rule struct {
	line  int      // in tableDoc
	paths []string // the packages it covers
	may   []string // what they may import
	tests []string // what their tests may import besides
}

// A pkg is a package of the module and what its files import.
type pkg struct {
	path        string              // module-relative: "lib/clrs"
	imports     map[string][]string // import path → files (non-test)
	testImports map[string][]string // import path → files (_test.go)
}

// A violation is an import a package's row does not allow.
type violation struct {
	pkg, imp, file string
	rule           *rule
	test           bool
}

func (v violation) String() string {
	kind := "imports"
	if v.test {
		kind = "test imports"
	}
	allowed := v.rule.may
	if v.test {
		allowed = append(append([]string{}, v.rule.may...), v.rule.tests...)
	}
	return fmt.Sprintf("%s %s %s (%s); its row (%s:%d, %s) allows %s", v.pkg, kind, v.imp, v.file,
		tableDoc, v.rule.line, strings.Join(v.rule.paths, ", "), strings.Join(allowed, ", "))
}

func TestPackageTable(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	rules, err := readTable(filepath.Join(root, tableDoc))
	if err != nil {
		t.Fatal(err)
	}
	pkgs, err := scan(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 20 {
		t.Fatalf("found only %d packages under %s; the walk is broken", len(pkgs), root)
	}
	vs, unmatched, unused := check(pkgs, rules)
	for _, p := range unmatched {
		t.Errorf("package %s has no row in %s's package table: add one (path, what lives there, may import)", p, tableDoc)
	}
	for _, r := range unused {
		t.Errorf("%s:%d: the row %s matches no package: remove it or fix its path", tableDoc, r.line, strings.Join(r.paths, ", "))
	}
	for _, v := range vs {
		t.Errorf("%v", v)
	}
	if len(vs) > 0 {
		t.Logf("an import that breaks the table is either a wrong dependency or a change of the architecture: fix the code, or change %s's table and say why", tableDoc)
	}
}

// TestCheckFindsViolations feeds the checker a made-up module that breaks
// each kind of rule, so that a checker that stops checking fails here.
func TestCheckFindsViolations(t *testing.T) {
	rules, err := parseTable(strings.NewReader(tableHead + `
|---|---|---|---|
| ` + "`lib/...`" + ` | libraries | ` + "`std`, `internal/...`, `lib/...`, `gonum.org/v1/gonum/...`" + ` | ` + "`plots`" + ` |
| ` + "`lib/clrs`" + ` | data | ` + "`std`" + ` | |
| ` + "`internal/...`" + ` | helpers | ` + "`std`" + ` | |
| ` + "`plots`" + ` | figures | ` + "`std`, `lib/...`" + ` | |
| ` + "`kernel`" + ` | never used | ` + "`std`" + ` | |
`))
	if err != nil {
		t.Fatal(err)
	}
	imp := func(paths ...string) map[string][]string {
		m := map[string][]string{}
		for _, p := range paths {
			m[p] = []string{"x.go"}
		}
		return m
	}
	pkgs := []*pkg{
		{path: "lib/graph", imports: imp("fmt", module+"/internal/fsutil", "gonum.org/v1/gonum/mat", module+"/lib/graph/paper"),
			testImports: imp(module+"/plots", module+"/lib/graph")}, // ok; a package may import itself in its tests
		{path: "lib/clrs", imports: imp("fmt", module+"/internal/fsutil"), testImports: imp(module + "/plots")}, // the longer row: fsutil and plots not allowed
		{path: "lib/graph/paper", imports: imp(module + "/plots")},                                              // upward import
		{path: "internal/x", imports: imp("golang.org/x/sys/unix")},                                             // third party not listed
		{path: "plots", imports: imp(module + "/lib/graph")},                                                    // ok
		{path: "cmd/tool", imports: imp("fmt")},                                                                 // no row
	}
	vs, unmatched, unused := check(pkgs, rules)
	var got []string
	for _, v := range vs {
		got = append(got, v.pkg+" -> "+v.imp)
	}
	want := []string{
		"internal/x -> golang.org/x/sys/unix",
		"lib/clrs -> " + module + "/internal/fsutil",
		"lib/clrs -> " + module + "/plots",
		"lib/graph/paper -> " + module + "/plots",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(unmatched) != 1 || unmatched[0] != "cmd/tool" {
		t.Errorf("packages without a row = %v; want [cmd/tool]", unmatched)
	}
	if len(unused) != 1 || unused[0].paths[0] != "kernel" {
		t.Errorf("unused rows = %v; want the kernel row", unused)
	}
}

// check returns the imports the table does not allow (sorted), the
// packages no row covers and the rows that cover no package.
func check(pkgs []*pkg, rules []*rule) (vs []violation, unmatched []string, unused []*rule) {
	used := map[*rule]bool{}
	for _, p := range pkgs {
		r := ruleOf(p.path, rules)
		if r == nil {
			unmatched = append(unmatched, p.path)
			continue
		}
		used[r] = true
		for imp, files := range p.imports {
			if !allowed(imp, p.path, r.may) {
				vs = append(vs, violation{pkg: p.path, imp: imp, file: files[0], rule: r})
			}
		}
		for imp, files := range p.testImports {
			if imp == module+"/"+p.path { // an external test package imports the package it tests
				continue
			}
			if !allowed(imp, p.path, r.may) && !allowed(imp, p.path, r.tests) {
				vs = append(vs, violation{pkg: p.path, imp: imp, file: files[0], rule: r, test: true})
			}
		}
	}
	for _, r := range rules {
		if !used[r] {
			unused = append(unused, r)
		}
	}
	sort.Slice(vs, func(i, j int) bool {
		if vs[i].pkg != vs[j].pkg {
			return vs[i].pkg < vs[j].pkg
		}
		return vs[i].imp < vs[j].imp
	})
	sort.Strings(unmatched)
	return vs, unmatched, unused
}

// ruleOf is the row whose path pattern matches p most closely: an exact
// pattern before a p/... pattern, a longer prefix before a shorter one.
func ruleOf(p string, rules []*rule) *rule {
	var best *rule
	bestScore := -1
	for _, r := range rules {
		for _, pat := range r.paths {
			if !match(pat, p) {
				continue
			}
			score := 2 * len(strings.TrimSuffix(pat, "/..."))
			if !strings.HasSuffix(pat, "/...") {
				score++
			}
			if score > bestScore {
				best, bestScore = r, score
			}
		}
	}
	return best
}

// allowed reports whether an import path imp of package from is matched by
// one of the patterns: "std" (the standard library: no dot in the first
// element), a third-party pattern (a dot in its first element), or a
// module-relative pattern.
func allowed(imp, from string, patterns []string) bool {
	for _, pat := range patterns {
		switch {
		case pat == "std":
			if first, _, _ := strings.Cut(imp, "/"); !strings.Contains(first, ".") {
				return true
			}
		case isThirdParty(pat):
			if !strings.HasPrefix(imp, module+"/") && match(pat, imp) {
				return true
			}
		default:
			if rel, ok := strings.CutPrefix(imp, module+"/"); ok && match(pat, rel) {
				return true
			}
		}
	}
	return false
}

func isThirdParty(pat string) bool {
	first, _, _ := strings.Cut(pat, "/")
	return strings.Contains(first, ".")
}

// match reports whether path p matches pattern pat ("a/b" or "a/b/...").
func match(pat, p string) bool {
	if base, ok := strings.CutSuffix(pat, "/..."); ok {
		return p == base || strings.HasPrefix(p, base+"/")
	}
	return p == pat
}

var code = regexp.MustCompile("`([^`]+)`")

func readTable(path string) ([]*rule, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rules, err := parseTable(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rules, nil
}

// parseTable reads the table that starts at the line tableHead: one row a
// line, four cells split at "|", the patterns in backquotes.
func parseTable(r interface{ Read([]byte) (int, error) }) ([]*rule, error) {
	sc := bufio.NewScanner(r)
	n, in := 0, false
	var rules []*rule
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if !in {
			if line == tableHead {
				in = true
				if !sc.Scan() {
					break
				}
				n++
			}
			continue
		}
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 4 {
			return nil, fmt.Errorf("line %d: %d cells; want 4 (path, what lives there, may import, tests may also import)", n, len(cells))
		}
		r := &rule{line: n, paths: ticked(cells[0]), may: ticked(cells[2]), tests: ticked(cells[3])}
		if len(r.paths) == 0 || len(r.may) == 0 {
			return nil, fmt.Errorf("line %d: a row needs a `path` and what it `may import`", n)
		}
		rules = append(rules, r)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(rules) == 0 {
		return nil, fmt.Errorf("no package table (a table with the header %q)", tableHead)
	}
	return rules, nil
}

func ticked(cell string) []string {
	var out []string
	for _, m := range code.FindAllStringSubmatch(cell, -1) {
		out = append(out, m[1])
	}
	return out
}

// moduleRoot walks up from the working directory to the go.mod of module.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.Contains(string(b), "module "+module+"\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod of " + module + " above the working directory")
		}
		dir = parent
	}
}

// scan parses the imports of every Go file under root, as the go command
// finds packages (directories named testdata or starting with . or _ and
// nested modules are skipped; so are the ignored data and bin folders),
// but with every build tag.
func scan(root string) ([]*pkg, error) {
	byDir := map[string]*pkg{}
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
		if !strings.HasSuffix(rel, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(rel))
		p := byDir[dir]
		if p == nil {
			p = &pkg{path: dir, imports: map[string][]string{}, testImports: map[string][]string{}}
			byDir[dir] = p
		}
		m := p.imports
		if strings.HasSuffix(rel, "_test.go") {
			m = p.testImports
		}
		for _, is := range f.Imports {
			imp, err := strconv.Unquote(is.Path.Value)
			if err != nil {
				return err
			}
			m[imp] = append(m[imp], rel)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var pkgs []*pkg
	for _, p := range byDir {
		pkgs = append(pkgs, p)
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].path < pkgs[j].path })
	return pkgs, nil
}
