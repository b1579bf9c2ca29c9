package main

import (
	"bytes"
	"flag"
	"regexp"
	"strings"
	"testing"
)

// drifted are spellings the vocabulary (docs/cli.md) replaced: no command
// has a flag by these names (their aliases were removed).
var drifted = map[string]string{
	"num-samples":  "--count",
	"samples":      "--count",
	"instances":    "--count (a number) or --input (a file)",
	"tracking-uri": "--tracking",
	"kind":         "--predictor",
	"json":         "--format json",
}

// TestCommandTable walks every command: `-h` succeeds (exit 0), the help
// text is generated from the flags and offers no drifted spelling, value
// names are single words, and every --seed is one type (int64).
func TestCommandTable(t *testing.T) {
	var sets []*flag.FlagSet
	flagSetHook = func(fs *flag.FlagSet) { sets = append(sets, fs) }
	defer func() { flagSetHook = nil }()
	for _, c := range commands {
		name := strings.TrimSpace(c.group + " " + c.name)
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			sets = nil
			var help bytes.Buffer
			flagSetHook = func(fs *flag.FlagSet) {
				fs.SetOutput(&help)
				sets = append(sets, fs)
			}
			if err := c.run([]string{"-h"}); err != nil {
				t.Fatalf("`narlab %s -h` failed: %v", name, err)
			}
			for _, fs := range sets {
				fs.VisitAll(func(f *flag.Flag) {
					if why, bad := drifted[f.Name]; bad {
						t.Errorf("--%s is a flag; the vocabulary says %s", f.Name, why)
					}
					if v, _ := flag.UnquoteUsage(f); strings.ContainsAny(v, " /'") {
						t.Errorf("--%s: value name %q (a backquoted phrase in its help)", f.Name, v)
					}
					if f.Name == "seed" {
						if g, ok := f.Value.(flag.Getter); !ok {
							t.Errorf("--seed is not a plain number flag")
						} else if _, ok := g.Get().(int64); !ok {
							t.Errorf("--seed is %T; seeds are int64 everywhere", g.Get())
						}
					}
				})
			}
			// clrs train and clrs eval are train and eval under the group's name.
			if l := firstLine(help.String()); len(sets) > 0 && (!strings.HasPrefix(l, "usage: narlab ") || !strings.Contains(l, c.name)) {
				t.Errorf("help does not start with the generated usage line: %q", firstLine(help.String()))
			}
		})
	}
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// singleDash finds a flag written with one dash ("-limit", "[-h]") in a
// help text: every narlab help names flags with two (--limit).
var singleDash = regexp.MustCompile(`(?m)(?:^|[\s\[(,|=])(-[a-zA-Z][a-zA-Z0-9-]*)`)

// TestHelpFlagStyle runs every command's -h and checks that the help names
// every flag in one style, with a double dash, as the generated usage
// does: a help text printed another way (flag.PrintDefaults writes
// "-limit int") is the odd one out.
func TestHelpFlagStyle(t *testing.T) {
	defer func() { flagSetHook = nil }()
	for _, c := range commands {
		name := strings.TrimSpace(c.group + " " + c.name)
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			var help bytes.Buffer
			flagSetHook = func(fs *flag.FlagSet) { fs.SetOutput(&help) }
			if err := c.run([]string{"-h"}); err != nil {
				t.Fatalf("`narlab %s -h` failed: %v", name, err)
			}
			if help.Len() == 0 {
				t.Fatalf("`narlab %s -h` printed nothing", name)
			}
			for _, m := range singleDash.FindAllStringSubmatch(help.String(), -1) {
				t.Errorf("`narlab %s -h` writes the flag %q with one dash; every help writes -%s", name, m[1], m[1])
			}
			for _, l := range strings.Split(help.String(), "\n") {
				if f, ok := strings.CutPrefix(strings.TrimSpace(l), "--"); ok && strings.HasPrefix(l, "  --") {
					if n, _, _ := strings.Cut(f, " "); n == "" {
						t.Errorf("`narlab %s -h`: a flag line without a name: %q", name, l)
					}
				}
			}
		})
	}
}
