package cliflag

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/narlab/narlab/internal/fsutil"
)

// A Bound is the accepted range of one numeric flag. Zero, when set, says
// what 0 means (0 is then accepted even if Min > 0); Why says where the
// limit comes from, for the error message; NoCheck: any value of the
// flag's type is meaningful (seeds).
type Bound struct {
	Min, Max  float64
	Zero, Why string
	NoCheck   bool
}

// A FileKind says what a flag's path must be.
type FileKind int

const (
	InFile        FileKind = iota // a readable regular file
	InFileStdin                   // … or "-" for standard input
	InPath                        // a readable file or directory
	InDir                         // a readable directory
	OutFile                       // a file that can be written (its directory writable, not a directory)
	OutFileStdout                 // … or "-" for standard output
	OutDir                        // a writable directory, or one that can be created
)

// Rules are a command line's checks, keyed "COMMAND --FLAG" (the flag
// set's name and the flag's canonical name).
type Rules struct {
	// Bounds looks up a numeric flag's range; a numeric flag without one
	// is still refused when it is negative, NaN or infinite.
	Bounds func(key string) (Bound, bool)
	// Files are the flags that name a path; Lists those that take a
	// comma-separated list whose items each select something once.
	Files map[string]FileKind
	Lists map[string]bool
}

func (r Rules) bound(key string) (Bound, bool) {
	if r.Bounds == nil {
		return Bound{}, false
	}
	return r.Bounds(key)
}

// Check checks every flag the user set in fs (keyed "NAME --FLAG", NAME
// being fs.Name()): each numeric one against its Bound, each list against
// ListItems, each path against its FileKind, and that no output file is
// one of the inputs. It returns every problem found.
func (r Rules) Check(fs *flag.FlagSet) error {
	var errs []error
	fs.Visit(func(f *flag.Flag) {
		if err := r.checkFlag(fs.Name(), f); err != nil {
			errs = append(errs, err)
		}
	})
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	fs.Visit(func(f *flag.Flag) {
		if err := r.checkFileFlag(fs.Name(), f); err != nil {
			errs = append(errs, err)
		}
	})
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	return r.checkNotOverwritingInput(fs)
}

// checkNotOverwritingInput refuses an output file that is one of the
// command's input files (--out X --input X would replace the input with
// the output, after reading only part of it).
func (r Rules) checkNotOverwritingInput(fs *flag.FlagSet) error {
	var ins, outs []*flag.Flag
	fs.Visit(func(f *flag.Flag) {
		if f.Value.String() == "-" {
			return
		}
		switch r.Files[fs.Name()+" --"+f.Name] {
		case InFile, InFileStdin, InPath:
			ins = append(ins, f)
		case OutFile, OutFileStdout:
			outs = append(outs, f)
		}
	})
	for _, o := range outs {
		ost, err := os.Stat(o.Value.String())
		if err != nil {
			continue // a new file is no input
		}
		for _, in := range ins {
			if ist, err := os.Stat(in.Value.String()); err == nil && os.SameFile(ist, ost) {
				return fmt.Errorf("--%s %s is the file --%s reads; write the output to another file", o.Name, o.Value, in.Name)
			}
		}
	}
	return nil
}

// Numeric returns a numeric flag's value as a float64 (exactly for every
// value a bound can name), its kind, and whether the flag is numeric.
func Numeric(f *flag.Flag) (v float64, kind string, ok bool) {
	g, isGetter := f.Value.(flag.Getter)
	if !isGetter {
		return 0, "", false
	}
	switch x := g.Get().(type) {
	case int:
		return float64(x), "integer", true
	case int64:
		return float64(x), "integer", true
	case uint:
		return float64(x), "integer", true
	case uint64:
		return float64(x), "integer", true
	case float64:
		return x, "number", true
	case time.Duration:
		return float64(x), "duration", true
	}
	return 0, "", false
}

