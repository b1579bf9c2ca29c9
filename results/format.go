package results

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// f formats x with d decimals.
func f(x float64, d int) string { return strconv.FormatFloat(x, 'f', d, 64) }

// th formats x with d decimals and a comma between thousands (1,234.5).
func th(x float64, d int) string {
	s := f(x, d)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	out := b.String()
	if hasFrac {
		out += "." + frac
	}
	if neg {
		out = "-" + out
	}
	return out
}

// pf formats an optional figure, or dash when it was not measured.
func pf(x *float64, d int, dash string) string {
	if x == nil {
		return dash
	}
	return f(*x, d)
}

// ratio formats a/b as "N×" with d decimals.
func ratio(a, b float64, d int) string { return f(a/b, d) + "×" }

// minMax returns the smallest and the largest of xs.
func minMax(xs []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return lo, hi
}

// table writes a markdown table: a header row, its alignment row (right
// for the columns named in right, by index) and the rows.
type table struct {
	b     strings.Builder
	ncols int
}

func newTable(right []int, header ...string) *table {
	t := &table{ncols: len(header)}
	t.row(header...)
	align := make([]string, len(header))
	for i := range align {
		align[i] = "---"
	}
	for _, i := range right {
		align[i] = "---:"
	}
	t.row(align...)
	return t
}

func (t *table) row(cells ...string) {
	if len(cells) != t.ncols {
		panic(fmt.Sprintf("results: a row of %d cells in a table of %d columns", len(cells), t.ncols))
	}
	t.b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
}

func (t *table) String() string { return strings.TrimSuffix(t.b.String(), "\n") }

// cols returns the indexes from..to-1 (right-aligned columns).
func cols(from, to int) []int {
	var c []int
	for i := from; i < to; i++ {
		c = append(c, i)
	}
	return c
}

// joinAnd joins items as "a, b and c".
func joinAnd(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// uniq returns the distinct strings of xs in their first order.
func uniq(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if x != "" && !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
