package mlflow

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/narlab/narlab/internal/httpretry"
)

// Environment variables read by [NewClientFromEnv] (the names the Python
// client uses).
const (
	EnvTrackingURI      = "MLFLOW_TRACKING_URI"
	EnvTrackingToken    = "MLFLOW_TRACKING_TOKEN"
	EnvTrackingUsername = "MLFLOW_TRACKING_USERNAME"
	EnvTrackingPassword = "MLFLOW_TRACKING_PASSWORD"
	EnvInsecureTLS      = "MLFLOW_TRACKING_INSECURE_TLS"
	EnvMaxRetries       = "MLFLOW_HTTP_REQUEST_MAX_RETRIES"
	EnvBackoffFactor    = "MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR"
	EnvRequestTimeout   = "MLFLOW_HTTP_REQUEST_TIMEOUT"
)

// Environment variables of MLflow's fluent API that narlab honours as
// Python's mlflow.start_run does (package tracking reads them).
const (
	// EnvExperimentName is the experiment of runs whose command was not
	// given one explicitly.
	EnvExperimentName = "MLFLOW_EXPERIMENT_NAME"
	// EnvRunID names an existing run that the next run started in the
	// process resumes instead of creating one.
	EnvRunID = "MLFLOW_RUN_ID"
)

// RetryPolicy says how a [Client] retries transient failures: after the
// n-th failure (n from 0) it waits min(MaxDelay, BaseDelay·2ⁿ), stretched by
// a random factor in [1, 1+Jitter), or the server's Retry-After if longer.
type RetryPolicy struct {
	MaxRetries int
	BaseDelay  time.Duration
	MaxDelay   time.Duration
	Jitter     float64
}

// DefaultRetryPolicy rides out about a minute of outage or rate limiting.
var DefaultRetryPolicy = RetryPolicy{MaxRetries: 7, BaseDelay: 500 * time.Millisecond, MaxDelay: 16 * time.Second, Jitter: 0.5}

// NoRetry makes every request a single attempt.
var NoRetry = RetryPolicy{}

// Delay returns the wait after the n-th consecutive failure (n from 0).
func (p RetryPolicy) Delay(n int) time.Duration {
	d := p.BaseDelay
	for i := 0; i < n && d < p.MaxDelay; i++ {
		d *= 2
	}
	if p.MaxDelay > 0 && d > p.MaxDelay {
		d = p.MaxDelay
	}
	if p.Jitter > 0 {
		d += time.Duration(rand.Float64() * p.Jitter * float64(d))
	}
	return d
}

// Client talks to one MLflow tracking server. It is safe for concurrent use.
type Client struct {
	base    *url.URL // scheme://host[:port][/prefix], without user info
	http    *http.Client
	retry   RetryPolicy
	token   string // bearer token; never printed
	user    string // basic auth; never printed
	pass    string
	agent   string
	timeout time.Duration
}

// Option configures a [Client].
type Option func(*Client)

// WithHTTPClient sets the HTTP client (default: one with a 120 s timeout).
func WithHTTPClient(h *http.Client) Option { return func(c *Client) { c.http = h } }

// WithRetry sets the retry policy (default [DefaultRetryPolicy]).
func WithRetry(p RetryPolicy) Option { return func(c *Client) { c.retry = p } }

// WithToken authenticates with a bearer token.
func WithToken(token string) Option { return func(c *Client) { c.token = token } }

// WithBasicAuth authenticates with a user name and password.
func WithBasicAuth(user, password string) Option {
	return func(c *Client) { c.user, c.pass = user, password }
}

// WithTimeout sets the time limit of each HTTP attempt (default 120 s).
func WithTimeout(d time.Duration) Option { return func(c *Client) { c.timeout = d } }

// NewClient returns a client for the tracking server at trackingURI, an
// http:// or https:// address such as "http://127.0.0.1:5000". User
// information in the address (https://user:pass@host) is used for basic
// authentication and removed from the address.
func NewClient(trackingURI string, opts ...Option) (*Client, error) {
	u, err := url.Parse(strings.TrimSpace(trackingURI))
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // url.Error repeats the URI, credentials included
		}
		return nil, fmt.Errorf("mlflow: tracking URI %q: %v", redactURI(trackingURI), err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("mlflow: tracking URI %q: expected an http:// or https:// server address such as http://127.0.0.1:5000 "+
			"(narlab logs only through a tracking server; file and database URIs are served by `mlflow server`)", redactURI(trackingURI))
	}
	c := &Client{retry: DefaultRetryPolicy, agent: "narlab-mlflow-go/1", timeout: 120 * time.Second}
	if u.User != nil {
		c.user = u.User.Username()
		c.pass, _ = u.User.Password()
		u.User = nil
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawQuery, u.Fragment = "", ""
	c.base = u
	for _, o := range opts {
		o(c)
	}
	if c.http == nil {
		c.http = &http.Client{}
	}
	return c, nil
}