func (r Rules) checkFlag(cmd string, f *flag.Flag) error {
	if err := r.checkNotEmpty(cmd, f); err != nil {
		return err
	}
	if err := r.checkListFlag(cmd, f); err != nil {
		return err
	}
	v, kind, ok := Numeric(f)
	if !ok {
		return nil
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("--%s %s: not a finite number; %s", f.Name, f.Value, r.accepted(cmd, f.Name, kind))
	}
	b, known := r.bound(cmd + " --" + f.Name)
	if !known {
		if v < 0 {
			return fmt.Errorf("--%s %s: negative; expected a value ≥ 0", f.Name, f.Value)
		}
		return nil
	}
	if b.NoCheck || (v == 0 && b.Zero != "") {
		return nil
	}
	if v < b.Min || v > b.Max {
		return fmt.Errorf("--%s %s: out of range; %s", f.Name, f.Value, r.accepted(cmd, f.Name, kind))
	}
	if strings.HasSuffix(f.Name, "log-base") && v == 1 {
		return fmt.Errorf("--%s 1: a logarithm base must be positive and not 1", f.Name)
	}
	return nil
}

// checkNotEmpty refuses a text flag given an empty value (--algos "",
// often an unset shell variable): it would otherwise mean the default,
// silently, which for some flags is all of the work.
func (r Rules) checkNotEmpty(cmd string, f *flag.Flag) error {
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return nil
	}
	if v, isString := g.Get().(string); !isString || strings.TrimSpace(v) != "" {
		return nil
	}
	if _, isPath := r.Files[cmd+" --"+f.Name]; isPath {
		return nil // path flags say "empty path" themselves
	}
	def := ""
	if f.DefValue != "" {
		def = ": " + f.DefValue
	}
	return fmt.Errorf("--%s \"\": empty value; expected: %s (leave the flag out for the default%s)", f.Name, strings.TrimSuffix(f.Usage, "."), def)
}

// checkListFlag refuses an empty item ("bfs,,dfs", "bfs,") or an item
// given twice (letter case aside) in a list flag: a repeated item would
// do its work twice and write duplicate rows, files or runs.
func (r Rules) checkListFlag(cmd string, f *flag.Flag) error {
	if !r.Lists[cmd+" --"+f.Name] {
		return nil
	}
	v := f.Value.String()
	if strings.TrimSpace(v) == "" {
		return nil // checkNotEmpty's
	}
	if err := ListItems(v); err != nil {
		return fmt.Errorf("--%s %q: %w; expected: %s", f.Name, v, err, strings.TrimSuffix(f.Usage, "."))
	}
	return nil
}

// ListItems reports the first empty item of a comma-separated list,
// or the first item given twice (letter case aside).
func ListItems(list string) error {
	seen := map[string]bool{}
	for i, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return fmt.Errorf("item %d is empty", i+1)
		}
		key := strings.ToLower(item)
		if seen[key] {
			return fmt.Errorf("%s is listed twice", item)
		}
		seen[key] = true
	}
	return nil
}

// accepted describes a flag's range for messages.
func (r Rules) accepted(cmd, name, kind string) string {
	b, ok := r.bound(cmd + " --" + name)
	if !ok || b.NoCheck {
		return "expected a finite " + kind
	}
	s := "accepted " + FormatBound(b.Min, kind) + ".." + FormatBound(b.Max, kind)
	if b.Zero != "" {
		s += ", or 0 (" + b.Zero + ")"
	}
	return s + " (" + b.Why + ")"
}

