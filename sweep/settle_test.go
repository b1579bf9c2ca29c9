package sweep

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/narlab/narlab/tracking"
	"github.com/narlab/narlab/tracking/mlflow"
	"github.com/narlab/narlab/tracking/mlflow/mlflowtest"
)

// TestParentFollowsCells builds groups of cell runs in a real MLflow
// server (each cell's attempts with their statuses and end times), settles
// the parent run, and reads the parent back with MLflow's Python client:
// it ends when its last cell ends, with that cell's end time, FINISHED,
// FAILED or KILLED as the cells say; it stays RUNNING (reopened if it had
// ended) while a cell runs or is still to come.
func TestParentFollowsCells(t *testing.T) {
	srv := mlflowtest.Server(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c, err := mlflow.NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	exp, err := c.GetOrCreateExperiment(ctx, "narlab-test/settle")
	if err != nil {
		t.Fatal(err)
	}
	// Cells start after their parent, so their times are in the future.
	base := time.Now().Add(time.Minute).UnixMilli()
	// attempt is one run of a cell: its status, start and end (minutes
	// after base; end 0: none).
	type attempt struct {
		status     mlflow.RunStatus
		start, end int64
	}
	type tc struct {
		name    string
		cells   map[string][]attempt
		since   map[string]int64 // minutes after base
		final   bool
		ended   bool // the parent had ended FINISHED before (a rerun)
		alive   func(key string) bool
		want    mlflow.RunStatus
		wantEnd int64 // minutes after base; -1: now; 0: not ended by Settle
	}
	fin, fail, kill, run := mlflow.StatusFinished, mlflow.StatusFailed, mlflow.StatusKilled, mlflow.StatusRunning
	cases := []tc{
		{name: "every cell finished", cells: map[string][]attempt{"a": {{fin, 1, 5}}, "b": {{fin, 2, 9}}}, want: fin, wantEnd: 9},
		{name: "a cell failed", cells: map[string][]attempt{"a": {{fail, 1, 7}}, "b": {{fin, 2, 4}}}, want: fail, wantEnd: 7},
		{name: "a cell was killed", cells: map[string][]attempt{"a": {{kill, 1, 3}}, "b": {{fin, 2, 8}}}, want: kill, wantEnd: 8},
		{name: "failed beats killed", cells: map[string][]attempt{"a": {{kill, 1, 3}}, "b": {{fail, 2, 4}}}, want: fail, wantEnd: 4},
		{name: "a later attempt finished", cells: map[string][]attempt{"a": {{fail, 1, 2}, {fin, 3, 6}}, "b": {{fin, 2, 4}}}, want: fin, wantEnd: 6},
		{name: "a cell still runs", cells: map[string][]attempt{"a": {{fin, 1, 2}}, "b": {{run, 3, 0}}}, want: run},
		{name: "a rerun cell reopens the parent", ended: true, cells: map[string][]attempt{"a": {{fin, 1, 2}}, "b": {{kill, 2, 3}, {run, 4, 0}}}, want: run},
		{name: "a cell's process died", alive: func(k string) bool { return k != "b" },
			cells: map[string][]attempt{"b": {{run, 3, 0}}}, want: kill, wantEnd: -1},
		{name: "a cell not started yet", cells: map[string][]attempt{"a": {{fin, 1, 2}}, "b": nil}, want: run},
		{name: "a cell not started when the sweep stops", final: true, cells: map[string][]attempt{"a": {{fin, 1, 2}}, "b": nil}, want: kill, wantEnd: 2},
		{name: "no cell started when the sweep stops", final: true, cells: map[string][]attempt{"a": nil, "b": nil}, want: kill, wantEnd: -1},
		{name: "an attempt from before the resubmission", since: map[string]int64{"b": 5},
			cells: map[string][]attempt{"a": {{fin, 1, 2}}, "b": {{fail, 2, 3}}}, want: run},
		{name: "the resubmitted cell finished", since: map[string]int64{"b": 5}, ended: true,
			cells: map[string][]attempt{"a": {{fin, 1, 2}}, "b": {{fail, 2, 3}, {fin, 6, 10}}}, want: fin, wantEnd: 10},
	}
	parents := make([]string, len(cases))
	settled := make([]int64, len(cases))
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := Group{Client: c, ExperimentID: exp.ID, ID: fmt.Sprintf("settle-%d", i)}
			parent, err := g.EnsureParent(ctx, "", ParentOptions{Name: tc.name, Source: "sweep test", Note: "a test grid"})
			if err != nil {
				t.Fatal(err)
			}
			parents[i] = parent
			if tc.ended {
				if _, err := c.UpdateRun(ctx, parent, fin, time.UnixMilli(base+1)); err != nil {
					t.Fatal(err)
				}
			}
			var keys []string
			for key, as := range tc.cells {
				keys = append(keys, key)
				for _, a := range as {
					var tags []mlflow.Tag
					for k, v := range g.CellTags(key) {
						tags = append(tags, mlflow.Tag{Key: k, Value: v})
					}
					tags = append(tags, mlflow.Tag{Key: mlflow.TagParentRunID, Value: parent})
					r, err := c.CreateRun(ctx, mlflow.CreateRunOptions{ExperimentID: exp.ID, Tags: tags,
						StartTime: time.UnixMilli(base + a.start*60000)})
					if err != nil {
						t.Fatal(err)
					}
					if a.status != run {
						if _, err := c.UpdateRun(ctx, r.Info.RunID, a.status, time.UnixMilli(base+a.end*60000)); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
			since := map[string]int64{}
			for k, m := range tc.since {
				since[k] = base + m*60000
			}
			got, err := g.Settle(ctx, parent, keys, since, tc.final, tc.alive)
			settled[i] = time.Now().UnixMilli()
			if err != nil || got != tc.want {
				t.Errorf("Settle = %s, %v; want %s", got, err, tc.want)
			}
			if tc.alive != nil {
				attempts, err := g.Attempts(ctx)
				if err != nil {
					t.Fatal(err)
				}
				for k, as := range attempts {
					if last := as[len(as)-1]; !tc.alive(k) && last.Status != kill {
						t.Errorf("cell %s: its abandoned run is %s, want KILLED", k, last.Status)
					}
				}
			}
			// Settling again changes nothing.
			if again, err := g.Settle(ctx, parent, keys, since, tc.final, tc.alive); err != nil || again != tc.want {
				t.Errorf("second Settle = %s, %v", again, err)
			}
		})
	}
	runs := mlflowtest.ReadRuns(t, srv.URL, parents...)
	for i, tc := range cases {
		p := runs[parents[i]]
		if p.Status != string(tc.want) {
			t.Errorf("%s: the parent is %s, want %s", tc.name, p.Status, tc.want)
		}
		switch {
		case tc.wantEnd > 0:
			if p.EndTime == nil || *p.EndTime != base+tc.wantEnd*60000 {
				t.Errorf("%s: the parent's end time %s, want the last cell's, %d", tc.name, endTime(p.EndTime), base+tc.wantEnd*60000)
			}
		case tc.wantEnd < 0:
			if p.EndTime == nil || *p.EndTime < p.StartTime || *p.EndTime > settled[i] {
				t.Errorf("%s: the parent's end time %s, want the time Settle ended it (start %d, settled by %d)", tc.name, endTime(p.EndTime), p.StartTime, settled[i])
			}
		}
		if u := tracking.CurrentUser(); p.UserID != u || p.Tags[mlflow.TagUser] != u || p.Tags[mlflow.TagNote] != "a test grid" ||
			p.Tags[mlflow.TagSourceType] != mlflow.SourceJob || !strings.Contains(p.Tags[mlflow.TagSourceName], "sweep test") {
			t.Errorf("%s: the parent's user %q (tag %q), description %q, source %q %q", tc.name, p.UserID, p.Tags[mlflow.TagUser],
				p.Tags[mlflow.TagNote], p.Tags[mlflow.TagSourceType], p.Tags[mlflow.TagSourceName])
		}
	}
}

func endTime(p *int64) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprint(*p)
}
