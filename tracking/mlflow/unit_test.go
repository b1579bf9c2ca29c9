package mlflow

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Unit tests: no MLflow server. httptest servers here stand in for the
// network (status codes, dropped connections) and never for MLflow's
// behaviour, which the integration tests check against a real server.

func TestValidateKey(t *testing.T) {
	tests := []struct {
		key  string
		ok   bool
		want string // part of the error
	}{
		{"train/loss", true, ""},
		{"val/score", true, ""},
		{"ood/acc 64", true, ""},
		{"a-b_c.d:e", true, ""},
		{"größe", true, ""},
		{strings.Repeat("k", 250), true, ""},
		{strings.Repeat("k", 251), false, "251 characters"},
		{"", false, "empty"},
		{"acc@64", false, `character '@'`},
		{"loss\n", false, `character '\n'`},
		{"a//b", false, "normalized path"},
		{"/a", false, "normalized path"},
		{"a/", false, "normalized path"},
		{"a/./b", false, "normalized path"},
		{"a/../b", false, "normalized path"},
		{"..", false, "normalized path"},
		{"..a", false, "normalized path"},
		{".", false, "normalized path"},
	}
	for _, tt := range tests {
		err := ValidateKey("metric", tt.key)
		if (err == nil) != tt.ok {
			t.Errorf("ValidateKey(%q) = %v, want ok=%v", tt.key, err, tt.ok)
			continue
		}
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ValidateKey(%q) = %v, want a ValidationError containing %q", tt.key, err, tt.want)
			}
		}
	}
}

func TestValidateValues(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"param ok", ValidateParam("lr", strings.Repeat("x", 6000)), ""},
		{"param too long", ValidateParam("lr", strings.Repeat("x", 6001)), "6001 characters, more than the limit of 6000"},
		{"param runes counted", ValidateParam("lr", strings.Repeat("é", 6000)), ""},
		{"tag ok", ValidateTag("note", strings.Repeat("x", 8000)), ""},
		{"tag too long", ValidateTag("note", strings.Repeat("x", 8001)), "more than the limit of 8000"},
		{"negative timestamp", ValidateMetric(Metric{Key: "a", Timestamp: -1}), "negative"},
		{"NaN is valid", ValidateMetric(Metric{Key: "a", Value: math.NaN()}), ""},
		{"experiment empty", ValidateExperimentName(" "), "empty"},
		{"experiment long", ValidateExperimentName(strings.Repeat("e", 501)), "limit of 500"},
		{"artifact ok", ValidateArtifactPath("plots/loss.png"), ""},
		{"artifact escapes", ValidateArtifactPath("../x"), "normalized"},
		{"artifact absolute", ValidateArtifactPath("/x"), "normalized"},
		{"artifact query", ValidateArtifactPath("a?b"), "contains"},
		{"table path", (&RunLogger{}).LogTable("t.csv", nil, nil), ".json"},
	}
	for _, tt := range tests {
		if tt.want == "" {
			if tt.err != nil {
				t.Errorf("%s: unexpected error %v", tt.name, tt.err)
			}
			continue
		}
		if tt.err == nil || !strings.Contains(tt.err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, tt.err, tt.want)
		}
	}
}

func TestMetricJSON(t *testing.T) {
	tests := []struct {
		v    float64
		json string
	}{
		{1.5, `1.5`},
		{0, `0`},
		{-2e-300, `-2e-300`},
		{1e21, `1e+21`},
		{math.NaN(), `"NaN"`},
		{math.Inf(1), `"Infinity"`},
		{math.Inf(-1), `"-Infinity"`},
	}
	for _, tt := range tests {
		m := Metric{Key: "train/loss", Value: tt.v, Timestamp: 1700000000000, Step: 42}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		want := `{"key":"train/loss","value":` + tt.json + `,"timestamp":1700000000000,"step":42}`
		if string(b) != want {
			t.Errorf("Marshal(%v) = %s, want %s", tt.v, b, want)
		}
		var back Metric
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if back.Key != m.Key || back.Step != 42 || back.Timestamp != m.Timestamp ||
			!(back.Value == tt.v || math.IsNaN(tt.v) && math.IsNaN(back.Value)) {
			t.Errorf("round trip of %v = %+v", tt.v, back)
		}
	}
	// The server may send int64 fields as strings.
	var m Metric
	if err := json.Unmarshal([]byte(`{"key":"k","value":"2.5","timestamp":"17","step":"3"}`), &m); err != nil || m.Value != 2.5 || m.Timestamp != 17 || m.Step != 3 {
		t.Errorf("decoding string fields: %+v, %v", m, err)
	}
	if err := json.Unmarshal([]byte(`{"key":"k","value":"oops"}`), &m); err == nil {
		t.Error("a non-numeric value string decoded without error")
	}
}

