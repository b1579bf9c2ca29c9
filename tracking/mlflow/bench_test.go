package mlflow

import (
	"context"
	"testing"
	"time"
)

// Benchmarks against the real local server (see main_test.go):
//
//	go test -run '^$' -bench 'LogMetric|Sustained' -benchtime 20000x ./tracking/mlflow
//	go test -run '^$' -bench 'Direct|SpoolAppend' ./tracking/mlflow

func benchRun(b *testing.B, name string) *RunLogger {
	b.Helper()
	c := testClient(b)
	r, err := c.StartRun(context.Background(), RunOptions{Experiment: "narlab-bench", RunName: name,
		SpoolDir: newSpoolDir(b), Logf: func(string, ...any) {}})
	if err != nil {
		b.Fatal(err)
	}
	if r.RunID() == "" {
		b.Fatal("run not created")
	}
	return r
}

var benchKeys = []string{"train/loss", "train/acc", "val/loss", "val/score"}

// BenchmarkLogMetric is the cost of one LogMetric call inside a training
// loop while the background goroutines spool and send (it never waits for
// the server).
func BenchmarkLogMetric(b *testing.B) {
	r := benchRun(b, "bench-logmetric")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := r.LogMetric(benchKeys[i%4], int64(i/4), float64(i)); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := r.End(ctx, StatusFinished); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSustained logs b.N points as fast as possible and waits until
// the server has all of them: the end-to-end throughput of the client
// against a local server, in metric points per second.
func BenchmarkSustained(b *testing.B) {
	r := benchRun(b, "bench-sustained")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if err := r.LogMetric(benchKeys[i%4], int64(i/4), float64(i)); err != nil {
			b.Fatal(err)
		}
	}
	if err := r.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "metrics/s")
	if err := r.End(ctx, StatusFinished); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSpoolAppend is the cost of spooling one full log-batch request
// (1000 points, fsync'd).
func BenchmarkSpoolAppend(b *testing.B) {
	s, err := CreateSpool(newSpoolDir(b), SpoolMeta{Experiment: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var batch Batch
	for i := 0; i < MaxMetricsPerBatch; i++ {
		batch.Metrics = append(batch.Metrics, Metric{Key: benchKeys[i%4], Value: float64(i) / 3, Step: int64(i), Timestamp: 1700000000000})
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.append(record{Op: opLogBatch, Body: batch.encode()}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLogBatchDirect sends full 1000-point log-batch requests with
// the plain client (no buffer, no spool, one request at a time): what the
// server itself takes, for comparison with BenchmarkSustained.
func BenchmarkLogBatchDirect(b *testing.B) {
	c := testClient(b)
	ctx := context.Background()
	exp, err := c.GetOrCreateExperiment(ctx, "narlab-bench")
	if err != nil {
		b.Fatal(err)
	}
	run, err := c.CreateRun(ctx, CreateRunOptions{ExperimentID: exp.ID, RunName: "bench-direct"})
	if err != nil {
		b.Fatal(err)
	}
	batch := Batch{Metrics: make([]Metric, MaxMetricsPerBatch)}
	now := Millis(time.Now())
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		for j := range batch.Metrics {
			n := i*MaxMetricsPerBatch + j
			batch.Metrics[j] = Metric{Key: benchKeys[n%4], Value: float64(n), Step: int64(n / 4), Timestamp: now}
		}
		if err := c.LogBatch(ctx, run.Info.RunID, batch); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N*MaxMetricsPerBatch)/time.Since(start).Seconds(), "metrics/s")
	if err := c.EndRun(ctx, run.Info.RunID, StatusFinished); err != nil {
		b.Fatal(err)
	}
}