// FormatBound prints a range's end for messages: a duration, an integer, a number,
// or the open ends "(0" and "∞)".
func FormatBound(x float64, kind string) string {
	switch {
	case kind == "duration":
		return time.Duration(x).String()
	case x == math.SmallestNonzeroFloat64:
		return "(0"
	case x == math.MaxFloat64:
		return "∞)"
	case kind == "integer" && x >= math.MaxInt64: // float64(MaxInt64) prints as …776000
		return strconv.FormatInt(math.MaxInt64, 10)
	case kind == "integer" || x == math.Trunc(x) && math.Abs(x) < 1e15:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// CheckInputFile checks that the file a flag names exists, is a regular
// file (or "-" for standard input when stdin is true) and can be read.
func CheckInputFile(flagName, path string, stdin bool) error {
	if path == "-" && stdin {
		return nil
	}
	if path == "" {
		return fmt.Errorf("--%s is required", flagName)
	}
	st, err := os.Stat(path)
	if err != nil {
		if t := strings.TrimSpace(path); stdin && (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) {
			return fmt.Errorf("--%s %s: %w; --%s names a file: give inline JSON on standard input with --%s -", flagName, path, unwrapPath(err), flagName, flagName)
		}
		return fmt.Errorf("--%s %s: %w", flagName, path, unwrapPath(err))
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("--%s %s: not a regular file", flagName, path)
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("--%s %s: cannot be read: %w", flagName, path, unwrapPath(err))
	}
	defer f.Close()
	// An empty input is a mistake (a failed export, the wrong file), never
	// a valid dataset, graph or set of predictions.
	buf := make([]byte, 64<<10)
	n, _ := io.ReadFull(f, buf)
	if len(bytes.TrimSpace(buf[:n])) == 0 && int64(n) == st.Size() {
		return fmt.Errorf("--%s %s: the file is empty; expected at least one record", flagName, path)
	}
	return nil
}

// CheckInputPath is checkInputFile for flags that also take a directory.
func CheckInputPath(flagName, path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("--%s %s: %w", flagName, path, unwrapPath(err))
	}
	if st.IsDir() {
		f, err := os.Open(path)
		if err != nil {
			return fmt.Errorf("--%s %s: cannot be read: %w", flagName, path, unwrapPath(err))
		}
		return f.Close()
	}
	return CheckInputFile(flagName, path, false)
}

// CheckOutputFile checks, before any work, that the file a flag names can
// be written: its directory is writable and the path is not a directory.
// "-" (standard output) is accepted when stdout is true.
func CheckOutputFile(flagName, path string, stdout bool) error {
	if path == "-" && stdout {
		return nil
	}
	if path == "" {
		return fmt.Errorf("--%s is required", flagName)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("--%s %s: is a directory; expected a file name", flagName, path)
	}
	if err := fsutil.CheckCreatableDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("--%s %s: %w", flagName, path, err)
	}
	return nil
}

// CheckOutputDir checks that a directory flag names a writable directory,
// or one that can be created (nothing is created: the writers do that).
func CheckOutputDir(flagName, dir string) error {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return fmt.Errorf("--%s %s: is a file; expected a directory", flagName, dir)
	}
	if err := fsutil.CheckCreatableDir(dir); err != nil {
		return fmt.Errorf("--%s %s: %w", flagName, dir, err)
	}
	return nil
}

// unwrapPath drops the *PathError wrapper whose message repeats the path.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// checkFileFlag checks the path a set flag names (see fileFlags).
func (r Rules) checkFileFlag(cmd string, f *flag.Flag) error {
	kind, ok := r.Files[cmd+" --"+f.Name]
	if !ok {
		return nil
	}
	p := f.Value.String()
	if p == "" {
		return fmt.Errorf("--%s: empty path", f.Name)
	}
	switch kind {
	case InFile, InFileStdin:
		return CheckInputFile(f.Name, p, kind == InFileStdin)
	case InPath:
		return CheckInputPath(f.Name, p)
	case InDir:
		st, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("--%s %s: %w", f.Name, p, unwrapPath(err))
		}
		if !st.IsDir() {
			return fmt.Errorf("--%s %s: is not a directory", f.Name, p)
		}
		return CheckInputPath(f.Name, p)
	case OutFile, OutFileStdout:
		return CheckOutputFile(f.Name, p, kind == OutFileStdout)
	case OutDir:
		return CheckOutputDir(f.Name, p)
	}
	return nil
}