func TestChunks(t *testing.T) {
	metrics := func(n int) []Metric {
		ms := make([]Metric, n)
		for i := range ms {
			ms[i] = Metric{Key: "train/loss", Value: float64(i), Step: int64(i), Timestamp: 1}
		}
		return ms
	}
	params := func(n, size int) []Param {
		ps := make([]Param, n)
		for i := range ps {
			ps[i] = Param{Key: "p" + string(rune('a'+i%26)) + strings.Repeat("x", i/26), Value: strings.Repeat("v", size)}
		}
		return ps
	}
	tags := func(n, size int) []Tag {
		ts := make([]Tag, n)
		for i := range ts {
			ts[i] = Tag{Key: "t" + strings.Repeat("x", i), Value: strings.Repeat("v", size)}
		}
		return ts
	}
	tests := []struct {
		name   string
		b      Batch
		chunks int
	}{
		{"empty", Batch{}, 0},
		{"one metric", Batch{Metrics: metrics(1)}, 1},
		{"1000 metrics", Batch{Metrics: metrics(1000)}, 1},
		{"2500 metrics", Batch{Metrics: metrics(2500)}, 3},
		{"250 params", Batch{Params: params(250, 10)}, 3},
		{"100 params 100 tags 800 metrics", Batch{Params: params(100, 10), Tags: tags(100, 10), Metrics: metrics(800)}, 1},
		{"100 params 100 tags 801 metrics", Batch{Params: params(100, 10), Tags: tags(100, 10), Metrics: metrics(801)}, 2},
		{"big tags by size", Batch{Tags: tags(150, 8000)}, 2},
		{"big params by size", Batch{Params: params(100, 6000), Tags: tags(100, 8000)}, 2},
		{"big params and metrics by size", Batch{Params: params(100, 6000), Tags: tags(100, 8000), Metrics: metrics(1000)}, 3},
	}
	for _, tt := range tests {
		chunks := tt.b.Chunks()
		if len(chunks) != tt.chunks {
			t.Errorf("%s: %d chunks, want %d", tt.name, len(chunks), tt.chunks)
		}
		var got Batch
		for i, c := range chunks {
			body := withRunID(c.encode(), strings.Repeat("r", 32))
			if len(body) > MaxBatchRequestSize || len(c.Metrics) > MaxMetricsPerBatch || len(c.Params) > MaxParamsTagsPerBatch ||
				len(c.Tags) > MaxParamsTagsPerBatch || c.Len() > MaxEntitiesPerBatch {
				t.Errorf("%s: chunk %d over the limits: %d bytes, %d metrics, %d params, %d tags",
					tt.name, i, len(body), len(c.Metrics), len(c.Params), len(c.Tags))
			}
			if !json.Valid(body) {
				t.Errorf("%s: chunk %d is not valid JSON", tt.name, i)
			}
			back, err := decodeBatch(body)
			if err != nil || back.Len() != c.Len() {
				t.Errorf("%s: chunk %d decodes to %d entities (%v), want %d", tt.name, i, back.Len(), err, c.Len())
			}
			got.Metrics = append(got.Metrics, c.Metrics...)
			got.Params = append(got.Params, c.Params...)
			got.Tags = append(got.Tags, c.Tags...)
		}
		// Nothing lost, order kept.
		if len(got.Metrics) != len(tt.b.Metrics) || len(got.Params) != len(tt.b.Params) || len(got.Tags) != len(tt.b.Tags) {
			t.Errorf("%s: chunks hold %d/%d/%d entities, want %d/%d/%d", tt.name,
				len(got.Metrics), len(got.Params), len(got.Tags), len(tt.b.Metrics), len(tt.b.Params), len(tt.b.Tags))
			continue
		}
		for i := range got.Metrics {
			if got.Metrics[i] != tt.b.Metrics[i] {
				t.Errorf("%s: metric %d out of order", tt.name, i)
				break
			}
		}
	}
}

func TestBatchValidate(t *testing.T) {
	b := Batch{Params: []Param{{"lr", "0.1"}, {"lr", "0.2"}}}
	if err := b.Validate(); err == nil || !strings.Contains(err.Error(), "write-once") {
		t.Errorf("conflicting params: %v", err)
	}
	b = Batch{Params: []Param{{"lr", "0.1"}, {"lr", "0.1"}}}
	if err := b.Validate(); err != nil {
		t.Errorf("repeated identical param: %v", err)
	}
	if n := len(b.Chunks()[0].Params); n != 1 {
		t.Errorf("a repeated identical param is sent %d times, want once", n)
	}
}

