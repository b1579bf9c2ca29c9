package dsr

import (
	"bytes"
	"testing"
)

// FuzzReadPredictions: a DSR-Bench predictions file is read or refused
// with an error, never a panic.
func FuzzReadPredictions(f *testing.F) {
	for _, s := range []string{
		"{\"id\": \"a\", \"response\": \"[1, 2]\"}\n",
		"{\"id\": \"a\", \"answer\": [1, 2], \"run\": 2}\n",
		"{\"id\": \"a\", \"output\": \"x\", \"run\": -1}\n", "{", "\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = ReadPredictions(bytes.NewReader(b))
	})
}
