package mlflowtest

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
)

// A Fault is what a [Proxy] does to the requests it faults instead of
// passing them through.
type Fault struct {
	// Status is answered to a faulted request (e.g. 500, 502, 503), with
	// an MLflow-style JSON error body.
	Status int
	// Applied forwards a faulted request to the server first and answers
	// Status instead of the server's answer: the server applied the
	// request, the client cannot know it (the request is in doubt).
	Applied bool
	// Drop closes the connection without an answer instead (after
	// forwarding when Applied), as a server that died or a cut network.
	Drop bool
	// Every faults one request in Every (the 1st, Every+1st, …); 0 or 1
	// faults every request.
	Every int
	// Match, when set, picks the requests the fault concerns (from the
	// request and its body, e.g. only the runs/create of one kind of run);
	// the others pass through and are not counted for Every.
	Match func(r *http.Request, body []byte) bool
}

// Proxy is a pass-through HTTP proxy in front of a real MLflow server that
// injects faults for a while: the tracking server answering 5xx, or
// cutting connections, as a shared lab's server does when it is
// overloaded or restarting.
type Proxy struct {
	// URL is the proxy's address, to use as the tracking URI.
	URL string

	target *url.URL
	srv    *httptest.Server

	mu                    sync.Mutex
	fault                 *Fault
	seen                  int // requests seen under the current fault
	faulted, applied, fwd int
}

// NewProxy starts a proxy to the server at target (its root URL); it is
// closed when the test ends.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{target: u}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	p.URL = p.srv.URL
	t.Cleanup(p.srv.Close)
	return p
}

// Fail starts injecting f into the requests that follow, until Heal.
func (p *Proxy) Fail(f Fault) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fault, p.seen = &f, 0
}

// Heal passes every request through again.
func (p *Proxy) Heal() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fault = nil
}

// Counts returns how many requests were faulted, how many of those the
// server had applied first, and how many were passed through untouched.
func (p *Proxy) Counts() (faulted, applied, passed int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.faulted, p.applied, p.fwd
}

func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	p.mu.Lock()
	var f *Fault
	if p.fault != nil && (p.fault.Match == nil || p.fault.Match(r, body)) {
		every := max(p.fault.Every, 1)
		if p.seen%every == 0 {
			f = p.fault
		}
		p.seen++
	}
	switch {
	case f == nil:
		p.fwd++
	case f.Applied:
		p.faulted++
		p.applied++
	default:
		p.faulted++
	}
	p.mu.Unlock()
	if f == nil || f.Applied {
		resp, err := p.forward(r, body)
		if err != nil {
			http.Error(w, "mlflowtest proxy: "+err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		if f == nil {
			for k, vs := range resp.Header {
				for _, v := range vs {
					w.Header().Add(k, v)
				}
			}
			w.WriteHeader(resp.StatusCode)
			io.Copy(w, resp.Body)
			return
		}
		io.Copy(io.Discard, resp.Body) // the server applied it; the client will not know
	}
	if f.Drop {
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			conn.Close()
		}
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(f.Status)
	io.WriteString(w, `{"error_code":"INTERNAL_ERROR","message":"injected by the mlflowtest proxy"}`)
}

// forward sends the request to the server.
func (p *Proxy) forward(r *http.Request, body []byte) (*http.Response, error) {
	u := *p.target
	u.Path = r.URL.Path
	u.RawPath = r.URL.RawPath
	u.RawQuery = r.URL.RawQuery
	req, err := http.NewRequestWithContext(r.Context(), r.Method, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header = r.Header.Clone()
	req.ContentLength = int64(len(body))
	return http.DefaultTransport.RoundTrip(req)
}
