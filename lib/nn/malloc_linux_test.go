//go:build cgo && !noxla && linux && (amd64 || arm64)

package nn

import "testing"

// TestMallocKeepsBuffers checks the malloc settings narlab makes for XLA's
// buffers (malloc_linux.go): a block above glibc's largest mmap threshold
// (32 MiB) comes from the heap, and freeing it does not shrink the heap.
// With glibc's defaults both fail.
func TestMallocKeepsBuffers(t *testing.T) {
	for _, s := range mallocSettings {
		if glibcSet(s.env, s.tunable) {
			t.Skipf("%s or %s is set in the environment: glibc's setting wins over narlab's", s.env, s.tunable)
		}
	}
	for _, mib := range []int{48, 100} {
		fromHeap, kept := heapKeeps(mib << 20)
		if !fromHeap {
			t.Errorf("a %d MiB block was mapped on its own: XLA's buffers would be faulted in and zeroed on every call", mib)
		}
		if !kept {
			t.Errorf("freeing a %d MiB block shrank the heap: its pages would be faulted in again", mib)
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
		{"mmap threshold keeps mmap", map[string]string{"MALLOC_MMAP_THRESHOLD_": "1048576"}, "MALLOC_MMAP_MAX_", "glibc.malloc.mmap_max", true},
		{"mmap threshold tunable keeps mmap", map[string]string{"GLIBC_TUNABLES": "glibc.malloc.mmap_threshold=1048576"}, "MALLOC_MMAP_MAX_", "glibc.malloc.mmap_max", true},
		{"mmap threshold leaves trimming", map[string]string{"MALLOC_MMAP_THRESHOLD_": "1048576"}, "MALLOC_TRIM_THRESHOLD_", "glibc.malloc.trim_threshold", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, name := range []string{"GLIBC_TUNABLES", "MALLOC_ARENA_MAX", "MALLOC_MMAP_MAX_", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_"} {
				t.Setenv(name, c.env[name])
			}
			if got := glibcSet(c.variable, c.tunable); got != c.want {
				t.Errorf("glibcSet(%s, %s) = %v with %v, want %v", c.variable, c.tunable, got, c.env, c.want)
			}
		})
	}
}
