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
package llmeval
