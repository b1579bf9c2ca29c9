package hugepages

import (
	"slices"
	"testing"
)

func TestEnviron(t *testing.T) {
	for _, c := range []struct {
		in, want []string
	}{
		{[]string{"A=1"}, []string{"A=1", "GLIBC_TUNABLES=glibc.malloc.hugetlb=1"}},
		{[]string{"GLIBC_TUNABLES=glibc.malloc.arena_max=2", "B=2"},
			[]string{"B=2", "GLIBC_TUNABLES=glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1"}},
		{[]string{"GLIBC_TUNABLES="}, []string{"GLIBC_TUNABLES=glibc.malloc.hugetlb=1"}},
	} {
		if got := Environ(c.in); !slices.Equal(got, c.want) {
			t.Errorf("Environ(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestWantedRespectsSettings(t *testing.T) {
	t.Setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1")
	if Wanted() {
		t.Error("Wanted with the tunable already set")
	}
	t.Setenv("GLIBC_TUNABLES", "")
	t.Setenv(Env, "0")
	if Wanted() {
		t.Error("Wanted with NARLAB_HUGEPAGES=0")
	}
}
