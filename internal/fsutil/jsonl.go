package fsutil

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// MaxLine is the longest JSONL line narlab reads: 64 MiB. A longer line is
// an error that names its line number, never a silent truncation.
const MaxLine = 64 << 20

// ScanLines calls fn with each non-blank line of r (1-based line numbers,
// the line without its newline; the slice is only valid during the call).
// Lines longer than MaxLine are an error.
func ScanLines(r io.Reader, fn func(lineNo int, line []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxLine)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if err := fn(n, line); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("line %d: longer than the %d MiB limit for a JSON line", n+1, MaxLine>>20)
		}
		return fmt.Errorf("line %d: %w", n+1, err)
	}
	return nil
}

// ReadJSONL decodes every non-blank line of r as a T and calls fn with it.
// A line that is not valid JSON for T is an error naming its line number.
func ReadJSONL[T any](r io.Reader, fn func(lineNo int, v T) error) error {
	return ScanLines(r, func(lineNo int, line []byte) error {
		var v T
		if err := json.Unmarshal(line, &v); err != nil {
			return fmt.Errorf("line %d: %w", lineNo, err)
		}
		return fn(lineNo, v)
	})
}

// JSONLWriter writes one JSON value per line.
type JSONLWriter struct {
	w   *bufio.Writer
	enc *json.Encoder
}

// NewJSONLWriter returns a writer of JSON lines to w; call Flush at the end.
func NewJSONLWriter(w io.Writer) *JSONLWriter {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return &JSONLWriter{w: bw, enc: enc}
}

// Write encodes v on its own line.
func (j *JSONLWriter) Write(v any) error { return j.enc.Encode(v) }

// Flush writes buffered lines to the underlying writer.
func (j *JSONLWriter) Flush() error { return j.w.Flush() }
