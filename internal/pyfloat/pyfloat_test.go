package pyfloat

import (
	"math"
	"testing"
)

// Each want is what CPython 3 prints for repr(x) (and json.dumps(x) for the
// finite values).
func TestString(t *testing.T) {
	tests := []struct {
		x    float64
		want string
	}{
		{0, "0.0"},
		{math.Copysign(0, -1), "-0.0"},
		{1, "1.0"},
		{-2.5, "-2.5"},
		{0.1, "0.1"},
		{1.0 / 3, "0.3333333333333333"},
		{123456789, "123456789.0"},
		{0.0001, "0.0001"},
		{0.00012345, "0.00012345"},
		{0.00001, "1e-05"},
		{-0.000015, "-1.5e-05"},
		{9.999999999999999e-05, "9.999999999999999e-05"},
		{1e15, "1000000000000000.0"},
		{9999999999999998, "9999999999999998.0"},
		{1e16, "1e+16"},
		{1.5e16, "1.5e+16"},
		{1.7976931348623157e308, "1.7976931348623157e+308"},
		{5e-324, "5e-324"},
		{1e100, "1e+100"},
		{0.548, "0.548"},
		{math.NaN(), "nan"},
		{math.Inf(1), "inf"},
		{math.Inf(-1), "-inf"},
	}
	for _, tt := range tests {
		if got := String(tt.x); got != tt.want {
			t.Errorf("String(%v) = %q; want %q", tt.x, got, tt.want)
		}
	}
}

func TestAppendJSON(t *testing.T) {
	for x, want := range map[float64]string{math.Inf(1): "Infinity", math.Inf(-1): "-Infinity", 1e-5: "1e-05", 2: "2.0"} {
		if got := string(AppendJSON([]byte("x="), x)); got != "x="+want {
			t.Errorf("AppendJSON(x=, %v) = %q; want %q", x, got, "x="+want)
		}
	}
	if got := string(AppendJSON(nil, math.NaN())); got != "NaN" {
		t.Errorf("AppendJSON(NaN) = %q; want NaN", got)
	}
}

func BenchmarkAppend(b *testing.B) {
	buf := make([]byte, 0, 64)
	for i := 0; i < b.N; i++ {
		buf = Append(buf[:0], 0.548+float64(i))
	}
}
