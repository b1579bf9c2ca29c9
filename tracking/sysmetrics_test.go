package tracking

import (
	"math"
	"sync"
	"testing"
	"time"
)

func TestParseSystemReadings(t *testing.T) {
	busy, total, err := parseCPULine([]byte("cpu  100 5 50 800 40 3 2 0 7 0\ncpu0 1 2 3 4 5\n"))
	if err != nil {
		t.Fatal(err)
	}
	// busy = user+nice+system+irq+softirq+steal; total adds idle and iowait; guest is not added.
	if busy != 160 || total != 1000 {
		t.Errorf("parseCPULine = busy %d total %d, want 160 1000", busy, total)
	}
	if _, _, err := parseCPULine([]byte("intr 1 2 3\n")); err == nil {
		t.Error("parseCPULine accepted a line that is not the cpu line")
	}
	for _, tc := range []struct {
		name        string
		in          string
		used, total uint64
		wantErr     bool
	}{
		{"meminfo", "MemTotal:       1000 kB\nMemFree:   100 kB\nMemAvailable:    250 kB\n", 750 * 1024, 1000 * 1024, false},
		{"no available", "MemTotal: 1000 kB\n", 0, 0, true},
		{"available above total", "MemTotal: 10 kB\nMemAvailable: 20 kB\n", 0, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			used, total, err := parseMeminfo([]byte(tc.in))
			if (err != nil) != tc.wantErr || used != tc.used || total != tc.total {
				t.Errorf("parseMeminfo = %d, %d, %v; want %d, %d, error %v", used, total, err, tc.used, tc.total, tc.wantErr)
			}
		})
	}
	got := parseNvidiaSMI([]byte("0, 87, 4096, 81920, 312.5\n1, 3, 0, 81920, [N/A]\n"))
	want := map[string]float64{
		"gpu_0_utilization_percentage": 87, "gpu_0_memory_usage_megabytes": 4096 * 1.048576,
		"gpu_0_memory_usage_percentage": 5, "gpu_0_power_usage_watts": 312.5,
		"gpu_1_utilization_percentage": 3, "gpu_1_memory_usage_megabytes": 0, "gpu_1_memory_usage_percentage": 0,
	}
	if len(got) != len(want) {
		t.Errorf("parseNvidiaSMI gave %d metrics, want %d: %v", len(got), len(want), got)
	}
	for k, v := range want {
		if math.Abs(got[k]-v) > 1e-9 {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
}

type fakeSource struct{ n int }

func (f *fakeSource) sample() map[string]float64 {
	f.n++
	return map[string]float64{"cpu_utilization_percentage": float64(f.n)}
}

// TestSystemMetricsLogging checks samples are logged under system/ with
// steps counting from 0, and that Stop logs a last sample.
func TestSystemMetricsLogging(t *testing.T) {
	var mu sync.Mutex
	var keys []string
	var steps []int64
	log := func(k string, step int64, v float64) error {
		mu.Lock()
		defer mu.Unlock()
		keys, steps = append(keys, k), append(steps, step)
		return nil
	}
	m := runSystemMetrics(&fakeSource{}, time.Hour, log) // no tick: only the last sample
	m.Stop()
	m.Stop() // repeated Stop is harmless
	if len(keys) != 1 || keys[0] != "system/cpu_utilization_percentage" || steps[0] != 0 {
		t.Errorf("logged %v at steps %v, want one system/cpu_utilization_percentage at step 0", keys, steps)
	}
	keys, steps = nil, nil
	m = runSystemMetrics(&fakeSource{}, 5*time.Millisecond, log)
	time.Sleep(60 * time.Millisecond)
	m.Stop()
	mu.Lock()
	defer mu.Unlock()
	if len(steps) < 3 {
		t.Fatalf("logged %d samples in 60 ms at a 5 ms interval, want ≥ 3", len(steps))
	}
	for i, s := range steps {
		if s != int64(i) {
			t.Fatalf("steps %v, want 0, 1, 2, …", steps)
		}
	}
	var nilM *systemMetrics
	nilM.Stop()
}

// TestProcSource reads this machine: a CPU percentage on the second
// sample and memory within bounds.
func TestProcSource(t *testing.T) {
	s := &procSource{}
	s.sample()
	time.Sleep(50 * time.Millisecond)
	got := s.sample()
	cpu, ok := got["cpu_utilization_percentage"]
	if !ok || cpu < 0 || cpu > 100 {
		t.Errorf("cpu_utilization_percentage = %v (present %v), want in [0, 100]", cpu, ok)
	}
	if p := got["system_memory_usage_percentage"]; !(p > 0 && p <= 100) {
		t.Errorf("system_memory_usage_percentage = %v, want in (0, 100]", p)
	}
}
