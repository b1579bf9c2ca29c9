package spectral

import (
	"bytes"
	"testing"
)

// FuzzLoadPredictions: a spectral predictions file is read or refused with
// an error, never a panic.
func FuzzLoadPredictions(f *testing.F) {
	for _, s := range []string{
		"{\"id\": 0, \"task\": \"spectral_radius\", \"answer_text\": \"1.5\"}\n",
		"{\"id\": \"0\", \"task\": \"nosuch\", \"answer_text\": \"1\"}\n",
		"{\"id\": null}\n", "{", "\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = LoadPredictions("fuzz", bytes.NewReader(b))
	})
}
