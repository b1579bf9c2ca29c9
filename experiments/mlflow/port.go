package mlflow

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/narlab/narlab/internal/fsutil"
)

// portFile, in the server directory, keeps the port the local server was
// first given, so that it comes back on the same address after a restart
// and run links printed earlier keep working.
const portFile = "port"

// keptPort returns the port kept in dir's port file when it is free to
// bind on 127.0.0.1; otherwise (no file yet, or the port taken by another
// program) a free port, which it keeps in the file for next time.
func keptPort(dir string) (int, error) {
	path := filepath.Join(dir, portFile)
	if b, err := os.ReadFile(path); err == nil {
		if p, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && p > 0 && p < 65536 && portFree(p) {
			return p, nil
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return 0, fmt.Errorf("mlflow: reading the kept port: %w", err)
	}
	p, err := freePort()
	if err != nil {
		return 0, err
	}
	if err := fsutil.WriteFile(path, []byte(strconv.Itoa(p)+"\n"), 0o644); err != nil {
		return 0, fmt.Errorf("mlflow: keeping the server's port: %w", err)
	}
	return p, nil
}

// portFree reports whether 127.0.0.1:p can be bound now.
func portFree(p int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
	if err != nil {
		return false
	}
	l.Close()
	return true
}
