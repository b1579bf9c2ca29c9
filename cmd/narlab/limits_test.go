package main

import (
	"flag"
	"io"
	"strings"
	"testing"
)

// TestEveryNumericFlagHasABound runs every command with -h, collects its
// flags and checks that each numeric one has a documented range in
// flagBounds whose defaults lie inside it, and that every entry of the
// table names a real flag.
func TestEveryNumericFlagHasABound(t *testing.T) {
	seen, seenAll := map[string]bool{}, map[string]bool{}
	for _, c := range commands {
		var sets []*flag.FlagSet
		flagSetHook = func(fs *flag.FlagSet) { fs.SetOutput(io.Discard); sets = append(sets, fs) }
		_ = c.run([]string{"-h"})
		flagSetHook = nil
		for _, fs := range sets {
			fs.VisitAll(func(f *flag.Flag) {
				seenAll[fs.Name()+" --"+f.Name] = true
				v, _, ok := numeric(f)
				if !ok {
					return
				}
				key := fs.Name() + " --" + f.Name
				seen[key] = true
				b, known := flagBounds[key]
				if !known {
					t.Errorf("%s: numeric flag without a documented range in flagBounds", key)
					return
				}
				if b.noCheck || v == 0 && b.zero != "" || b.unset != "" {
					return
				}
				if v < b.min || v > b.max {
					t.Errorf("%s: default %s outside its own range %v..%v", key, f.DefValue, b.min, b.max)
				}
				if b.zero != "" && !strings.Contains(f.Usage, "0") {
					t.Errorf("%s: 0 means %q but the flag's help does not say so: %q", key, b.zero, f.Usage)
				}
			})
		}
	}
	for key := range fileFlags {
		if !seenAll[key] {
			t.Errorf("fileFlags names %q, which no command has", key)
		}
	}
	for key := range flagBounds {
		if !seen[key] {
			t.Errorf("flagBounds names %q, which no command has", key)
		}
	}
}

func TestCheckFlag(t *testing.T) {
	tests := []struct {
		args []string
		err  string // "" for no error
	}{
		{[]string{"--length", "16"}, ""},
		{[]string{"--length", "0"}, "accepted 1..256"},
		{[]string{"--length", "-3"}, "accepted 1..256"},
		{[]string{"--length", "100000"}, "out of range"},
		{[]string{"--batch", "0"}, ""},
		{[]string{"--batch", "-1"}, "or 0 (print the whole set)"},
		{[]string{"--truncate-decimals", "-5"}, "accepted 1..15"},
	}
	for _, tc := range tests {
		fs := flag.NewFlagSet("clrs sample", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Int("length", 16, "")
		fs.Int("batch", 0, "")
		fs.Int("truncate-decimals", 0, "")
		_, err := parseFlags(fs, tc.args)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%v: err = %v, want %q", tc.args, err, tc.err)
		}
	}
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	fs.Float64("teacher-forcing", 0.5, "")
	for _, v := range []string{"NaN", "Inf", "-Inf", "+Inf"} {
		if _, err := parseFlags(fs, []string{"--teacher-forcing", v}); err == nil || !strings.Contains(err.Error(), "not a finite number") {
			t.Errorf("--teacher-forcing %s: %v", v, err)
		}
	}
}
