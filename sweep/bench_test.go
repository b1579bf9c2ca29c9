package sweep

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/narlab/narlab/tracking/mlflow"
)

// BenchmarkTrackingServer measures how many metric points per second a
// tracking server started by `narlab mlflow serve` (4 workers) takes from 8
// concurrent writers, with a PostgreSQL backend store and with a SQLite
// one. Each writer has its own run and sends log-batch requests of
// `batch` points (1000 is what a narlab run sends under load) as fast as
// the server answers; b.N is the number of requests over all writers.
//
//	make bench-tracking   # go test -run '^$' -bench TrackingServer -benchtime 300x ./sweep
func BenchmarkTrackingServer(b *testing.B) {
	servers := []struct{ name, url string }{
		{"postgresql", serveMLflowWorkers(b, postgres(b), 4)},
		{"sqlite", serveMLflowWorkers(b, "sqlite:///"+filepath.Join(b.TempDir(), "mlflow.db"), 4)},
	}
	for _, srv := range servers {
		for _, batch := range []int{10, 1000} {
			b.Run(fmt.Sprintf("store=%s/writers=8/batch=%d", srv.name, batch), func(b *testing.B) {
				benchWriters(b, srv.url, 8, batch)
			})
		}
	}
}

func benchWriters(b *testing.B, url string, writers, batch int) {
	ctx := context.Background()
	c := trackingClient(b, url)
	exp, err := c.GetOrCreateExperiment(ctx, "bench-tracking")
	if err != nil {
		b.Fatal(err)
	}
	runs := make([]string, writers)
	for i := range runs {
		r, err := c.CreateRun(ctx, mlflow.CreateRunOptions{ExperimentID: exp.ID, RunName: fmt.Sprintf("writer-%d", i)})
		if err != nil {
			b.Fatal(err)
		}
		runs[i] = r.Info.RunID
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	b.ResetTimer()
	start := time.Now()
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(run string) {
			defer wg.Done()
			for {
				n := next.Add(1)
				if n > int64(b.N) {
					return
				}
				ms := make([]mlflow.Metric, batch)
				now := time.Now().UnixMilli()
				for i := range ms {
					step := n*int64(batch) + int64(i)
					ms[i] = mlflow.Metric{Key: "train/loss", Value: 1 / float64(step+1), Timestamp: now, Step: step}
				}
				if err := c.LogBatch(ctx, run, mlflow.Batch{Metrics: ms}); err != nil {
					errs <- err
					return
				}
			}
		}(runs[w])
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N*batch)/elapsed.Seconds(), "points/s")
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "requests/s")
	// Every point arrived.
	var total int
	for _, run := range runs {
		h, err := c.GetMetricHistory(ctx, run, "train/loss")
		if err != nil {
			b.Fatal(err)
		}
		total += len(h)
	}
	if total != b.N*batch {
		b.Fatalf("the server holds %d points; %d were sent", total, b.N*batch)
	}
}
