package llmeval_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/narlab/narlab/experiments/llmeval"
)

func TestCheckOptions(t *testing.T) {
	for _, tc := range []struct {
		suite string
		given []string
		err   string
	}{
		{llmeval.CLRSText, []string{"algorithms", "lengths", "limit", "model"}, ""},
		{llmeval.Graphs, []string{"tasks", "scoring", "encodings"}, ""},
		{llmeval.Spectral, []string{"tasks", "no-wrap", "heat-time"}, ""},
		{llmeval.DSR, []string{"scoring", "option", "levels"}, ""},
		{llmeval.Graphs, []string{"lengths"}, "--lengths is a clrstext option, not a graphs one"},
		{llmeval.CLRSText, []string{"structures"}, "--structures is a dsr option, not a clrstext one"},
		{llmeval.DSR, []string{"tasks"}, "--tasks is a graphs and spectral option, not a dsr one"},
		{llmeval.CLRSText, []string{"scoring"}, "--scoring is a graphs and dsr option, not a clrstext one"},
		{"mmlu", nil, `--suite "mmlu": want one of clrstext, graphs, spectral, dsr`},
	} {
		err := llmeval.CheckOptions(tc.suite, tc.given)
		if (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("CheckOptions(%s, %v) = %v; want %q", tc.suite, tc.given, err, tc.err)
		}
	}
}

func TestParseStops(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want []string
		err  bool
	}{
		{nil, nil, false},
		{[]string{"none"}, []string{}, false},
		{[]string{`\n\n`, "END"}, []string{"\n\n", "END"}, false},
		{[]string{"none", "x"}, nil, true},
	} {
		got, err := llmeval.ParseStops(tc.in)
		if (err != nil) != tc.err || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseStops(%q) = %q, %v; want %q (error %v)", tc.in, got, err, tc.want, tc.err)
		}
	}
}
