package sweep

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/narlab/narlab/tracking/mlflow"
	"github.com/narlab/narlab/tracking/mlflow/mlflowtest"
)

// TestFollowServer resubmits a sweep whose recorded tracking server no
// longer accepts connections (a real MLflow server holds its parent run at
// another address, MLFLOW_TRACKING_URI): the sweep follows it only when
// that server holds the sweep's parent run.
func TestFollowServer(t *testing.T) {
	srv := mlflowtest.Server(t)
	t.Setenv(mlflow.EnvTrackingURI, srv.URL)
	t.Setenv(mlflow.EnvMaxRetries, "1") // the dead server's case fails fast
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := fmt.Sprintf("http://%s", l.Addr())
	l.Close()

	tests := []struct {
		name     string
		parent   func(id string) string // the parent run id sweep.json records
		tracking string                 // --tracking
		want     string                 // a part of the error; "" for none
		moved    bool
	}{
		{"parent on the new server", func(id string) string { return id }, "", "", true},
		{"parent not there", func(string) string { return "0123456789abcdef0123456789abcdef" }, "", dead, false},
		{"--tracking given", func(id string) string { return id }, srv.URL, "", false},
	}
	for i, tt := range tests {
		dir := t.TempDir()
		spec := validSpec()
		spec.Experiment = fmt.Sprintf("narlab-test/follow-%d", i)
		first, err := Prepare(ctx, dir, &spec, Options{Narlab: "/bin/true"})
		if err != nil {
			t.Fatal(err)
		}
		// The recorded server goes away.
		editState(t, dir, map[string]any{"tracking": dead, "parent_run_id": tt.parent(first.ParentRunID)})
		again, err := Prepare(ctx, dir, nil, Options{Tracking: tt.tracking})
		if tt.want != "" {
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s: error %v; want one naming %s", tt.name, err, tt.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if again.Tracking != srv.URL || again.ParentRunID != first.ParentRunID {
			t.Errorf("%s: server %s, parent %s; want %s, %s", tt.name, again.Tracking, again.ParentRunID, srv.URL, first.ParentRunID)
		}
		if moved := again.MovedFrom == dead; moved != tt.moved {
			t.Errorf("%s: MovedFrom %q; want moved=%v from %s", tt.name, again.MovedFrom, tt.moved, dead)
		}
		if saved, err := Load(dir); err != nil || saved.Tracking != srv.URL {
			t.Errorf("%s: sweep.json records %v (%v); want %s", tt.name, saved, err, srv.URL)
		}
	}
}

// TestFollowLocalServer resubmits, with no MLFLOW_TRACKING_URI, a sweep
// whose recorded server was narlab's local server at a loopback address
// that no longer answers (the server came back on another port): the
// sweep follows narlab's local server, which holds its parent run. A dead
// server that is not on the loopback is reported, not replaced.
func TestFollowLocalServer(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: this test starts narlab's local MLflow server (make test runs it)")
	}
	t.Setenv("NARLAB_DATA", t.TempDir())
	t.Setenv(mlflow.EnvMaxRetries, "1")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	srv, _, err := mlflow.EnsureServer(ctx, mlflow.ServerConfig{})
	if err != nil {
		t.Fatalf("narlab's local MLflow server: %v", err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(); err != nil {
			t.Errorf("stopping the local MLflow server: %v", err)
		}
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadLoopback := fmt.Sprintf("http://%s", l.Addr())
	l.Close()
	deadRemote := "http://192.0.2.1:5000" // TEST-NET-1: never answers

	for i, tt := range []struct {
		name, recorded string
		moved          bool
	}{
		{"loopback server gone", deadLoopback, true},
		{"remote server gone", deadRemote, false},
	} {
		t.Setenv(mlflow.EnvTrackingURI, srv.URL)
		dir := t.TempDir()
		spec := validSpec()
		spec.Experiment = fmt.Sprintf("narlab-test/follow-local-%d", i)
		first, err := Prepare(ctx, dir, &spec, Options{Narlab: "/bin/true"})
		if err != nil {
			t.Fatal(err)
		}
		editState(t, dir, map[string]any{"tracking": tt.recorded})
		t.Setenv(mlflow.EnvTrackingURI, "")
		again, err := Prepare(ctx, dir, nil, Options{})
		if !tt.moved {
			if err == nil || !strings.Contains(err.Error(), tt.recorded) {
				t.Errorf("%s: error %v; want one naming %s", tt.name, err, tt.recorded)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if again.Tracking != srv.URL || again.ParentRunID != first.ParentRunID || again.MovedFrom != tt.recorded || again.MovedVia != "narlab's local server" {
			t.Errorf("%s: server %s (moved from %q via %q), parent %s; want %s from %s via narlab's local server, parent %s",
				tt.name, again.Tracking, again.MovedFrom, again.MovedVia, again.ParentRunID, srv.URL, tt.recorded, first.ParentRunID)
		}
	}
}

// editState overwrites fields of the sweep.json in dir, as a server that
// moved (or a hand edit) leaves it.
func editState(t *testing.T, dir string, fields map[string]any) {
	t.Helper()
	path := filepath.Join(dir, stateFile)
	var raw map[string]any
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, &raw)
	}
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range fields {
		raw[k] = v
	}
	if b, err = json.Marshal(raw); err == nil {
		err = os.WriteFile(path, b, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}
