package graphtext

import (
	"math"
	"strings"
	"testing"
)

func TestParseSpectralAnswer(t *testing.T) {
	cases := []struct {
		in   string
		want float64
	}{
		{`Therefore, the final answer is: $\boxed{0.267}$.`, 0.267},
		{`... so about 54.24. Therefore, the final answer is: \boxed{54.24}`, 54.24},
		{`\boxed{1} first, then corrected: \boxed{2.5}`, 2.5},
		{`\boxed{\frac{1}{2}}`, 0.5},
		{`\boxed{-\dfrac{3}{4}}`, -0.75},
		{`\boxed{\tfrac{3}{4}}`, 0.75},
		{`\boxed{\frac12}`, 0.5},
		{`\boxed{3/4}`, 0.75},
		{`\boxed{1.5e-3}`, 0.0015},
		{`\boxed{1.5 \times 10^{-3}}`, 0.0015},
		{`\boxed{2\times10^3}`, 2000},
		{`\boxed{1,234.5}`, 1234.5},
		{`\boxed{\lambda_2 \approx 0.852}`, 0.852},
		{`\boxed{E(G) = 7.36}`, 7.36},
		{`\boxed{\text{2}}`, 2},
		{`\boxed{ -1.68 }`, -1.68},
		{`\boxed{−2}`, -2},
		{`\boxed{+3.}`, 3},
		{`\boxed 5`, 5},
		{`\fbox{4.25}`, 4.25},
		{`$\boxed{\left(7\right)}$`, 7},
		{`The answer is 3.75.`, 3.75},
		{"So the final answer is: 12\nmore text", 12},
		{`\boxed{\mathbf{0.5}}`, 0.5},
	}
	for _, tc := range cases {
		got, err := ParseSpectralAnswer(tc.in)
		if err != nil {
			t.Errorf("ParseSpectralAnswer(%q): %v", tc.in, err)
			continue
		}
		if math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("ParseSpectralAnswer(%q) = %v; want %v", tc.in, got, tc.want)
		}
	}
}

func TestParseSpectralAnswerErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{"I cannot compute this.", "no \\boxed{}"},
		{`\boxed{}`, "not a number"},
		{`\boxed{approximately two}`, "not a number"},
		{`\boxed{1/0}`, "not a number"},
		{`\boxed{inf}`, "not a number"},
		{`\boxed{NaN}`, "not a number"},
		{`\boxed{0x1p3}`, "not a number"},
		{`\boxed{1e400}`, "not a number"},
		{`\boxed{[1, 2]}`, "not a number"},
		{`\boxed{0.5`, "no \\boxed{}"},
	}
	for _, tc := range cases {
		_, err := ParseSpectralAnswer(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseSpectralAnswer(%q): error %v; want one mentioning %q", tc.in, err, tc.want)
		}
	}
}

func TestParseStats(t *testing.T) {
	var p ParseStats
	if p.Rate() != 0 {
		t.Fatal("empty rate not 0")
	}
	for _, s := range []string{`\boxed{1}`, "no", `\boxed{2}`, `\boxed{x}`} {
		_, err := ParseSpectralAnswer(s)
		p.Add(err == nil)
	}
	if p.Total != 4 || p.Parsed != 2 || p.Rate() != 0.5 {
		t.Fatalf("stats %+v rate %v; want 2/4", p, p.Rate())
	}
}

func FuzzParseSpectralAnswer(f *testing.F) {
	for _, s := range []string{`\boxed{0.5}`, `\boxed{\frac{1}{2}}`, `\boxed 3`, `the answer is 4`, `\fbox{`, `\boxed{{}}`, `\boxed`, `1/`, `\boxed{1\times10^{}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseSpectralAnswer(s)
		if err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
			t.Fatalf("ParseSpectralAnswer(%q) = %v without error", s, v)
		}
	})
}
