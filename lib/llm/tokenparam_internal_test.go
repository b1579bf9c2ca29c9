package llm

import (
	"fmt"
	"testing"
)

// TestRejectsTokenParam classifies error answers: only a refusal of the
// name itself switches the name, never a refusal of its value or any other
// failure.
func TestRejectsTokenParam(t *testing.T) {
	openAI := func(param string) *APIError {
		return &APIError{Status: 400, Code: "unsupported_parameter", Param: param,
			Message: fmt.Sprintf("Unsupported parameter: '%s' is not supported with this model.", param)}
	}
	for _, tc := range []struct {
		name string
		err  error
		tp   TokenParam
		want bool
	}{
		{"OpenAI rejects max_tokens", openAI("max_tokens"), TokenParamMaxTokens, true},
		{"OpenAI's rejection of the other name", openAI("max_tokens"), TokenParamMaxCompletionTokens, false},
		{"unrecognized argument", &APIError{Status: 400, Message: "Unrecognized request argument supplied: max_completion_tokens"}, TokenParamMaxCompletionTokens, true},
		{"pydantic forbids extra fields", &APIError{Status: 422, Message: "body.max_completion_tokens: Extra inputs are not permitted"}, TokenParamMaxCompletionTokens, true},
		{"a bad value is not a bad name", &APIError{Status: 422, Message: "max_tokens must be positive"}, TokenParamMaxTokens, false},
		{"too large", &APIError{Status: 400, Code: "invalid_value", Param: "max_tokens", Message: "max_tokens is too large: 100000. This model supports at most 16384 completion tokens"}, TokenParamMaxTokens, false},
		{"max_tokens inside max_completion_tokens", &APIError{Status: 400, Message: "unsupported: max_completion_tokens"}, TokenParamMaxTokens, false},
		{"401", &APIError{Status: 401, Message: "unknown max_tokens"}, TokenParamMaxTokens, false},
		{"429", &APIError{Status: 429, Message: "unsupported max_tokens"}, TokenParamMaxTokens, false},
		{"500", &APIError{Status: 500, Message: "unsupported max_tokens"}, TokenParamMaxTokens, false},
		{"not an API error", fmt.Errorf("dial tcp: unsupported max_tokens"), TokenParamMaxTokens, false},
	} {
		if got := rejectsTokenParam(tc.err, tc.tp); got != tc.want {
			t.Errorf("%s: rejectsTokenParam(%v, %s) = %v, want %v", tc.name, tc.err, tc.tp, got, tc.want)
		}
	}
}

func TestParseTokenParam(t *testing.T) {
	for in, want := range map[string]TokenParam{"": TokenParamAuto, "auto": TokenParamAuto, " MAX_TOKENS ": TokenParamMaxTokens,
		"max_completion_tokens": TokenParamMaxCompletionTokens} {
		if got, err := ParseTokenParam(in); err != nil || got != want {
			t.Errorf("ParseTokenParam(%q) = %s, %v; want %s", in, got, err, want)
		}
	}
	if _, err := ParseTokenParam("max_new_tokens"); err == nil {
		t.Error("max_new_tokens was accepted")
	}
}
