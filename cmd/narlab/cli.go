package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// A command is one `narlab GROUP NAME` subcommand (or a top-level
// `narlab NAME` when group is empty).
type command struct {
	group, name string
	summary     string
	// run receives the arguments after the command name.
	run func(args []string) error
}

// commands is filled by init functions in this package's files, one file
// per group (clrs.go, mlflow.go, …).
var commands []command

func register(c command) { commands = append(commands, c) }

// errUsage is returned when the arguments were wrong and usage was printed.
var errUsage = errors.New("invalid usage (see above)")

var stdout io.Writer = os.Stdout

func run(args []string) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(os.Stderr)
		if len(args) == 0 {
			return errUsage
		}
		return nil
	}
	// Top-level command?
	for _, c := range commands {
		if c.group == "" && c.name == args[0] {
			return c.run(args[1:])
		}
	}
	group := args[0]
	var inGroup []command
	for _, c := range commands {
		if c.group == group {
			inGroup = append(inGroup, c)
		}
	}
	if len(inGroup) == 0 || group == "" { // "" would name the top-level commands
		usage(os.Stderr)
		return fmt.Errorf("unknown command %q", group)
	}
	if len(args) < 2 || args[1] == "help" || args[1] == "-h" || args[1] == "--help" {
		groupUsage(os.Stderr, group, inGroup)
		if len(args) < 2 {
			return errUsage
		}
		return nil
	}
	for _, c := range inGroup {
		if c.name == args[1] {
			return c.run(args[2:])
		}
	}
	groupUsage(os.Stderr, group, inGroup)
	return fmt.Errorf("unknown command %q %q", group, args[1])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: narlab COMMAND [args]  (narlab COMMAND -h for details)")
	fmt.Fprintln(w)
	cs := append([]command(nil), commands...)
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].group != cs[j].group {
			return cs[i].group < cs[j].group
		}
		return cs[i].name < cs[j].name
	})
	for _, c := range cs {
		name := strings.TrimSpace(c.group + " " + c.name)
		fmt.Fprintf(w, "  %-22s %s\n", name, c.summary)
	}
}

func groupUsage(w io.Writer, group string, cs []command) {
	fmt.Fprintf(w, "usage: narlab %s COMMAND [args]\n\n", group)
	for _, c := range cs {
		fmt.Fprintf(w, "  %-14s %s\n", c.name, c.summary)
	}
}

// newFlags returns a flag set that reports errors instead of exiting. Its
// usage text is generated from the flags themselves: a synopsis naming the
// required flags (those whose help says "(required)"), then every flag
// except the deprecated spellings registered with alias.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() { printUsage(fs.Output(), fs) }
	return fs
}

// printUsage writes a flag set's generated usage text.
func printUsage(w io.Writer, fs *flag.FlagSet) {
	synopsis := []string{"usage: narlab", fs.Name()}
	optional := false
	visibleFlags(fs, func(f *flag.Flag) {
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
	printFlags(w, fs)
}

// printFlags writes the flag list of a generated usage text: each flag but
// the deprecated aliases, as --name VALUE, its help and its default.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	visibleFlags(fs, func(f *flag.Flag) {
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

// visibleFlags calls fn for every flag of fs but the deprecated aliases,
// in name order.
func visibleFlags(fs *flag.FlagSet, fn func(*flag.Flag)) {
	fs.VisitAll(func(f *flag.Flag) {
		if _, old := f.Value.(deprecatedFlag); !old {
			fn(f)
		}
	})
}

// alias registers old as a deprecated spelling of the flag name: it sets
// the same value, prints a one-line note on standard error, and is left
// out of the help. Old spellings keep scripts working while the
// vocabulary of docs/cli.md settles.
func alias(fs *flag.FlagSet, old, name string) {
	f := fs.Lookup(name)
	if f == nil {
		panic("alias: no flag --" + name)
	}
	fs.Var(deprecatedFlag{Value: f.Value, old: old, name: name}, old, "deprecated spelling of --"+name)
}

// deprecatedFlag is the value of an alias: the canonical flag's value.
type deprecatedFlag struct {
	flag.Value
	old, name string
}

func (d deprecatedFlag) Set(s string) error {
	fmt.Fprintf(os.Stderr, "narlab: --%s is deprecated; use --%s\n", d.old, d.name)
	return d.Value.Set(s)
}

// Get returns the canonical value (for range checks).
func (d deprecatedFlag) Get() any {
	if g, ok := d.Value.(flag.Getter); ok {
		return g.Get()
	}
	return d.Value.String()
}

// IsBoolFlag keeps boolean aliases usable without a value.
func (d deprecatedFlag) IsBoolFlag() bool {
	b, ok := d.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// canonicalName is the flag's name in the vocabulary (an alias's target).
func canonicalName(f *flag.Flag) string {
	if d, ok := f.Value.(deprecatedFlag); ok {
		return d.name
	}
	return f.Name
}

// parseFlags parses args, turning -h into a nil error and other problems
// into errUsage (the flag package has printed the details).
//
// Every numeric flag the user set is then checked against its documented
// range (see checkFlags), so a command never starts work on a size it
// cannot handle.
func parseFlags(fs *flag.FlagSet, args []string) (help bool, err error) {
	if flagSetHook != nil {
		flagSetHook(fs)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return true, nil
		}
		return false, errUsage
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return false, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if err := checkFlags(fs); err != nil {
		return false, fmt.Errorf("%s: %w", fs.Name(), err)
	}
	return false, nil
}

// missingFlag is the error of a command run without a required flag: one
// line that says what is missing and where the rest is (not the whole
// usage text, whose length would bury it), e.g. "sweep run: --dir is
// required (narlab sweep run -h lists every flag)".
func missingFlag(fs *flag.FlagSet, what string) error {
	return fmt.Errorf("%s: %s (narlab %s -h lists every flag)", fs.Name(), what, fs.Name())
}

// flagSetHook, when set (by tests), sees every flag set before parsing.
var flagSetHook func(*flag.FlagSet)

// jsonAlias keeps the old boolean --json working as a deprecated
// spelling of --format json.
func jsonAlias(fs *flag.FlagSet, format *string) {
	fs.Var(deprecatedFlag{Value: &setTo{target: format, value: "json"}, old: "json", name: "format json"}, "json",
		"deprecated spelling of --format json")
}

// setTo is a boolean flag value that sets *target to value when given.
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

// choice registers a string flag that accepts only the given values; a
// wrong value fails at parsing with the list of accepted ones.
func choice(fs *flag.FlagSet, name, def, usage string, accepted ...string) *string {
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
