package results

import (
	"strings"
	"testing"
)

// A row that parts early is put down to rounding when it parts no earlier
// than the earliest of its one-ulp controls; the table shows the
// controls' range.
func TestSameInitVerdicts(t *testing.T) {
	ptr := func(k int) *int { return &k }
	losses := []float64{1, 1}
	for _, tc := range []struct {
		name     string
		agrees   int
		first    int
		controls []int
		backend  int    // the backend control's step; 0: not measured
		cell     string // the control's cell in the table
		verdict  string
	}{
		{"one control, parts later", 9, 7, nil, 0, "| 9 | 7 |", "Float rounding amplified by training"},
		{"one control, parts earlier", 5, 7, nil, 0, "| 5 | 7 |", "Not diagnosed yet"},
		{"controls, within their range", 5, 7, []int{7, 3, 12, 5}, 0, "| 5 | 3–12 |", "4 controls: 3 to 12"},
		{"controls, all later", 2, 7, []int{7, 3, 12, 4}, 0, "| 2 | 3–12 |", "Not diagnosed yet"},
		{"controls later, backend control earlier", 2, 7, []int{7, 3}, 1, "| 2 | 3–7 |", "pure-Go backend parts from narlab on xla-cpu at step 1"},
		{"controls and backend control later", 2, 7, []int{7, 3}, 4, "| 2 | 3–7 |", "Not diagnosed yet (narlab on the pure-Go backend against xla-cpu: 4)."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			row := SameInitRow{Algo: "bfs", Processor: "mpnn", Steps: 35, AgreesTo: tc.agrees, UlpAgreesTo: ptr(tc.first),
				UlpControls: tc.controls, Backend: "xla-cpu", RefLosses: losses, NarlabLosses: losses, UlpLosses: losses}
			if tc.backend > 0 {
				row.BackendControl = ptr(tc.backend)
			}
			got := view{&Set{SameInit: []SameInitRow{row}}}.SameInitTable()
			for _, want := range []string{tc.cell, tc.verdict} {
				if !strings.Contains(got, want) {
					t.Errorf("table lacks %q:\n%s", want, got)
				}
			}
		})
	}
}
