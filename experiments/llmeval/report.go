package llmeval

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"sort"
	"time"

	textexp "github.com/narlab/narlab/experiments/clrstext"
	"github.com/narlab/narlab/experiments/serialization"
	"github.com/narlab/narlab/experiments/spectral"
	"github.com/narlab/narlab/lib/clrstext"
	"github.com/narlab/narlab/lib/dsr"
	"github.com/narlab/narlab/lib/graphtext"
)

// WriteReport writes the result as text: the suite's own table (CLRS-Text's
// score table, the serialization summary, Table 10 with the sMAPE per
// difficulty group over the tasks with parsed answers, DSR-Bench's
// tables), then the score per group and the harness's counts (prompts,
// cache, failures, tokens, requests, time).
func (res *Result) WriteReport(out io.Writer) error {
	w := bufio.NewWriter(out)
	switch rep := res.Report.(type) {
	case *clrstext.Report:
		textexp.WriteTable(w, *rep, 0)
	case *serialization.Report:
		serialization.WriteSummary(w, rep)
	case *spectral.Report:
		fmt.Fprint(w, rep.Markdown())
		// sMAPE per difficulty over the tasks with parsed answers.
		model := rep.Predictors[len(rep.Predictors)-1]
		sum, n := map[string]float64{}, map[string]int{}
		for _, task := range rep.Tasks {
			v := rep.Results[model][task].Metrics.SMAPE100
			if math.IsNaN(v) {
				continue
			}
			for _, grp := range []string{graphtext.SpectralDifficulty(task), "All"} {
				sum[grp] += v
				n[grp]++
			}
		}
		fmt.Fprintf(w, "%s: sMAPE", model)
		for _, grp := range []string{"Easy", "Medium", "Hard", "All"} {
			if n[grp] > 0 {
				fmt.Fprintf(w, " %s %.2f", grp, sum[grp]/float64(n[grp]))
			} else {
				fmt.Fprintf(w, " %s –", grp)
			}
		}
		fmt.Fprintln(w, " (mean over tasks with parsed answers)")
	case *dsr.Tables:
		dsr.WriteTables(w, *rep)
	}
	fmt.Fprintln(w)
	var groups []string
	for g := range res.Groups {
		groups = append(groups, g)
	}
	sort.Strings(groups)
	fmt.Fprintf(w, "%-32s %s\n", "group", res.ScoreName)
	for _, g := range groups {
		fmt.Fprintf(w, "%-32s %.4f\n", g, res.Groups[g])
	}
	score := "-"
	if !math.IsNaN(res.Score) {
		score = fmt.Sprintf("%.4f", res.Score)
	}
	fmt.Fprintf(w, "%s, %s: %s %s over %d prompts (%d from the cache, %d failed requests, %d empty and %d unparsed answers); %d prompt and %d completion tokens; %d HTTP requests (%d retries) in %s\n",
		res.Suite, res.Label, res.ScoreName, score, res.Prompts, res.Cached, res.Failed, res.Empty, res.Unparsed,
		res.PromptTokens, res.OutputTokens, res.Requests.Requests, res.Requests.Retries, res.Wall.Round(time.Millisecond))
	return w.Flush()
}
