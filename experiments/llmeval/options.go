package llmeval

import (
	"fmt"
	"slices"
	"strings"
)

// suiteOptions are the options of an evaluation that belong to some suites
// only, named as `narlab llm run`'s flags.
var suiteOptions = map[string][]string{
	"algorithms": {CLRSText}, "lengths": {CLRSText}, "format": {CLRSText}, "hints": {CLRSText},
	"encodings": {Graphs}, "syntaxes": {Graphs}, "relabelings": {Graphs}, "shuffle-seeds": {Graphs},
	"max-nodes": {Graphs}, "keep-decimal-points": {Graphs},
	"tasks": {Graphs, Spectral}, "no-wrap": {Graphs, Spectral},
	"scoring":     {Graphs, DSR},
	"train-count": {Spectral}, "algebraic-matrix": {Spectral}, "gap-matrix": {Spectral}, "heat-matrix": {Spectral},
	"heat-time": {Spectral}, "entropy-log-base": {Spectral},
	"structures": {DSR}, "categories": {DSR}, "levels": {DSR}, "strategy": {DSR}, "tokens": {DSR},
	"no-schema": {DSR}, "option": {DSR},
}

// CheckOptions reports an option given for a suite it does not belong to
// (the options given are named as `narlab llm run`'s flags, e.g. "lengths"):
// another suite's option is a mistake worth stopping for, not one to
// ignore. An unknown suite is an error too.
func CheckOptions(suite string, given []string) error {
	if !slices.Contains(Suites(), suite) {
		return fmt.Errorf("--suite %q: want one of %s", suite, strings.Join(Suites(), ", "))
	}
	for _, name := range slices.Sorted(slices.Values(given)) {
		if suites, ok := suiteOptions[name]; ok && !slices.Contains(suites, suite) {
			return fmt.Errorf("--%s is a %s option, not a %s one", name, strings.Join(suites, " and "), suite)
		}
	}
	return nil
}

// ParseStops reads stop sequences as `narlab llm run --stop` takes them: none
// given is nil (the suite's default), "none" alone is no stop sequence, and
// otherwise each value with `\n` read as a newline.
func ParseStops(values []string) ([]string, error) {
	switch {
	case len(values) > 1 && slices.Contains(values, "none"):
		return nil, fmt.Errorf("--stop none (no stop sequence) and other --stop values contradict each other; give one or the other")
	case len(values) == 1 && values[0] == "none":
		return []string{}, nil
	}
	var out []string
	for _, v := range values {
		out = append(out, strings.ReplaceAll(v, `\n`, "\n"))
	}
	return out, nil
}
