// Package llmeval evaluates a language model behind any OpenAI-compatible
// endpoint on narlab's text benchmarks, with the prompts and the scoring
// narlab already implements for each of them:
//
//   - [CLRSText]: CLRS-Text traces (lib/clrstext: the reference generator's
//     samples, exact match of the final output and time-to-first-failure),
//     with the accuracy-vs-length figure of the paper's Figure 5;
//   - [Graphs]: the 49 Erdős graph tasks under edge encodings, syntaxes and
//     node relabelings (experiments/serialization: G1's \boxed{} template
//     and checker, the invariance measures and their figures);
//   - [Spectral]: the twelve spectral regression tasks
//     (experiments/spectral: sMAPE, RelMAE, nRMSE per task and difficulty,
//     the density grid), beside the mean baseline;
//   - [DSR]: DSR-Bench's data-structure tasks (lib/dsr: its prompts with
//     their JSON response schema sent as structured output, its scorer,
//     experiments/dsrbench's tables and radar chart).
//
// [Run] builds every prompt of a suite first (bad options fail before any
// request), asks them through an [llm.Client] (bounded concurrency, retries,
// the response cache: a rerun, or a run resumed after an interruption, only
// sends prompts that were never answered), scores the answers, and logs one
// MLflow run through [tracking.Start]: the parameters, the suite's own
// metrics, tables and figures, the harness's counts (prompts, cached and
// failed requests, tokens, latency) under llm/…, and responses.jsonl, one
// [Record] per prompt with the prompt, the raw answer, the parsed answer and
// its score. An answer that is empty or cannot be parsed is recorded and
// scored as a failure; a request the server rejects (a 4xx) is recorded
// with its error and scored as a failure; a server that stays unreachable
// after the client's retries ends the run with an error (the MLflow run is
// marked FAILED) and the same command resumes it.
//
// # Sampling
//
// Each suite's generation settings default to its paper's ([SamplingPaper];
// [SuiteSampling] says, per suite, what the paper states and what narlab
// chose where it is silent); [SamplingG1] is G1's evaluation of the Erdős
// tasks (temperature 0.6, top-p 0.95, top-k 30, 4,096 new tokens). Config.Params
// override a preset field by field. The run logs the preset (sampling), its
// source (sampling.source), the overridden fields (sampling.overridden) and
// every setting sent (temperature, top_p, top_k, max_tokens, seed, stop), the
// endpoint and where it came from (endpoint, endpoint.from: config or
// OPENAI_BASE_URL), and the name the token limit was sent under
// (token_param, and token_param.sent once requests went out).
//
// # API
//
// CLRS-Text asks through the completion API, as the paper's models continue
// the question; an endpoint that serves no completions (a chat-only one) is
// found by one probe before any prompt ([llm.Client.ServesCompletions], kept
// in the response cache) and asked through chat instead, unless Config.API
// names the API. The run logs the API (api) and what the probe found
// (api.probe). Runs are named by [tracking.RunNameFor]: "llm SUITE LABEL"
// with the time and a random suffix, one name per run.
package llmeval
