// Package hugepages lets glibc's malloc back its memory with transparent
// huge pages, for programs that run XLA on the CPU.
//
// XLA's CPU runtime allocates each program's temporary buffers with malloc
// on every execution. Memory that malloc newly takes from the kernel is
// faulted in and zeroed 4 KiB at a time: evaluating a CLRS-30 test batch at
// n = 64 one step per call, when glibc still mapped each large buffer anew,
// spent a third of its time in the kernel doing so. glibc's tunable
// glibc.malloc.hugetlb=1 makes it advise its heaps and mappings as huge
// pages (2 MiB), which the kernel faults in and clears 512 times less often
// (docs/log/performance-training.md, "Step loop"); lib/nn/engine also keeps large
// buffers in the heaps (its malloc modes, engine.TuneProcess), so that their
// pages are reused. Tunables
// are read when a program starts, so Reexec starts the program again with
// the tunable set.
package hugepages

import (
	"os"
	"strings"
)

// Env is the environment variable that turns Reexec off when set to 0.
const Env = "NARLAB_HUGEPAGES"

const tunable = "glibc.malloc.hugetlb=1"

// Wanted reports whether the current process would gain from the tunable:
// on Linux with transparent huge pages in "madvise" or "always" mode, not
// turned off by NARLAB_HUGEPAGES=0, and not already set.
func Wanted() bool {
	if os.Getenv(Env) == "0" || strings.Contains(os.Getenv("GLIBC_TUNABLES"), "glibc.malloc.hugetlb") {
		return false
	}
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	return err == nil && !strings.Contains(string(mode), "[never]")
}

// Environ is the environment with the tunable added to GLIBC_TUNABLES
// (kept colon-separated with any tunables already there).
func Environ(env []string) []string {
	out := make([]string, 0, len(env)+1)
	value := tunable
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GLIBC_TUNABLES="); ok {
			if v != "" {
				value = v + ":" + tunable
			}
			continue
		}
		out = append(out, kv)
	}
	return append(out, "GLIBC_TUNABLES="+value)
}
