package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// probeRequest is the request ServesCompletions sends: the smallest
// completion there is.
var probeRequest = Request{API: Completion, Prompt: "1, 2, 3,", Params: Params{MaxTokens: 1}}

// Probe is what ServesCompletions found out.
type Probe struct {
	// Served reports that the endpoint answered a completion request.
	Served bool
	// Answer is the endpoint's refusal when it serves no completions
	// ("404 Not Found: This is a chat model …"); empty when Served.
	Answer string
	// Cached reports that the answer came from the response cache (an
	// earlier probe of the same endpoint and model); nothing was sent.
	Cached bool
}

// ServesCompletions asks the endpoint once whether it serves the completion
// API ({base}/completions) for the client's model: it sends a completion
// request for one token. An endpoint that answers it 405 or 501, 404 (unless
// the error says the model does not exist), or a 400 or 422 whose message
// says the model is for chat (OpenAI answers its chat models "This is a chat
// model and not supported in the v1/completions endpoint") serves none: the
// chat API is the one to use. Any other failure (the endpoint unreachable
// after the client's retries, a bad API key, an unknown model) is returned as
// an error. With a cache the answer is kept under the probe's own key, so the
// same endpoint and model are probed once.
func (c *Client) ServesCompletions(ctx context.Context) (Probe, error) {
	req := probeRequest
	key := cacheKey(c.cacheEndpoint(), c.cfg.Model, &req)
	if c.cfg.Cache != nil {
		e, ok, err := c.cfg.Cache.Get(key)
		if err != nil {
			return Probe{}, err
		}
		if ok {
			c.hits.Add(1)
			return Probe{Served: e.Unsupported == "", Answer: e.Unsupported, Cached: true}, nil
		}
	}
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return Probe{}, ctx.Err()
	}
	resp, err := c.send(ctx, &req)
	<-c.sem
	p := Probe{Served: err == nil}
	if err != nil {
		var ae *APIError
		if !errors.As(err, &ae) || !noCompletions(ae) {
			c.failures.Add(1)
			return Probe{}, err
		}
		p.Answer = fmt.Sprintf("%d %s: %s", ae.Status, http.StatusText(ae.Status), ae.Message)
	} else {
		c.answers.Add(1)
	}
	if c.cfg.Cache != nil {
		e := newEntry(c.base, c.cfg.Model, &req, resp)
		e.Unsupported = p.Answer
		if err := c.cfg.Cache.Put(key, e); err != nil {
			return p, err
		}
	}
	return p, nil
}

// noCompletions reports whether an error answer to a completion request
// says that the endpoint serves no completion API.
func noCompletions(ae *APIError) bool {
	msg := strings.ToLower(ae.Message)
	switch ae.Status {
	case http.StatusMethodNotAllowed, http.StatusNotImplemented:
		return true
	case http.StatusNotFound:
		return ae.Code != "model_not_found" && !strings.Contains(msg, "does not exist")
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		return strings.Contains(msg, "chat model") || strings.Contains(msg, "chat/completions")
	}
	return false
}
