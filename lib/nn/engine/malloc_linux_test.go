//go:build cgo && !noxla && linux && (amd64 || arm64)

package engine

import "testing"

// mallocModeChecks are heapKeeps's answers for blocks above glibc's largest
// mmap threshold (32 MiB), as XLA's step buffers are, in each of
// malloc_linux.go's modes (TuneProcess set up). init takes them while the package initializes,
// on the process's main thread, whose
// blocks come from glibc's main arena (a thread on the second arena gets
// blocks above 64 MiB mapped in either mode, so a test goroutine's answers
// would depend on its thread).
var mallocModeChecks struct{ trainHeap, trainKept, evalHeap [2]bool }

func init() {
	TuneProcess() // as narlab's binaries do
	if !mallocMode.managed {
		return
	}
	c := &mallocModeChecks
	for i, mib := range []int{48, 100} {
		KeepBuffers(true)
		c.trainHeap[i], c.trainKept[i] = heapKeeps(mib << 20)
		KeepBuffers(false)
		c.evalHeap[i], _ = heapKeeps(mib << 20)
	}
}

// TestMallocModes checks malloc_linux.go's two modes: in training, large
// blocks come from the heap and stay there when freed (with glibc's
// defaults both fail); in evaluation they are mapped on their own.
func TestMallocModes(t *testing.T) {
	if !mallocMode.managed {
		t.Skip("glibc's malloc parameters are set in the environment: narlab leaves them alone")
	}
	c := mallocModeChecks
	for i, mib := range []int{48, 100} {
		if !c.trainHeap[i] {
			t.Errorf("training: a %d MiB block was mapped on its own: XLA's buffers would be faulted in and zeroed on every call", mib)
		}
		if !c.trainKept[i] {
			t.Errorf("training: freeing a %d MiB block shrank the heap: its pages would be faulted in again", mib)
		}
		if c.evalHeap[i] {
			t.Errorf("evaluation: a %d MiB block came from the heap, where it can fragment it and raise the peak", mib)
		}
	}
}

func TestGlibcSet(t *testing.T) {
	cases := []struct {
		name              string
		env               map[string]string
		variable, tunable string
		want              bool
	}{
		{"nothing set", nil, "MALLOC_ARENA_MAX", "glibc.malloc.arena_max", false},
		{"variable", map[string]string{"MALLOC_ARENA_MAX": "4"}, "MALLOC_ARENA_MAX", "glibc.malloc.arena_max", true},
		{"tunable", map[string]string{"GLIBC_TUNABLES": "glibc.malloc.hugetlb=1:glibc.malloc.arena_max=8"}, "MALLOC_ARENA_MAX", "glibc.malloc.arena_max", true},
		{"another tunable", map[string]string{"GLIBC_TUNABLES": "glibc.malloc.hugetlb=1"}, "MALLOC_ARENA_MAX", "glibc.malloc.arena_max", false},
		{"another variable", map[string]string{"MALLOC_MMAP_THRESHOLD_": "1048576"}, "MALLOC_TRIM_THRESHOLD_", "glibc.malloc.trim_threshold", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, name := range []string{"GLIBC_TUNABLES", "MALLOC_ARENA_MAX", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_"} {
				t.Setenv(name, c.env[name])
			}
			if got := glibcSet(c.variable, c.tunable); got != c.want {
				t.Errorf("glibcSet(%s, %s) = %v with %v, want %v", c.variable, c.tunable, got, c.env, c.want)
			}
		})
	}
}
