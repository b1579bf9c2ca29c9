package mlflow

import (
	"context"
	"time"
)

// retryLoop is the one retry loop of this package, used by the client
// (Client.send), the run logger's background sender and Sync. It calls try
// with the attempt number (from 0) until try returns retry=false (success,
// or a failure not worth retrying), the policy's retries are spent
// (p.MaxRetries < 0: never), ctx ends or stop closes. Between attempts it
// waits p.Delay(attempt), or the server's Retry-After when that is longer,
// capped at maxWait when maxWait > 0. It returns try's last error, and
// gaveUp reports that it stopped because of ctx or stop rather than
// because try said so.
func retryLoop(ctx context.Context, p RetryPolicy, maxWait time.Duration, stop <-chan struct{},
	try func(attempt int) (retry bool, err error)) (gaveUp bool, err error) {
	for attempt := 0; ; attempt++ {
		var retry bool
		retry, err = try(attempt)
		if !retry {
			return false, err
		}
		if p.MaxRetries >= 0 && attempt >= p.MaxRetries {
			return false, err
		}
		if ctx.Err() != nil {
			return true, err
		}
		d := p.Delay(attempt)
		if ra := retryAfter(err); ra > d {
			d = ra
		}
		if maxWait > 0 && d > maxWait {
			d = maxWait
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return true, err
		case <-stop:
			t.Stop()
			return true, err
		case <-t.C:
		}
	}
}
