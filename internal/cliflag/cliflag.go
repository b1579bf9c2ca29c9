// Package cliflag is the toolkit of narlab's command-line flags, on the
// standard library's flag package: usage text generated from the flags
// themselves (PrintUsage, PrintFlags), string flags that accept a fixed
// set of values (Choice), and the checks every flag a user
// sets goes through before a command does any work (Rules.Check): numeric
// ranges, comma-separated lists without empty or repeated items, and paths
// that can be read or written. The tables of ranges, lists and paths are
// the command's; this package applies them.
package cliflag

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// PrintUsage writes a flag set's generated usage text: a synopsis naming
// the required flags (those whose help says "(required"), then every flag
// (PrintFlags).
func PrintUsage(w io.Writer, program string, fs *flag.FlagSet) {
	synopsis := []string{"usage: " + program, fs.Name()}
	optional := false
	fs.VisitAll(func(f *flag.Flag) {
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

// PrintFlags writes the flag list of a generated usage text: each flag, in
// name order, as --name VALUE, its help and its default.
func PrintFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
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
