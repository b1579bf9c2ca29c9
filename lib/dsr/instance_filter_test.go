package dsr

import (
	"strings"
	"testing"
)

// TestCheckTaskFilter: a filter that names no task is an error listing what
// is accepted, so a typo does not read as "no instances".
func TestCheckTaskFilter(t *testing.T) {
	for _, c := range []struct {
		structure, operation string
		want                 string // a part of the error; "" for none
	}{
		{"queue", "", ""},
		{"Queue", "", ""}, // a structure's title is accepted too
		{"", "compound", ""},
		{"queue", "compound", ""},
		{"nope", "", `unknown structure "nope" (expected one of array, stack, queue`},
		{"", "nope", `unknown operation "nope" (expected one of access, bfs,`},
		{"queue", "nope", `structure queue has no operation "nope" (expected one of compound, realistic)`},
		{"nope", "compound", `unknown structure "nope"`},
	} {
		t.Run(c.structure+"/"+c.operation, func(t *testing.T) {
			err := checkTaskFilter(c.structure, c.operation)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v; want one with %q", err, c.want)
			}
		})
	}
}
