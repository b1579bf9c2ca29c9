// Package httpretry holds what narlab's HTTP clients (tracking/mlflow's
// MLflow client and lib/llm's OpenAI-compatible client) share about
// retrying a request: reading the server's Retry-After header. Each client
// keeps its own policy (which statuses it retries, its backoff, the longest
// wait it accepts).
package httpretry

import (
	"net/http"
	"strings"
	"time"
)

// MaxDelay is the longest delay RetryAfter returns: a larger number of
// seconds is read as MaxDelay (about 31 years) rather than overflowing, so
// that a caller comparing it with its own limit still sees "too long".
const MaxDelay = 1e9 * time.Second

// RetryAfter reads the value of a Retry-After header (RFC 9110 §10.2.3),
// either form: delay-seconds ("120"; a decimal fraction such as "1.5" is
// accepted too) or an HTTP date ("Wed, 21 Oct 2015 07:28:00 GMT", or the
// obsolete RFC 850 and asctime forms), which is measured from now. It
// returns the delay, 0 for a date that has passed, and ok=false for an
// empty or malformed value (a sign, an exponent, "inf", any other text),
// which a client treats as no header at all.
func RetryAfter(h string, now time.Time) (d time.Duration, ok bool) {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0, false
	}
	if d, ok := seconds(h); ok {
		return d, true
	}
	t, err := http.ParseTime(h)
	if err != nil {
		return 0, false
	}
	if d := t.Sub(now); d > 0 {
		return min(d, MaxDelay), true
	}
	return 0, true
}

// seconds parses DIGITS or DIGITS.DIGITS as a number of seconds, capped at
// MaxDelay.
func seconds(s string) (time.Duration, bool) {
	whole, frac, dot := strings.Cut(s, ".")
	if whole == "" || (dot && frac == "") {
		return 0, false
	}
	var d time.Duration
	for _, c := range whole {
		if c < '0' || c > '9' {
			return 0, false
		}
		if d < MaxDelay {
			d = d*10 + time.Duration(c-'0')*time.Second
		}
	}
	scale := time.Second
	for _, c := range frac {
		if c < '0' || c > '9' {
			return 0, false
		}
		scale /= 10
		d += time.Duration(c-'0') * scale
	}
	return min(d, MaxDelay), true
}
