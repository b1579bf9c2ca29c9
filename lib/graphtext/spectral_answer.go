package graphtext

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// ParseSpectralAnswer extracts the numeric answer of a spectral task from a
// model's output, following the serialization notes §6.3 and the G1
// checker's extraction: the content of the last \boxed{...} (braces
// matched; the forms "\boxed 5" and \fbox{...} count too), or, when there
// is no box, the text after the last "the answer is" / "the final answer
// is" (case-insensitive). Unlike G1's fallback it keeps decimal points.
//
// The content is cleaned of "$", "\!", "\left", "\right", "\,", \text{...}
// wrappers and spaces, and read as a plain or scientific number ("1.5e-3",
// "1.5\times10^{-3}"), a fraction ("\frac{a}{b}", "\dfrac", "\tfrac",
// "a/b"), a number with thousands separators ("1,234.5"), or, when it
// holds "=" or "\approx", the part after the last one. Anything else, and
// non-finite values, give an error that quotes the answer.
func ParseSpectralAnswer(text string) (float64, error) {
	s, ok := lastBoxed(text)
	if !ok {
		m := answerIsRE.FindAllStringSubmatchIndex(text, -1)
		if m == nil {
			return 0, fmt.Errorf("graphtext: no \\boxed{} answer and no \"the answer is\" in %q", clip(text))
		}
		last := m[len(m)-1]
		s = text[last[2]:last[3]]
		if i := strings.IndexAny(s, "\n"); i >= 0 {
			s = s[:i]
		}
		s = strings.TrimRight(strings.TrimSpace(s), ".")
	}
	v, err := parseNumber(s)
	if err != nil {
		return 0, fmt.Errorf("graphtext: answer %q is not a number: %w", clip(s), err)
	}
	return v, nil
}

var answerIsRE = regexp.MustCompile(`(?i)the (?:final )?answer is\s*:?\s*(.*)`)

func clip(s string) string {
	if len(s) > 80 {
		return s[:40] + "…" + s[len(s)-37:]
	}
	return s
}

// lastBoxed returns the content of the last \boxed{...} or \fbox{...} in s
// (brace-matched), or of a "\boxed x" form up to the next space or "$".
func lastBoxed(s string) (string, bool) {
	i := max(strings.LastIndex(s, `\boxed`), strings.LastIndex(s, `\fbox`))
	if i < 0 {
		return "", false
	}
	j := strings.IndexAny(s[i+1:], "{ \t\n$")
	if j < 0 {
		return "", false
	}
	rest := s[i+1+j:]
	if rest[0] != '{' {
		// "\boxed 5" form.
		rest = strings.TrimLeft(rest, " \t")
		if k := strings.IndexAny(rest, " \t\n$"); k >= 0 {
			rest = rest[:k]
		}
		return rest, rest != ""
	}
	depth := 0
	for k, c := range rest {
		switch c {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return rest[1:k], true
			}
		}
	}
	return "", false
}

var (
	textRE   = regexp.MustCompile(`\\(?:text|mathrm|textbf|mathbf)\{([^{}]*)\}`)
	fracRE   = regexp.MustCompile(`^(-?)\\[dt]?frac\{([^{}]+)\}\{([^{}]+)\}$`)
	fracRE2  = regexp.MustCompile(`^(-?)\\[dt]?frac(\d)(\d)$`)
	timesRE  = regexp.MustCompile(`^(.+?)(?:\\times|\\cdot|×|\*)10\^\{?([-+−]?\d+)\}?$`)
	thousand = regexp.MustCompile(`^[-+]?\d{1,3}(,\d{3})+(\.\d*)?$`)
)

func parseNumber(s string) (float64, error) {
	s = textRE.ReplaceAllString(s, "$1")
	for _, cut := range []string{"$", `\!`, `\,`, `\;`, `\left`, `\right`, " ", "\t", "\n", "{,}"} {
		s = strings.ReplaceAll(s, cut, "")
	}
	s = strings.ReplaceAll(s, "−", "-")
	for _, sep := range []string{`\approx`, "≈", "="} {
		if i := strings.LastIndex(s, sep); i >= 0 {
			s = s[i+len(sep):]
		}
	}
	s = strings.TrimRight(s, ".")
	for len(s) >= 2 && s[0] == '(' && s[len(s)-1] == ')' {
		s = s[1 : len(s)-1]
	}
	s = strings.TrimPrefix(s, "+")
	if s == "" {
		return 0, fmt.Errorf("empty")
	}
	if thousand.MatchString(s) {
		s = strings.ReplaceAll(s, ",", "")
	}
	if m := fracRE.FindStringSubmatch(s); m != nil {
		return frac(m[1], m[2], m[3])
	}
	if m := fracRE2.FindStringSubmatch(s); m != nil {
		return frac(m[1], m[2], m[3])
	}
	if m := timesRE.FindStringSubmatch(s); m != nil {
		b, err := plainFloat(m[1])
		if err != nil {
			return 0, err
		}
		e, err := strconv.Atoi(strings.ReplaceAll(m[2], "−", "-"))
		if err != nil {
			return 0, err
		}
		return finite(b * math.Pow(10, float64(e)))
	}
	if i := strings.Index(s, "/"); i > 0 {
		return frac("", s[:i], s[i+1:])
	}
	return plainFloat(s)
}

func frac(sign, a, b string) (float64, error) {
	x, err := plainFloat(a)
	if err != nil {
		return 0, err
	}
	y, err := plainFloat(b)
	if err != nil {
		return 0, err
	}
	if y == 0 {
		return 0, fmt.Errorf("zero denominator")
	}
	if sign == "-" {
		x = -x
	}
	return finite(x / y)
}

// plainFloat accepts decimal and scientific notation only (no hex, no
// "inf"/"nan", no underscores).
func plainFloat(s string) (float64, error) {
	if s == "" || strings.ContainsAny(s, "xXpP_") || strings.ContainsAny(strings.ToLower(s), "in") {
		return 0, fmt.Errorf("want a decimal number")
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("want a decimal number")
	}
	return finite(v)
}

func finite(v float64) (float64, error) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("value %v is not finite", v)
	}
	return v, nil
}

// ParseStats counts answers and how many of them parsed.
type ParseStats struct {
	Total, Parsed int
}

// Add records one answer.
func (p *ParseStats) Add(ok bool) {
	p.Total++
	if ok {
		p.Parsed++
	}
}

// Rate returns Parsed/Total, or 0 when there were no answers.
func (p ParseStats) Rate() float64 {
	if p.Total == 0 {
		return 0
	}
	return float64(p.Parsed) / float64(p.Total)
}