// statusServer answers the given statuses in turn (then 200 {}), counting
// requests.
func statusServer(t *testing.T, statuses ...int) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		if i < len(statuses) && statuses[i] != 200 {
			if statuses[i] == 429 {
				w.Header().Set("Retry-After", "0")
			}
			w.WriteHeader(statuses[i])
			io.WriteString(w, `{"error_code":"TEMPORARILY_UNAVAILABLE","message":"try later"}`)
			return
		}
		io.WriteString(w, `{}`)
	}))
	t.Cleanup(s.Close)
	return s, &n
}

func TestRetry(t *testing.T) {
	fast := WithRetry(RetryPolicy{MaxRetries: 3, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond})
	metric := Batch{Metrics: []Metric{{Key: "a", Value: 1, Timestamp: 1}}}
	tests := []struct {
		name      string
		statuses  []int
		batch     Batch
		wantErr   string
		wantCalls int32
		ambiguous bool
	}{
		{"503 then ok", []int{503, 503}, metric, "", 3, false},
		{"429 then ok", []int{429}, metric, "", 2, false},
		{"502 on tags is retried", []int{502, 504}, Batch{Tags: []Tag{{"k", "v"}}}, "", 3, false},
		{"500 on metrics is ambiguous, not retried", []int{500}, metric, "HTTP 500", 1, true},
		{"400 is final", []int{400}, metric, "HTTP 400", 1, false},
		{"too many 503", []int{503, 503, 503, 503, 503}, metric, "HTTP 503", 4, false},
	}
	for _, tt := range tests {
		s, n := statusServer(t, tt.statuses...)
		c, err := NewClient(s.URL, fast)
		if err != nil {
			t.Fatal(err)
		}
		err = c.LogBatch(context.Background(), "run", tt.batch)
		if (err == nil) != (tt.wantErr == "") || err != nil && !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.wantErr)
		}
		if got := n.Load(); got != tt.wantCalls {
			t.Errorf("%s: %d requests, want %d", tt.name, got, tt.wantCalls)
		}
		if errors.Is(err, ErrAmbiguous) != tt.ambiguous {
			t.Errorf("%s: ambiguous = %v, want %v", tt.name, errors.Is(err, ErrAmbiguous), tt.ambiguous)
		}
	}

	// Connection refused is retried, then reported.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	c, _ := NewClient("http://"+addr, fast)
	start := time.Now()
	err = c.LogBatch(context.Background(), "run", metric)
	if err == nil || !transient(err) || !notApplied(err) {
		t.Errorf("connection refused: %v (transient %v, not applied %v)", err, transient(err), notApplied(err))
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("connection refused took %v", time.Since(start))
	}
}

func TestRetryDelay(t *testing.T) {
	p := RetryPolicy{MaxRetries: 10, BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second}
	want := []time.Duration{100, 200, 400, 800, 1000, 1000}
	for i, w := range want {
		if got := p.Delay(i); got != w*time.Millisecond {
			t.Errorf("Delay(%d) = %v, want %v", i, got, w*time.Millisecond)
		}
	}
	p.Jitter = 0.5
	for i := 0; i < 100; i++ {
		if d := p.Delay(1); d < 200*time.Millisecond || d >= 300*time.Millisecond {
			t.Fatalf("Delay with jitter = %v, want in [200ms, 300ms)", d)
		}
	}
}

