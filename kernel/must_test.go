package kernel

import (
	"errors"
	"testing"
)

func TestMust(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name string
		call func()
		want error // the panic's value; nil: no panic
	}{
		{"Must, no error", func() { _ = Must(1, nil) }, nil},
		{"Must, an error", func() { _ = Must(1, boom) }, boom},
		{"Must2, no error", func() { _, _ = Must2(1, "a", nil) }, nil},
		{"Must2, an error", func() { _, _ = Must2(1, "a", boom) }, boom},
		{"Check, no error", func() { Check(nil) }, nil},
		{"Check, an error", func() { Check(boom) }, boom},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				got := recover()
				if tc.want == nil && got != nil || tc.want != nil && got != tc.want {
					t.Errorf("panicked with %v, want %v", got, tc.want)
				}
			}()
			tc.call()
		})
	}
	if a, b := Must2(7, "x", nil); a != 7 || b != "x" {
		t.Errorf("Must2 returned %v, %v", a, b)
	}
}
