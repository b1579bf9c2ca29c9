// Package llm is narlab's client for OpenAI-compatible language-model
// endpoints (OpenAI, vLLM, llama.cpp's server, …): chat and plain
// completions, JSON-schema structured output, a bounded number of requests
// in flight, retries with backoff that honour Retry-After, per-request
// timeouts, and a response cache on disk.
//
// # Requests
//
// A [Client] talks to one base URL (for example http://127.0.0.1:18080/v1)
// and one model. [Client.Do] sends a [Request]: the [Chat] API posts
// {base}/chat/completions with the prompt as one user message (or the
// request's own messages), the [Completion] API posts {base}/completions
// with the prompt as is. [Params] holds every generation parameter that is
// sent: temperature, max tokens, seed, stop sequences, top-p, top-k. A request
// with a [Schema] asks for structured output through response_format, in
// OpenAI's json_schema form or llama-cpp-python's json_object form
// ([SchemaStyle]); the automatic style starts with OpenAI's and switches
// for good when the server rejects it.
//
// # Failures
//
// 429, 408 and 5xx answers, connection errors, per-attempt timeouts and
// bodies that are not a whole completion (truncated or malformed JSON) are
// retried with exponential backoff and jitter, waiting at least what a
// Retry-After header asks. Other 4xx answers are not retried: they come back
// as an [*APIError] that quotes the server's message. After the last retry
// the error says how many attempts were made.
//
// # Endpoint and API key
//
// The endpoint and the key are read as OpenAI's own clients read them, with
// narlab's settings first:
//
//   - the endpoint is Config.BaseURL, else the environment variable
//     OPENAI_BASE_URL, else https://api.openai.com/v1 ([ResolveBaseURL]);
//   - the key is Config.APIKey, else NARLAB_LLM_API_KEY, else
//     OPENAI_API_KEY, else none. It is sent as a bearer token and never
//     appears in an error, a log line or the cache.
//
// # The token limit's name
//
// [Params.MaxTokens] is sent as max_tokens or as max_completion_tokens
// ([TokenParam]). OpenAI's chat API wants max_completion_tokens (its
// reasoning models reject max_tokens with a 400 "unsupported parameter");
// llama.cpp's server and vLLM read max_tokens, and llama-cpp-python silently
// ignores max_completion_tokens. The default, [TokenParamAuto], starts with
// max_completion_tokens for api.openai.com and max_tokens anywhere else
// ([DefaultTokenParam]); when an endpoint rejects the name as an unsupported
// parameter, the request is sent again once under the other name, which the
// client then keeps. A configured name is sent as is; an answer longer than
// a limit sent as max_completion_tokens is reported as a
// [*LimitIgnoredError]. The completion API always sends max_tokens.
//
// # Cache
//
// A [Cache] stores each answered request as one file named by the SHA-256
// of its key: the endpoint, the API, the model, every generation parameter,
// the schema and the prompt or messages. A request already in the cache is
// answered from disk without any network traffic, so rerunning an
// evaluation, or resuming one that was interrupted, only sends the requests
// that were never answered. Answers are cached as the model gave them, empty
// or malformed ones included (scoring them is the caller's business);
// failed requests are never cached.
package llm
