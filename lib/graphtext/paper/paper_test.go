package paper_test

import (
	"slices"
	"testing"

	"github.com/narlab/narlab/lib/graphtext"
	"github.com/narlab/narlab/lib/graphtext/paper"
)

func TestTablesShape(t *testing.T) {
	t.Parallel()
	if !slices.Equal(paper.TaskOrder, graphtext.TaskNames()) {
		t.Errorf("paper task order differs from graphtext.Tasks():\n%v\n%v", paper.TaskOrder, graphtext.TaskNames())
	}
	for _, m := range paper.Models {
		if len(paper.SyntaxAccuracy[m]) != 49 || len(paper.EncodingAccuracy[m]) != 49 || len(paper.EncodingStd[m]) != 49 {
			t.Errorf("%s: table rows %d/%d/%d, want 49", m, len(paper.SyntaxAccuracy[m]), len(paper.EncodingAccuracy[m]), len(paper.EncodingStd[m]))
		}
		// Table 6's Erdős column is the same experiment as Tables 3-5's E0.
		for i := range paper.SyntaxAccuracy[m] {
			if paper.SyntaxAccuracy[m][i][0] != paper.EncodingAccuracy[m][i][0] {
				t.Errorf("%s %s: Table 6 Erdős %v vs Table 3-5 E0 %v", m, paper.TaskOrder[i], paper.SyntaxAccuracy[m][i][0], paper.EncodingAccuracy[m][i][0])
			}
		}
	}
}
