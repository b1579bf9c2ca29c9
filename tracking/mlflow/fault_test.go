package mlflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestFaultServerRestart crashes the real server (SIGKILL, in the middle of
// requests) while two runs log thousands of metric points, restarts it,
// and checks that every point arrives exactly once: for one run through
// its own live logger once the server is back, for the other through Sync
// after the run ended offline.
func TestFaultServerRestart(t *testing.T) {
	c := testClient(t)
	ctx := context.Background()
	opts := func(name string, spool string) RunOptions {
		return RunOptions{Experiment: "narlab-test/fault", RunName: name, SpoolDir: spool,
			FlushInterval: 20 * time.Millisecond, FlushSize: 200, MaxBackoff: 300 * time.Millisecond,
			EndTimeout: 2 * time.Second, Logf: quietLogf(t)}
	}
	liveOpts := opts("live-through-restart", newSpoolDir(t))
	liveOpts.EndTimeout = time.Minute // EndTimeout bounds End whatever its context says
	live, err := c.StartRun(ctx, liveOpts)
	if err != nil {
		t.Fatal(err)
	}
	offline, err := c.StartRun(ctx, opts("ended-offline-then-synced", newSpoolDir(t)))
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{"train/loss", "train/acc", "val/loss", "val/score"}
	const liveSteps, offlineSteps = 1500, 1000 // 6000 and 4000 points
	var step atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for s := int64(0); s < liveSteps; s++ {
			for i, k := range keys {
				v := float64(s)*0.001 + float64(i)
				if err := live.LogMetric(k, s, v); err != nil {
					t.Error(err)
					return
				}
				if s < offlineSteps {
					if err := offline.LogMetric(k, s, v); err != nil {
						t.Error(err)
						return
					}
				}
			}
			step.Store(s)
			if s%5 == 0 {
				time.Sleep(time.Millisecond)
			}
		}
	}()
	waitStep := func(n int64) {
		for step.Load() < n {
			time.Sleep(time.Millisecond)
		}
	}
	waitStep(300)
	// Crash the server: no graceful shutdown, requests in flight are cut.
	s := testServer(t)
	port := s.Port
	if err := syscall.Kill(-s.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-s.Exited()
	t.Logf("server killed at step %d (live run: %d requests pending)", step.Load(), live.Pending())
	waitStep(offlineSteps)
	err = offline.End(ctx, StatusFinished)
	if !errors.Is(err, ErrPending) {
		t.Fatalf("End with the server down: %v, want an error wrapping ErrPending", err)
	}
	t.Logf("offline run ended with: %v", err)
	<-done
	if live.Pending() == 0 {
		t.Fatal("nothing was spooled while the server was down")
	}
	startTestServer(t, port)
	endStart := time.Now()
	ectx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := live.End(ectx, StatusFinished); err != nil {
		t.Fatalf("End of the live run after the restart: %v", err)
	}
	t.Logf("the live run delivered its spool in %v after the restart", time.Since(endStart))
	res, err := Sync(ctx, c, offline.SpoolDir(), SyncOptions{})
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	if res.Sent == 0 || res.Pending != 0 || !res.Ended {
		t.Errorf("Sync result %+v", res)
	}
	// A second sync finds nothing to do.
	if res2, err := Sync(ctx, c, offline.SpoolDir(), SyncOptions{}); err != nil || res2.Sent != 0 {
		t.Errorf("second Sync: %+v, %v", res2, err)
	}
	for _, r := range []struct {
		id    string
		steps int
	}{{live.RunID(), liveSteps}, {res.RunID, offlineSteps}} {
		run, err := c.GetRun(ctx, r.id)
		if err != nil {
			t.Fatal(err)
		}
		if run.Info.Status != StatusFinished {
			t.Errorf("run %s: status %s", run.Info.RunName, run.Info.Status)
		}
		for _, k := range keys {
			hist, err := c.GetMetricHistory(ctx, r.id, k)
			if err != nil {
				t.Fatal(err)
			}
			checkSteps(t, run.Info.RunName+" "+k, hist, r.steps)
		}
	}
}

// fakeAppendStore is a unit-level stand-in for a tracking store that, like
// MLflow's file store, does NOT deduplicate metric points, so that a
// duplicate delivery would show. It can apply a request and then drop the
// connection, as a crash or a network failure after the commit does. The
// real server's behaviour is covered by the integration tests.
type fakeAppendStore struct {
	mu      sync.Mutex
	runs    map[string][]Tag
	metrics map[string][]Metric
	creates int
	batches int
	// dropAfterApply lists the 1-based log-batch and create calls whose
	// answers are lost after they were applied.
	dropBatch, dropCreate map[int]bool
}

func newFakeAppendStore(t *testing.T) (*fakeAppendStore, *httptest.Server) {
	f := &fakeAppendStore{runs: map[string][]Tag{}, metrics: map[string][]Metric{}, dropBatch: map[int]bool{}, dropCreate: map[int]bool{}}
	s := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(s.Close)
	return f, s
}

func (f *fakeAppendStore) drop(w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		conn.Close()
	}
}

