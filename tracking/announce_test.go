package tracking

import (
	"io"
	"os"
	"testing"
)

// TestAnnounceWriter checks the server line is kept out of notebook cells
// and goes to standard error elsewhere.
func TestAnnounceWriter(t *testing.T) {
	for _, tc := range []struct {
		name, pipe string
		want       io.Writer
	}{
		{"command line", "", os.Stderr},
		{"GoNB cell", "/tmp/gonb_pipe", io.Discard},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GONB_PIPE", tc.pipe)
			if got := announceWriter(); got != tc.want {
				t.Errorf("announceWriter() = %v, want %v", got, tc.want)
			}
		})
	}
}