func TestAuth(t *testing.T) {
	var got atomic.Value
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Store(r.Header.Get("Authorization"))
		w.WriteHeader(401)
		io.WriteString(w, `{"error_code":"UNAUTHENTICATED","message":"bad credentials"}`)
	}))
	defer s.Close()
	host := strings.TrimPrefix(s.URL, "http://")
	const secret = "s3cr3t-Pa55"
	tests := []struct {
		name string
		env  map[string]string
		uri  string
		want string
	}{
		{"token", map[string]string{EnvTrackingToken: secret}, s.URL, "Bearer " + secret},
		{"basic", map[string]string{EnvTrackingUsername: "ada", EnvTrackingPassword: secret}, s.URL, "Basic YWRhOnMzY3IzdC1QYTU1"},
		{"user info in the URI", nil, "http://ada:" + secret + "@" + host, "Basic YWRhOnMzY3IzdC1QYTU1"},
		{"none", nil, s.URL, ""},
	}
	for _, tt := range tests {
		for _, k := range []string{EnvTrackingToken, EnvTrackingUsername, EnvTrackingPassword} {
			t.Setenv(k, tt.env[k])
		}
		t.Setenv(EnvTrackingURI, tt.uri)
		c, err := NewClientFromEnv(WithRetry(NoRetry))
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.GetRun(context.Background(), "r")
		if got.Load() != tt.want {
			t.Errorf("%s: Authorization %q, want %q", tt.name, got.Load(), tt.want)
		}
		var ae *APIError
		if !errors.As(err, &ae) || ae.HTTPStatus != 401 || classify(err) != kindAuth {
			t.Errorf("%s: error %v, want an HTTP 401 APIError", tt.name, err)
		}
		for _, s := range []string{err.Error(), c.String(), c.URI(), c.RunURL("1", "r")} {
			if strings.Contains(s, secret) {
				t.Errorf("%s: the secret appears in %q", tt.name, s)
			}
		}
	}
	if _, err := NewClient("http://ada:" + secret + "@[::1"); err == nil || strings.Contains(err.Error(), secret) {
		t.Errorf("a bad URI's error shows the secret or is nil: %v", err)
	}
	if _, err := NewClient("sqlite:///mlflow.db"); err == nil || !strings.Contains(err.Error(), "http://") {
		t.Errorf("a database URI: %v", err)
	}
}

func TestSpoolTornLine(t *testing.T) {
	dir := newSpoolDir(t)
	s, err := CreateSpool(dir, SpoolMeta{Experiment: "e", Tracking: "http://x"})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		b := Batch{Metrics: []Metric{{Key: "k", Value: float64(i), Step: int64(i), Timestamp: 1}}}
		if _, err := s.append(record{Op: opLogBatch, Body: b.encode()}); err != nil {
			t.Fatal(err)
		}
	}
	// A second process cannot take the spool.
	if _, err := OpenSpool(dir); !errors.Is(err, ErrSpoolBusy) {
		t.Errorf("opening a held spool: %v, want ErrSpoolBusy", err)
	}
	if err := s.ack(record{Seq: 1}, nil); err != nil {
		t.Fatal(err)
	}
	s.Close()

	// A crash in the middle of an append leaves a torn last line.
	name := filepath.Join(dir, requestsFile)
	data, _ := os.ReadFile(name)
	line, _ := encodeRecord(record{Seq: 6, Op: opLogBatch, Body: []byte(`{"metrics":[]}`)})
	torn := append(append([]byte{}, data...), line[:len(line)/2]...)
	if err := os.WriteFile(name, torn, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := InspectSpool(dir)
	if err != nil || st.Pending != 4 {
		t.Errorf("InspectSpool: pending %d, %v; want 4", st.Pending, err)
	}
	s, err = OpenSpool(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.Pending() != 4 || s.next != 6 {
		t.Errorf("after a torn line: pending %d, next %d; want 4, 6", s.Pending(), s.next)
	}
	after, _ := os.ReadFile(name)
	if string(after) != string(data) {
		t.Errorf("the torn line was not removed")
	}
	rd, _ := s.reader()
	var seqs []int64
	for {
		rec, ok, err := rd.next(s.committed())
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		seqs = append(seqs, rec.Seq)
	}
	rd.Close()
	if len(seqs) != 4 || seqs[0] != 2 || seqs[3] != 5 {
		t.Errorf("unacknowledged records %v, want 2..5", seqs)
	}
	// Appending goes on after the good records.
	if seq, err := s.append(record{Op: opLogBatch, Body: []byte(`{}`)}); err != nil || seq != 6 {
		t.Errorf("append after recovery: seq %d, %v", seq, err)
	}
	s.Close()

	// Damage before the last line is an error, not a silent skip.
	data, _ = os.ReadFile(name)
	data[len(crcPrefix)+2] ^= 1 // first line's checksum
	os.WriteFile(name, data, 0o644)
	if _, err := OpenSpool(dir); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("a damaged middle line: %v", err)
	}
}

func TestRecordChecksum(t *testing.T) {
	line, err := encodeRecord(record{Seq: 7, Op: opLogBatch, Body: json.RawMessage(`{"metrics":[{"key":"a","value":"NaN","timestamp":1,"step":2}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(line) {
		t.Fatalf("a record line is not JSON: %s", line)
	}
	rec, err := parseRecord(line[:len(line)-1])
	if err != nil || rec.Seq != 7 || rec.Op != opLogBatch {
		t.Fatalf("parseRecord: %+v, %v", rec, err)
	}
	bad := append([]byte{}, line[:len(line)-1]...)
	bad[len(bad)-5] ^= 0x20
	if _, err := parseRecord(bad); err == nil {
		t.Error("a flipped bit was not detected")
	}
}
