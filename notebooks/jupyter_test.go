package notebooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/narlab/narlab/internal/project"
	"github.com/narlab/narlab/kernel"
)

// TestJupyterCommand runs the README's Jupyter command, `make jupyter`, as
// the user the test runs as (root in CI, which plain `jupyter notebook`
// refuses), and checks that the server it starts answers and offers the
// "Go (narlab)" kernel.
func TestJupyterCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real Jupyter server; run without -short")
	}
	if _, err := project.Python(); err != nil {
		t.Fatalf("%v (the test needs the project's Jupyter environment)", err)
	}
	root := rootDir(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	const token = "narlab-jupyter-test"
	cmd := exec.Command("make", "-s", "-C", root, "jupyter",
		fmt.Sprintf("JUPYTER_ARGS=--no-browser --ip=127.0.0.1 --port=%d --ServerApp.port_retries=0 --IdentityProvider.token=%s", port, token))
	cmd.Env = append(os.Environ(), "NARLAB_ROOT="+root)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	}()

	url := fmt.Sprintf("http://127.0.0.1:%d/api/kernelspecs?token=%s", port, token)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		select {
		case err := <-exited:
			t.Fatalf("make jupyter exited (%v) before its server answered:\n%s", err, tail(out.String(), 3000))
		default:
		}
		resp, err := http.Get(url)
		if err == nil {
			var specs struct {
				Kernelspecs map[string]struct {
					Spec struct {
						DisplayName string `json:"display_name"`
					} `json:"spec"`
				} `json:"kernelspecs"`
			}
			err = json.NewDecoder(resp.Body).Decode(&specs)
			resp.Body.Close()
			if err != nil {
				t.Fatalf("GET /api/kernelspecs: %v", err)
			}
			k, ok := specs.Kernelspecs[kernel.Name]
			if !ok {
				t.Fatalf("the server started by make jupyter has no %q kernel: %v", kernel.Name, specs.Kernelspecs)
			}
			if !strings.Contains(k.Spec.DisplayName, "narlab") {
				t.Errorf("kernel %q is displayed as %q", kernel.Name, k.Spec.DisplayName)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("make jupyter: no answer on port %d after 2 minutes:\n%s", port, tail(out.String(), 3000))
		}
		time.Sleep(300 * time.Millisecond)
	}
}