// NewClientFromEnv returns a client configured from the environment:
// MLFLOW_TRACKING_URI (required here; see package tracking for the
// local default), MLFLOW_TRACKING_TOKEN or MLFLOW_TRACKING_USERNAME and
// MLFLOW_TRACKING_PASSWORD, MLFLOW_TRACKING_INSECURE_TLS,
// MLFLOW_HTTP_REQUEST_MAX_RETRIES, MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR
// (seconds) and MLFLOW_HTTP_REQUEST_TIMEOUT (seconds). Options given here
// override the environment.
func NewClientFromEnv(opts ...Option) (*Client, error) {
	uri := os.Getenv(EnvTrackingURI)
	if uri == "" {
		return nil, fmt.Errorf("mlflow: %s is not set", EnvTrackingURI)
	}
	return NewClient(uri, append(EnvOptions(), opts...)...)
}

// EnvOptions returns the client options that the environment asks for
// (everything [NewClientFromEnv] reads except the URI).
func EnvOptions() []Option {
	var opts []Option
	if t := os.Getenv(EnvTrackingToken); t != "" {
		opts = append(opts, WithToken(t))
	}
	if u := os.Getenv(EnvTrackingUsername); u != "" {
		opts = append(opts, WithBasicAuth(u, os.Getenv(EnvTrackingPassword)))
	}
	if v := strings.ToLower(os.Getenv(EnvInsecureTLS)); v == "true" || v == "1" {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // asked for by the user
		opts = append(opts, WithHTTPClient(&http.Client{Transport: tr}))
	}
	p := DefaultRetryPolicy
	changed := false
	if v, err := strconv.Atoi(os.Getenv(EnvMaxRetries)); err == nil && v >= 0 {
		p.MaxRetries, changed = v, true
	}
	if v, err := strconv.ParseFloat(os.Getenv(EnvBackoffFactor), 64); err == nil && v >= 0 {
		p.BaseDelay, changed = time.Duration(v*float64(time.Second)), true
	}
	if changed {
		opts = append(opts, WithRetry(p))
	}
	if v, err := strconv.ParseFloat(os.Getenv(EnvRequestTimeout), 64); err == nil && v > 0 {
		opts = append(opts, WithTimeout(time.Duration(v*float64(time.Second))))
	}
	return opts
}

// URI returns the tracking server's address (without credentials).
func (c *Client) URI() string { return c.base.String() }

// String returns the server's address; credentials are never included.
func (c *Client) String() string { return "mlflow.Client(" + c.URI() + ")" }

// uiMode is the query of UI links: MLflow 3's UI opens in its "GenAI"
// layout unless told otherwise; narlab's runs are model training runs.
const uiMode = "?workflowType=machine_learning"

// RunURL returns the address of a run's page in the MLflow UI (in its
// "Model training" layout).
func (c *Client) RunURL(experimentID, runID string) string {
	return c.URI() + "/#/experiments/" + url.PathEscape(experimentID) + "/runs/" + url.PathEscape(runID) + uiMode
}

// ExperimentURL returns the address of an experiment's page in the MLflow
// UI (in its "Model training" layout).
func (c *Client) ExperimentURL(experimentID string) string {
	return c.URI() + "/#/experiments/" + url.PathEscape(experimentID) + uiMode
}

// RunsURL returns the address of an experiment's runs table in the MLflow
// UI (#/experiments/ID/runs, in its "Model training" layout): where
// `narlab mlflow ui` points, since MLflow 3's UI otherwise opens an
// experiment on its GenAI pages (traces, evaluations).
func (c *Client) RunsURL(experimentID string) string {
	return c.URI() + "/#/experiments/" + url.PathEscape(experimentID) + "/runs" + uiMode
}

// redactURI removes the password from a URI for messages.
func redactURI(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		if i := strings.Index(s, "@"); i >= 0 {
			if j := strings.Index(s, "://"); j >= 0 && j < i {
				return s[:j+3] + "REDACTED@" + s[i+1:]
			}
		}
		return s
	}
	u.User = url.User("REDACTED")
	return u.String()
}

