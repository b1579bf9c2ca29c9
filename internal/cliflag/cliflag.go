// Package cliflag is the toolkit of narlab's command-line flags, on the
// standard library's flag package: usage text generated from the flags
// themselves (PrintUsage, PrintFlags), deprecated spellings that keep old
// scripts working without showing in the help (Alias), string flags that
// accept a fixed set of values (Choice), and the checks every flag a user
// sets goes through before a command does any work (Rules.Check): numeric
// ranges, comma-separated lists without empty or repeated items, and paths
// that can be read or written. The tables of ranges, lists and paths are
// the command's; this package applies them.
package cliflag

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// PrintUsage writes a flag set's generated usage text: a synopsis naming
// the required flags (those whose help says "(required"), then every flag
// but the deprecated aliases (PrintFlags).
func PrintUsage(w io.Writer, program string, fs *flag.FlagSet) {
	synopsis := []string{"usage: " + program, fs.Name()}
	optional := false
	Visible(fs, func(f *flag.Flag) {
		if strings.Contains(f.Usage, "(required") {
			v, _ := flag.UnquoteUsage(f)
			synopsis = append(synopsis, "--"+f.Name+" "+valueName(v))
		} else {
			optional = true
		}
	})
	if optional {
		synopsis = append(synopsis, "[flags]")
	}
	fmt.Fprintln(w, strings.Join(synopsis, " "))
	PrintFlags(w, fs)
}

// PrintFlags writes the flag list of a generated usage text: each flag but
// the deprecated aliases, as --name VALUE, its help and its default.
func PrintFlags(w io.Writer, fs *flag.FlagSet) {
	Visible(fs, func(f *flag.Flag) {
		v, help := flag.UnquoteUsage(f)
		if _, ok := f.Value.(*choiceValue); ok {
			v = "string"
		}
		line := "  --" + f.Name
		if v != "" {
			line += " " + v
		}
		fmt.Fprintf(w, "%s\n    \t%s", line, strings.ReplaceAll(help, "\n", "\n    \t"))
		if d := f.DefValue; d != "" && d != "0" && d != "false" && !strings.Contains(f.Usage, "(required") {
			fmt.Fprintf(w, " (default %s)", d)
		}
		fmt.Fprintln(w)
	})
}

func valueName(v string) string {
	if v == "" {
		return "VALUE"
	}
	return strings.ToUpper(v)
}

// Visible calls fn for every flag of fs but the deprecated aliases, in
// name order.
func Visible(fs *flag.FlagSet, fn func(*flag.Flag)) {
	fs.VisitAll(func(f *flag.Flag) {
		if _, old := f.Value.(Deprecated); !old {
			fn(f)
		}
	})
}

// Alias registers old as a deprecated spelling of the flag name: it sets
// the same value, prints a one-line note on standard error, and is left
// out of the help.
func Alias(fs *flag.FlagSet, old, name string) {
	f := fs.Lookup(name)
	if f == nil {
		panic("alias: no flag --" + name)
	}
	fs.Var(Deprecated{Value: f.Value, Old: old, Name: name}, old, "deprecated spelling of --"+name)
}

// Deprecated is the value of an alias: the canonical flag's value, under
// the old spelling Old of the flag Name.
type Deprecated struct {
	flag.Value
	Old, Name string
}

// Set sets the canonical flag, saying on standard error that Old is
// deprecated.
func (d Deprecated) Set(s string) error {
	fmt.Fprintf(os.Stderr, "narlab: --%s is deprecated; use --%s\n", d.Old, d.Name)
	return d.Value.Set(s)
}

// Get returns the canonical value (for range checks).
func (d Deprecated) Get() any {
	if g, ok := d.Value.(flag.Getter); ok {
		return g.Get()
	}
	return d.Value.String()
}

// IsBoolFlag keeps boolean aliases usable without a value.
func (d Deprecated) IsBoolFlag() bool {
	b, ok := d.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// Canonical is the flag's name in the vocabulary (an alias's target).
func Canonical(f *flag.Flag) string {
	if d, ok := f.Value.(Deprecated); ok {
		return d.Name
	}
	return f.Name
}

// SetTo is a boolean flag value that sets *target to value when given (an
// old boolean spelling of a value, such as --json for --format json).
func SetTo(target *string, value string) flag.Value { return &setTo{target: target, value: value} }

type setTo struct {
	target *string
	value  string
}

func (s *setTo) String() string   { return "false" }
func (s *setTo) IsBoolFlag() bool { return true }
func (s *setTo) Set(v string) error {
	if v == "true" {
		*s.target = s.value
	}
	return nil
}

// Choice registers a string flag that accepts only the given values; a
// wrong value fails at parsing with the list of accepted ones.
func Choice(fs *flag.FlagSet, name, def, usage string, accepted ...string) *string {
	c := &choiceValue{value: def, accepted: accepted}
	fs.Var(c, name, usage+" (accepted: "+strings.Join(accepted, ", ")+")")
	return &c.value
}

type choiceValue struct {
	value    string
	accepted []string
}

func (c *choiceValue) String() string {
	if c == nil {
		return ""
	}
	return c.value
}

func (c *choiceValue) Set(s string) error {
	for _, a := range c.accepted {
		if s == a {
			c.value = s
			return nil
		}
	}
	return fmt.Errorf("%q is not accepted; accepted: %s", s, strings.Join(c.accepted, ", "))
}
