package tracking

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
	"time"
)

// RunNameFor builds a unique, informative run name for commands other than
// train (which names its runs itself): the command, what it ran on, and
// when, e.g. "spectral-eval gnn+mean 20261124-031502-7f3a9c". Empty parts
// are left out; the time is UTC, and six random hex digits keep two runs
// started in the same second apart.
func RunNameFor(command string, parts ...string) string {
	return runNameAt(time.Now(), command, parts...)
}

func runNameAt(t time.Time, command string, parts ...string) string {
	var b [3]byte
	rand.Read(b[:])
	fields := []string{command}
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			fields = append(fields, p)
		}
	}
	fields = append(fields, t.UTC().Format("20060102-150405")+"-"+hex.EncodeToString(b[:]))
	return strings.Join(fields, " ")
}
