package tracking

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// System metrics: while a run is live, narlab samples the machine every
// MLFLOW_SYSTEM_METRICS_SAMPLING_INTERVAL seconds (default 10, as MLflow's
// own monitor) and logs the samples under the names MLflow's monitor uses,
// so the run page's System metrics tab draws them:
//
//	system/cpu_utilization_percentage
//	system/system_memory_usage_megabytes, system/system_memory_usage_percentage
//	system/gpu_N_utilization_percentage, system/gpu_N_memory_usage_megabytes,
//	system/gpu_N_memory_usage_percentage, system/gpu_N_power_usage_watts
//	  (per NVIDIA GPU, read with nvidia-smi when it is on PATH)
//
// Steps count samples from 0. MLFLOW_ENABLE_SYSTEM_METRICS_LOGGING=false
// turns sampling off.
const (
	envSysInterval     = "MLFLOW_SYSTEM_METRICS_SAMPLING_INTERVAL"
	envSysEnable       = "MLFLOW_ENABLE_SYSTEM_METRICS_LOGGING"
	defaultSysInterval = 10 * time.Second
)

// sysSource reads the machine: each call returns the metrics (without the
// system/ prefix) since the previous call.
type sysSource interface {
	sample() map[string]float64
}

// systemMetrics samples a sysSource on a ticker and logs what it reads.
type systemMetrics struct {
	stopOnce sync.Once
	stop     chan struct{}
	done     chan struct{}
}

// startSystemMetrics starts sampling into log (a run's LogMetric), or
// returns nil when sampling is turned off.
func startSystemMetrics(log func(key string, step int64, value float64) error) *systemMetrics {
	if v := strings.ToLower(os.Getenv(envSysEnable)); v == "false" || v == "0" {
		return nil
	}
	every := defaultSysInterval
	if s := os.Getenv(envSysInterval); s != "" {
		if f, err := strconv.ParseFloat(s, 64); err == nil && f > 0 {
			every = time.Duration(f * float64(time.Second))
		}
	}
	return runSystemMetrics(newProcSource(), every, log)
}

func runSystemMetrics(src sysSource, every time.Duration, log func(string, int64, float64) error) *systemMetrics {
	m := &systemMetrics{stop: make(chan struct{}), done: make(chan struct{})}
	src.sample() // the baseline of the CPU counters
	go func() {
		defer close(m.done)
		t := time.NewTicker(every)
		defer t.Stop()
		var step int64
		emit := func() {
			for k, v := range src.sample() {
				log("system/"+k, step, v)
			}
			step++
		}
		for {
			select {
			case <-t.C:
				emit()
			case <-m.stop:
				emit() // a last sample, so even a short run has one
				return
			}
		}
	}()
	return m
}

// Stop takes a last sample and stops; it is safe on nil and repeated calls.
func (m *systemMetrics) Stop() {
	if m == nil {
		return
	}
	m.stopOnce.Do(func() { close(m.stop) })
	<-m.done
}

// procSource reads Linux's /proc and, where present, nvidia-smi.
type procSource struct {
	busy, total uint64 // CPU jiffies at the previous sample
	nvidiaSMI   string
}

func newProcSource() *procSource {
	s := &procSource{}
	if p, err := exec.LookPath("nvidia-smi"); err == nil {
		s.nvidiaSMI = p
	}
	return s
}

func (s *procSource) sample() map[string]float64 {
	out := map[string]float64{}
	if busy, total, err := cpuJiffies(); err == nil {
		if d := total - s.total; s.total > 0 && d > 0 {
			out["cpu_utilization_percentage"] = 100 * float64(busy-s.busy) / float64(d)
		}
		s.busy, s.total = busy, total
	}
	if used, total, err := memoryBytes(); err == nil && total > 0 {
		out["system_memory_usage_megabytes"] = float64(used) / 1e6
		out["system_memory_usage_percentage"] = 100 * float64(used) / float64(total)
	}
	if s.nvidiaSMI != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		b, err := exec.CommandContext(ctx, s.nvidiaSMI,
			"--query-gpu=index,utilization.gpu,memory.used,memory.total,power.draw",
			"--format=csv,noheader,nounits").Output()
		cancel()
		if err == nil {
			for k, v := range parseNvidiaSMI(b) {
				out[k] = v
			}
		}
	}
	return out
}

// cpuJiffies reads the busy and total jiffies of all CPUs from /proc/stat.
func cpuJiffies() (busy, total uint64, err error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	return parseCPULine(b)
}

func parseCPULine(stat []byte) (busy, total uint64, err error) {
	line, _, _ := bytes.Cut(stat, []byte("\n"))
	f := strings.Fields(string(line))
	if len(f) < 5 || f[0] != "cpu" {
		return 0, 0, fmt.Errorf("unexpected /proc/stat line %q", line)
	}
	for i, x := range f[1:] {
		v, err := strconv.ParseUint(x, 10, 64)
		if err != nil {
			return 0, 0, err
		}
		if i >= 8 { // guest times are already counted in user and nice
			break
		}
		total += v
		if i != 3 && i != 4 { // idle and iowait
			busy += v
		}
	}
	return busy, total, nil
}

// memoryBytes reads used (total − available) and total memory.
func memoryBytes() (used, total uint64, err error) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, 0, err
	}
	return parseMeminfo(b)
}

func parseMeminfo(b []byte) (used, total uint64, err error) {
	var avail uint64
	var haveTotal, haveAvail bool
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		v, err := strconv.ParseUint(f[1], 10, 64)
		if err != nil {
			continue
		}
		switch f[0] {
		case "MemTotal:":
			total, haveTotal = v*1024, true
		case "MemAvailable:":
			avail, haveAvail = v*1024, true
		}
	}
	if !haveTotal || !haveAvail || avail > total {
		return 0, 0, fmt.Errorf("no MemTotal/MemAvailable in /proc/meminfo")
	}
	return total - avail, total, nil
}

// parseNvidiaSMI reads "index, util %, used MiB, total MiB, power W" lines.
func parseNvidiaSMI(b []byte) map[string]float64 {
	out := map[string]float64{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Split(line, ",")
		if len(f) < 4 {
			continue
		}
		num := func(i int) (float64, bool) {
			if i >= len(f) {
				return 0, false
			}
			v, err := strconv.ParseFloat(strings.TrimSpace(f[i]), 64)
			return v, err == nil
		}
		idx := strings.TrimSpace(f[0])
		p := "gpu_" + idx + "_"
		if v, ok := num(1); ok {
			out[p+"utilization_percentage"] = v
		}
		used, ok1 := num(2)
		tot, ok2 := num(3)
		if ok1 {
			out[p+"memory_usage_megabytes"] = used * 1.048576 // MiB → MB
		}
		if ok1 && ok2 && tot > 0 {
			out[p+"memory_usage_percentage"] = 100 * used / tot
		}
		if v, ok := num(4); ok {
			out[p+"power_usage_watts"] = v
		}
	}
	return out
}
