package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/narlab/narlab/internal/cliflag"
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
// required flags (those whose help says "(required)"), then every flag.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() { cliflag.PrintUsage(fs.Output(), "narlab", fs) }
	return fs
}

// The flag toolkit (internal/cliflag) under this package's names.
var (
	printFlags = cliflag.PrintFlags
	choice     = cliflag.Choice
)

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
