package dsr

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteTables prints the aggregate tables as aligned text: the cells, the
// structures (Table 2 rows), the categories, the overall score and the
// challenge table (Table 3).
func WriteTables(w io.Writer, t Tables) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "task\tvariant\tlevel\tn\tbinary\tlevenshtein\tunparsed")
	for _, c := range t.Cells {
		v := c.Variant
		if c.Extra {
			v += " (extra)"
		}
		fmt.Fprintf(tw, "%s/%s\t%s\t%s\t%d\t%.3f\t%.3f\t%d\n", c.Structure, c.Operation, v, c.Level, c.N, c.Binary, c.Levenshtein, c.Failed)
	}
	tw.Flush()
	if len(t.Structures) == 0 {
		fmt.Fprintln(w, "\n(no main-task results: no structure, category or overall scores)")
		return
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "category\tstructure\tbinary\tlevenshtein")
	for _, cat := range t.Categories {
		for _, s := range t.Structures {
			if s.Category == cat.Category {
				fmt.Fprintf(tw, "%s\t%s\t%.3f\t%.3f\n", cat.Name, s.Title, s.Binary, s.Levenshtein)
			}
		}
		fmt.Fprintf(tw, "%s\tavg\t%.3f\t%.3f\n", cat.Name, cat.Binary, cat.Levenshtein)
	}
	fmt.Fprintf(tw, "Overall\t\t%.3f\t%.3f\n", t.Overall.Binary, t.Overall.Levenshtein)
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "challenge (long level)\tbinary\tlevenshtein")
	for _, s := range t.Challenge.Rows {
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\n", s.Title, s.Binary, s.Levenshtein)
	}
	fmt.Fprintf(tw, "Challenge score\t%.3f\t%.3f\n", t.Challenge.Score.Binary, t.Challenge.Score.Levenshtein)
	tw.Flush()
	if len(t.Challenge.Missing) > 0 {
		fmt.Fprintf(w, "(no long-level results for %v: the challenge score averages the others)\n", t.Challenge.Missing)
	}
}
