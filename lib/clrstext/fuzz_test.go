package clrstext

import (
	"bytes"
	"testing"
)

// FuzzReadPredictions and FuzzReadRows: any file is read or refused with
// an error, never a panic.
func FuzzReadPredictions(f *testing.F) {
	for _, s := range []string{"{\"index\": 0, \"prediction\": \"[1 2]\"}\n", "{\"output\": \"x\"}\n", "{\"index\": -1, \"response\": \"\"}\n", "{", "\n", "[1]\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = ReadPredictions(bytes.NewReader(b))
	})
}

func FuzzReadRows(f *testing.F) {
	for _, s := range []string{
		"{\"text\": \"q: a\", \"question\": \"q\", \"answer\": \"a\", \"algo_name\": \"bfs\", \"length\": 4, \"seed\": 0, \"use_hints\": false}\n",
		"{\"name\": \"bfs\", \"prompt\": \"p\", \"references\": [\"r\"], \"auxiliary\": {}}\n",
		"{", "\n", "{\"length\": -5}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = ReadRows(bytes.NewReader(b))
	})
}
