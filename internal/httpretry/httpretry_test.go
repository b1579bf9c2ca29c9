package httpretry

import (
	"net/http"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	date := func(d time.Duration) string { return now.Add(d).Format(http.TimeFormat) }
	tests := []struct {
		h    string
		want time.Duration
		ok   bool
	}{
		{"0", 0, true},
		{"1", time.Second, true},
		{" 120 ", 2 * time.Minute, true},
		{"3600", time.Hour, true},
		{"1.5", 1500 * time.Millisecond, true},
		{"0.25", 250 * time.Millisecond, true},
		{"99999999999999999999999", MaxDelay, true}, // no overflow
		{date(90 * time.Second), 90 * time.Second, true},
		{now.Add(3 * time.Second).Format(time.RFC850), 3 * time.Second, true},
		{now.Add(4 * time.Second).Format(time.ANSIC), 4 * time.Second, true},
		{date(-time.Hour), 0, true}, // a date that has passed: retry now
		{now.AddDate(400, 0, 0).Format(http.TimeFormat), MaxDelay, true},
		{"", 0, false},
		{"   ", 0, false},
		{"-1", 0, false},
		{"+5", 0, false},
		{"1e3", 0, false},
		{"inf", 0, false},
		{"NaN", 0, false},
		{"1.", 0, false},
		{".5", 0, false},
		{"1.2.3", 0, false},
		{"5 seconds", 0, false},
		{"tomorrow", 0, false},
	}
	for _, tt := range tests {
		got, ok := RetryAfter(tt.h, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("RetryAfter(%q) = %v, %v; want %v, %v", tt.h, got, ok, tt.want, tt.ok)
		}
	}
}
