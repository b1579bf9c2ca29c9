package mlflow

import (
	"fmt"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The tracking server's limits (MLflow's mlflow/utils/validation.py).
const (
	MaxKeyLength            = 250     // metric, param and tag keys
	MaxParamValueLength     = 6000    // param values
	MaxTagValueLength       = 8000    // run tag values
	MaxExperimentNameLength = 500     // experiment names
	MaxMetricsPerBatch      = 1000    // metrics in one log-batch request
	MaxParamsTagsPerBatch   = 100     // params, and separately tags, in one log-batch request
	MaxEntitiesPerBatch     = 1000    // metrics + params + tags in one log-batch request
	MaxBatchRequestSize     = 1000000 // bytes of JSON in one log-batch request
)

// keyRules is the message that says what a valid key looks like.
const keyRules = "keys are 1 to 250 characters of letters, digits, underscore, dash, period, space, slash and colon, " +
	"and must be a normalized relative path (no leading or trailing '/', no '//', no '.' or '..' segments); " +
	"group metrics with '/', e.g. \"train/loss\""

// ValidateKey checks a metric, param or tag key against MLflow's rules.
// kind names the key in the error ("metric", "param", "tag").
func ValidateKey(kind, key string) error {
	what := fmt.Sprintf("%s key %q", kind, key)
	if key == "" {
		return &ValidationError{What: kind + " key", Reason: "it is empty; " + keyRules}
	}
	if n := utf8.RuneCountInString(key); n > MaxKeyLength {
		return &ValidationError{What: fmt.Sprintf("%s key %q…", kind, truncateRunes(key, 40)),
			Reason: fmt.Sprintf("it has %d characters, more than the limit of %d", n, MaxKeyLength)}
	}
	for _, r := range key {
		if !keyRune(r) {
			return &ValidationError{What: what, Reason: fmt.Sprintf("character %q is not allowed; %s", r, keyRules)}
		}
	}
	if clean := path.Clean(key); clean != key || clean == "." || strings.HasPrefix(clean, "..") || strings.HasPrefix(clean, "/") {
		return &ValidationError{What: what, Reason: "it is not a normalized path (the server treats keys as file names); " + keyRules}
	}
	return nil
}

// keyRune reports whether r may appear in a key: the characters of the
// server's pattern ^[/\w.\- :]*$, where \w is a Unicode word character.
func keyRune(r rune) bool {
	switch r {
	case '/', '_', '.', '-', ' ', ':':
		return true
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Pc, r)
}

// ValidateParam checks a parameter's key and value.
func ValidateParam(key, value string) error {
	if err := ValidateKey("param", key); err != nil {
		return err
	}
	if n := utf8.RuneCountInString(value); n > MaxParamValueLength {
		return &ValidationError{What: fmt.Sprintf("param %q", key),
			Reason: fmt.Sprintf("its value has %d characters, more than the limit of %d; log long values as an artifact instead", n, MaxParamValueLength)}
	}
	return nil
}

// ValidateTag checks a run tag's key and value.
func ValidateTag(key, value string) error {
	if err := ValidateKey("tag", key); err != nil {
		return err
	}
	if n := utf8.RuneCountInString(value); n > MaxTagValueLength {
		return &ValidationError{What: fmt.Sprintf("tag %q", key),
			Reason: fmt.Sprintf("its value has %d characters, more than the limit of %d; log long values as an artifact instead", n, MaxTagValueLength)}
	}
	return nil
}

// ValidateMetric checks a metric point: its key, a non-negative timestamp.
// Every float64 value is valid: NaN and ±Inf are sent in MLflow's string
// encoding.
func ValidateMetric(m Metric) error {
	if err := ValidateKey("metric", m.Key); err != nil {
		return err
	}
	if m.Timestamp < 0 {
		return &ValidationError{What: fmt.Sprintf("metric %q", m.Key),
			Reason: fmt.Sprintf("timestamp %d is negative; expected milliseconds since the Unix epoch", m.Timestamp)}
	}
	return nil
}

// ValidateExperimentName checks an experiment name.
func ValidateExperimentName(name string) error {
	if strings.TrimSpace(name) == "" {
		return &ValidationError{What: "experiment name", Reason: "it is empty; expected a name such as \"clrs/bfs\""}
	}
	if n := utf8.RuneCountInString(name); n > MaxExperimentNameLength {
		return &ValidationError{What: fmt.Sprintf("experiment name %q…", truncateRunes(name, 40)),
			Reason: fmt.Sprintf("it has %d characters, more than the limit of %d", n, MaxExperimentNameLength)}
	}
	return nil
}

// ValidateArtifactPath checks a run-relative artifact path such as
// "plots/loss.png".
func ValidateArtifactPath(p string) error {
	what := fmt.Sprintf("artifact path %q", p)
	const rule = "expected a relative path with '/' separators such as \"plots/loss.png\", without '.' or '..' segments"
	if p == "" {
		return &ValidationError{What: "artifact path", Reason: "it is empty; " + rule}
	}
	if strings.ContainsAny(p, "\\\x00?#%") {
		return &ValidationError{What: what, Reason: "it contains one of \\ NUL ? # %; " + rule}
	}
	if clean := path.Clean(p); clean != p || strings.HasPrefix(clean, "/") || clean == "." || clean == ".." || strings.HasPrefix(clean, "../") {
		return &ValidationError{What: what, Reason: "it is not a normalized relative path; " + rule}
	}
	return nil
}

func truncateRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// ValidateRunID checks a run id as MLflow does: a letter or digit, then
// up to 255 letters, digits, underscores or dashes (the server makes 32
// hex digits).
func ValidateRunID(id string) error {
	ok := id != "" && len(id) <= 256
	for i, c := range id {
		alnum := c < utf8.RuneSelf && (unicode.IsLetter(c) || unicode.IsDigit(c))
		if !(alnum || i > 0 && (c == '_' || c == '-')) {
			ok = false
		}
	}
	if !ok {
		return &ValidationError{What: fmt.Sprintf("run id %q", id),
			Reason: "expected the id of an MLflow run: a letter or digit, then up to 255 letters, digits, '_' or '-' (e.g. 32 hex digits)"}
	}
	return nil
}