func (f *fakeAppendStore) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	var in map[string]json.RawMessage
	_ = json.Unmarshal(body, &in)
	str := func(k string) string {
		var s string
		_ = json.Unmarshal(in[k], &s)
		return s
	}
	switch strings.TrimPrefix(r.URL.Path, "/api/2.0/mlflow/") {
	case "experiments/get-by-name":
		fmt.Fprintf(w, `{"experiment":{"experiment_id":"1","name":%q,"lifecycle_stage":"active"}}`, r.URL.Query().Get("experiment_name"))
	case "runs/create":
		f.creates++
		id := fmt.Sprintf("run%d", f.creates)
		var tags []Tag
		_ = json.Unmarshal(in["tags"], &tags)
		f.runs[id] = tags
		if f.dropCreate[f.creates] {
			f.drop(w)
			return
		}
		fmt.Fprintf(w, `{"run":{"info":{"run_id":%q,"experiment_id":"1","artifact_uri":"mlflow-artifacts:/1/%s/artifacts"}}}`, id, id)
	case "runs/search":
		var out []string
		var filter string
		_ = json.Unmarshal(in["filter"], &filter)
		for id, tags := range f.runs {
			for _, tg := range tags {
				if tg.Key == SpoolIDTag && strings.Contains(filter, "'"+tg.Value+"'") {
					out = append(out, fmt.Sprintf(`{"info":{"run_id":%q,"experiment_id":"1","artifact_uri":"mlflow-artifacts:/1/%s/artifacts"}}`, id, id))
				}
			}
		}
		fmt.Fprintf(w, `{"runs":[%s]}`, strings.Join(out, ","))
	case "runs/log-batch":
		f.batches++
		var ms []Metric
		_ = json.Unmarshal(in["metrics"], &ms)
		f.metrics[str("run_id")] = append(f.metrics[str("run_id")], ms...)
		if f.dropBatch[f.batches] {
			f.drop(w)
			return
		}
		io.WriteString(w, `{}`)
	case "metrics/get-history":
		q := r.URL.Query()
		var out []Metric
		for _, m := range f.metrics[q.Get("run_id")] {
			if m.Key == q.Get("metric_key") {
				out = append(out, m)
			}
		}
		b, _ := json.Marshal(map[string]any{"metrics": out})
		w.Write(b)
	case "runs/update":
		io.WriteString(w, `{"run_info":{}}`)
	default:
		w.WriteHeader(404)
		fmt.Fprintf(w, `{"error_code":"ENDPOINT_NOT_FOUND","message":"%s"}`, r.URL.Path)
	}
}

// TestInDoubtLive: answers lost after the server applied a create-run and
// a log-batch do not create a second run or duplicate points.
func TestInDoubtLive(t *testing.T) {
	f, s := newFakeAppendStore(t)
	f.dropCreate[1] = true
	f.dropBatch[2] = true
	f.dropBatch[3] = true
	c, _ := NewClient(s.URL)
	ctx := context.Background()
	r, err := c.StartRun(ctx, RunOptions{Experiment: "e", SpoolDir: newSpoolDir(t), FlushSize: 100, FlushInterval: 10 * time.Millisecond, Logf: quietLogf(t)})
	if err != nil {
		t.Fatal(err)
	}
	for step := int64(0); step < 1000; step++ {
		r.LogMetric("train/loss", step, float64(step))
		if step%100 == 0 {
			r.Persist()
		}
	}
	if err := r.End(ctx, StatusFinished); err != nil {
		t.Fatal(err)
	}
	if f.creates != 1 || r.RunID() != "run1" {
		t.Errorf("%d runs created, run id %q; want 1, run1", f.creates, r.RunID())
	}
	checkSteps(t, "in-doubt live", f.metrics["run1"], 1000)
}

// TestInDoubtSync: a crash between sending a request and recording its
// acknowledgment, then a replay by Sync, does not duplicate the request.
func TestInDoubtSync(t *testing.T) {
	f, s := newFakeAppendStore(t)
	c, _ := NewClient(s.URL)
	ctx := context.Background()
	dir := newSpoolDir(t)
	sp, err := CreateSpool(dir, SpoolMeta{Experiment: "e", Tracking: s.URL})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := jsonMarshal(map[string]any{"start_time": 1, "tags": []Tag{{SpoolIDTag, sp.meta.LocalID}}})
	sp.append(record{Op: opCreateRun, Experiment: "e", Body: body})
	var recs []record
	for i := 0; i < 3; i++ {
		var b Batch
		for j := 0; j < 10; j++ {
			step := int64(10*i + j)
			b.Metrics = append(b.Metrics, Metric{Key: "k", Value: float64(step), Step: step, Timestamp: 5})
		}
		seq, _ := sp.append(record{Op: opLogBatch, Body: b.encode()})
		recs = append(recs, record{Seq: seq, Op: opLogBatch, Body: b.encode()})
	}
	d := &deliverer{c: c, s: sp}
	rd, _ := sp.reader()
	rec, _, _ := rd.next(sp.committed())
	if err := d.deliver(ctx, rec, false); err != nil { // create-run, acknowledged
		t.Fatal(err)
	}
	if err := d.deliver(ctx, recs[0], false); err != nil { // batch 1, acknowledged
		t.Fatal(err)
	}
	// Batch 2 reaches the server, then the process dies before the ack.
	resp, err := c.send(ctx, request{method: http.MethodPost, endpoint: "mlflow/runs/log-batch", body: withRunID(recs[1].Body, sp.RunID())}, NoRetry)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	rd.Close()
	sp.Close()

	res, err := Sync(ctx, c, dir, SyncOptions{MarkAbandoned: StatusKilled})
	if err != nil {
		t.Fatal(err)
	}
	if res.Sent != 3 || !res.Ended { // batch 2 (found delivered), batch 3, the KILLED update
		t.Errorf("Sync: %+v", res)
	}
	checkSteps(t, "in-doubt sync", f.metrics["run1"], 30)
}
