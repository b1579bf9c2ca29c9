package tracking

import (
	"fmt"
	"math"
	"strings"
)

// MarkdownTable renders a results table (the columns and rows of
// [Run.LogTable]) as Markdown, the results.md beside a results.json:
// floats with two decimals (integral ones as integers), nil as "—".
func MarkdownTable(columns []string, rows [][]any) string {
	var b strings.Builder
	b.WriteString("| " + strings.Join(columns, " | ") + " |\n|")
	b.WriteString(strings.Repeat("---|", len(columns)) + "\n")
	for _, row := range rows {
		cells := make([]string, len(row))
		for i, v := range row {
			switch x := v.(type) {
			case nil:
				cells[i] = "—"
			case float64:
				if x == math.Trunc(x) && math.Abs(x) < 1e15 {
					cells[i] = fmt.Sprintf("%.0f", x) // an integer read back from JSON
				} else {
					cells[i] = fmt.Sprintf("%.2f", x)
				}
			case float32:
				cells[i] = fmt.Sprintf("%.2f", x)
			default:
				cells[i] = strings.ReplaceAll(fmt.Sprint(x), "|", `\|`)
			}
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	return b.String()
}