// request is one REST call.
type request struct {
	method   string
	endpoint string                   // path below /api/2.0/, e.g. "mlflow/runs/get"
	query    url.Values               // GET parameters
	body     []byte                   // JSON body for POST; raw bytes for PUT
	open     func() (*os.File, error) // PUT from a file instead of body (opened per attempt)
	ctype    string
	// retryAmbiguous allows retrying after failures that leave it unknown
	// whether the server applied the request (set for reads and idempotent
	// writes).
	retryAmbiguous bool
}

// call performs r with retries and decodes a JSON answer into out (when out
// is non-nil).
func (c *Client) call(ctx context.Context, r request, out any) error {
	resp, err := c.send(ctx, r, c.retry)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("mlflow: %s %s: decoding the answer: %w", r.method, r.endpoint, err)
	}
	return nil
}

// send performs r with the retry policy p and returns the successful
// response (whose body the caller closes).
func (c *Client) send(ctx context.Context, r request, p RetryPolicy) (*http.Response, error) {
	var resp *http.Response
	gaveUp, err := retryLoop(ctx, p, 0, nil, func(int) (bool, error) {
		var err error
		resp, err = c.attempt(ctx, r)
		if err == nil {
			return false, nil
		}
		return transient(err) && (r.retryAmbiguous || notApplied(err)), err
	})
	if err == nil {
		return resp, nil
	}
	if transient(err) && !notApplied(err) && !r.retryAmbiguous {
		err = fmt.Errorf("%w (%w)", err, ErrAmbiguous)
	}
	if gaveUp {
		return nil, fmt.Errorf("%w (gave up waiting to retry: %w)", err, ctx.Err())
	}
	return nil, err
}

// retryAfterError carries a Retry-After delay with an APIError.
type retryAfterError struct {
	*APIError
	after time.Duration
}

func (e *retryAfterError) Unwrap() error { return e.APIError }

func retryAfter(err error) time.Duration {
	var ra *retryAfterError
	if errors.As(err, &ra) {
		return ra.after
	}
	return 0
}

// attempt performs r once.
func (c *Client) attempt(ctx context.Context, r request) (*http.Response, error) {
	u := *c.base
	u.Path = c.base.Path + "/api/2.0/" + r.endpoint
	if len(r.query) > 0 {
		u.RawQuery = r.query.Encode()
	}
	var body io.Reader
	var size int64 = -1
	if r.open != nil {
		f, err := r.open()
		if err != nil {
			return nil, fmt.Errorf("mlflow: %s %s: %w", r.method, r.endpoint, err)
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("mlflow: %s %s: %w", r.method, r.endpoint, err)
		}
		body, size = f, st.Size() // the transport closes it
	} else if r.body != nil {
		body, size = bytes.NewReader(r.body), int64(len(r.body))
	}
	actx, cancel := context.WithTimeout(ctx, c.timeout)
	req, err := http.NewRequestWithContext(actx, r.method, u.String(), body)
	if err != nil {
		cancel()
		if c, ok := body.(io.Closer); ok {
			c.Close()
		}
		return nil, fmt.Errorf("mlflow: %s %s: %w", r.method, r.endpoint, err)
	}
	if size >= 0 {
		req.ContentLength = size
		if size == 0 {
			req.Body = http.NoBody
		}
	}
	if r.ctype != "" {
		req.Header.Set("Content-Type", r.ctype)
	} else if r.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("User-Agent", c.agent)
	switch {
	case c.token != "":
		req.Header.Set("Authorization", "Bearer "+c.token)
	case c.user != "":
		req.SetBasicAuth(c.user, c.pass)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		cancel()
		// The url.Error names the URL, which holds no credentials.
		return nil, fmt.Errorf("mlflow: %s %s: %w", r.method, r.endpoint, err)
	}
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		cancel()
		ae := newAPIError(r.method, r.endpoint, resp.StatusCode, b)
		// A Retry-After of ten minutes or more is not waited for: the
		// policy's own backoff applies.
		if d, ok := httpretry.RetryAfter(resp.Header.Get("Retry-After"), time.Now()); ok && d < 10*time.Minute {
			return nil, &retryAfterError{APIError: ae, after: d}
		}
		return nil, ae
	}
	resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}

// post is a JSON POST with retries.
func (c *Client) post(ctx context.Context, endpoint string, in, out any, idempotent bool) error {
	b, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("mlflow: POST %s: encoding the request: %w", endpoint, err)
	}
	return c.call(ctx, request{method: http.MethodPost, endpoint: endpoint, body: b, retryAmbiguous: idempotent}, out)
}

// get is a GET with retries.
func (c *Client) get(ctx context.Context, endpoint string, q url.Values, out any) error {
	return c.call(ctx, request{method: http.MethodGet, endpoint: endpoint, query: q, retryAmbiguous: true}, out)
}
