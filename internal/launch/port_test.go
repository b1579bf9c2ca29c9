package launch

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestKeptPort checks the local server's port is chosen once and kept,
// and replaced (and the new one kept) when another program holds it.
func TestKeptPort(t *testing.T) {
	dir := t.TempDir()
	if _, err := KeptPort(dir); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		occupy   bool // hold the kept port while asking
		wantSame bool
	}{
		{"kept when free", false, true},
		{"again", false, true},
		{"replaced when taken", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kept := readPort(t, dir)
			if tc.occupy {
				l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(kept)))
				if err != nil {
					t.Fatal(err)
				}
				defer l.Close()
			}
			got, err := KeptPort(dir)
			if err != nil {
				t.Fatal(err)
			}
			if (got == kept) != tc.wantSame {
				t.Errorf("KeptPort = %d with %d kept; want same = %v", got, kept, tc.wantSame)
			}
			if now := readPort(t, dir); now != got {
				t.Errorf("the port file holds %d after KeptPort returned %d", now, got)
			}
		})
	}
}

func readPort(t *testing.T, dir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, portFile))
	if err != nil {
		t.Fatal(err)
	}
	p, err := strconv.Atoi(string(b[:len(b)-1]))
	if err != nil {
		t.Fatal(err)
	}
	return p
}
