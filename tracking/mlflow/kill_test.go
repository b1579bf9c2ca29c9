package mlflow

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The kill test runs a logging process (this test binary, re-executed with
// childEnv set), kills it with SIGKILL in the middle of a run, and recovers
// the run from its spool.

const childEnv = "NARLAB_MLFLOW_TEST_CHILD"

var childKeys = []string{"train/loss", "train/acc", "val/score"}

// childMain logs metric points forever, persisting the spool every 100
// steps and saying so on stdout, until it is killed.
func childMain() int {
	uri, dir := os.Getenv(childEnv+"_URI"), os.Getenv(childEnv+"_SPOOL")
	c, err := NewClient(uri)
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	r, err := c.StartRun(context.Background(), RunOptions{Experiment: "narlab-test/kill", RunName: os.Getenv(childEnv + "_NAME"),
		SpoolDir: dir, CreateTimeout: time.Second, FlushInterval: 10 * time.Millisecond, FlushSize: 300,
		MaxBackoff: 200 * time.Millisecond, Logf: func(string, ...any) {}})
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	r.LogParam("seed", "7")
	for step := int64(0); ; step++ {
		for i, k := range childKeys {
			r.LogMetric(k, step, float64(step)+float64(i)/10)
		}
		if step == 50 {
			r.LogArtifactBytes("plots/early.png", []byte("\x89PNG not really"))
		}
		if step%100 == 99 {
			if err := r.Persist(); err != nil {
				fmt.Println("error", err)
				return 1
			}
			fmt.Println("persisted", step)
		}
		if step%10 == 0 {
			time.Sleep(time.Millisecond)
		}
	}
}

func TestKillRecovery(t *testing.T) {
	c := testClient(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadURI := "http://" + l.Addr().String()
	l.Close()
	tests := []struct {
		name string
		uri  string // where the child logs
	}{
		{"killed while online", c.URI()},
		{"killed while offline", deadURI},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := newSpoolDir(t)
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), childEnv+"=1", childEnv+"_URI="+tt.uri, childEnv+"_SPOOL="+dir, childEnv+"_NAME="+tt.name)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			persisted := int64(-1)
			sc := bufio.NewScanner(out)
			for persisted < 1999 && sc.Scan() {
				f := strings.Fields(sc.Text())
				if len(f) == 2 && f[0] == "persisted" {
					persisted, _ = strconv.ParseInt(f[1], 10, 64)
				} else {
					t.Errorf("child: %s", sc.Text())
				}
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			if persisted < 1999 {
				t.Fatalf("the child stopped before persisting 2000 steps (at %d)", persisted)
			}
			st, err := InspectSpool(dir)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("killed after persisting step %d: %d requests pending, run id %q", persisted, st.Pending, st.RunID)
			if st.Busy {
				t.Error("the spool of a killed process is reported busy")
			}

			ctx := context.Background()
			res, err := Sync(ctx, c, dir, SyncOptions{MarkAbandoned: StatusKilled})
			if err != nil {
				t.Fatalf("Sync: %v", err)
			}
			run, err := c.GetRun(ctx, res.RunID)
			if err != nil {
				t.Fatal(err)
			}
			if run.Info.Status != StatusKilled || run.Info.RunName != tt.name {
				t.Errorf("recovered run: status %s, name %q", run.Info.Status, run.Info.RunName)
			}
			if v, _ := run.Data.Param("seed"); v != "7" {
				t.Errorf("param seed = %q", v)
			}
			var n int
			for _, k := range childKeys {
				hist, err := c.GetMetricHistory(ctx, res.RunID, k)
				if err != nil {
					t.Fatal(err)
				}
				if k == childKeys[0] {
					n = len(hist)
					if int64(n) < persisted+1 {
						t.Errorf("%s: %d points recovered, but steps 0..%d were persisted", k, n, persisted)
					}
				}
				checkSteps(t, k, hist, n) // every step 0..n-1 exactly once
			}
			files, err := c.ListArtifacts(ctx, run.Info.ArtifactURI, "plots")
			if err != nil || len(files) != 1 || files[0].Path != "plots/early.png" {
				t.Errorf("artifacts: %+v, %v", files, err)
			}
		})
	}
}
