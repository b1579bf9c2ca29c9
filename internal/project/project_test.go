package project

import (
	"os"
	"path/filepath"
	"testing"
)

func TestIsRoot(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, gomod string
		want        bool
	}{
		{"narlab", "module github.com/narlab/narlab\n\ngo 1.24\n", true},
		{"comment and blank lines first", "// a comment\n\n  module   github.com/narlab/narlab  \n", true},
		{"another module", "module example.com/other\n", false},
		{"a module whose path starts like narlab's", "module github.com/narlab/narlab2\n", false},
		{"no module line", "go 1.24\n", false},
		{"no go.mod", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.gomod != "" {
				if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(tc.gomod), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got := isRoot(dir); got != tc.want {
				t.Errorf("isRoot = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestRootHonoursEnvironment(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("NARLAB_ROOT", dir)
	got, err := Root()
	if err != nil || got != dir {
		t.Fatalf("Root() = %q, %v; want %q", got, err, dir)
	}
	data := filepath.Join(dir, "d", "e")
	t.Setenv("NARLAB_DATA", data)
	got, err = DataDir()
	if err != nil || got != data {
		t.Fatalf("DataDir() = %q, %v; want %q", got, err, data)
	}
	if st, err := os.Stat(data); err != nil || !st.IsDir() {
		t.Fatalf("DataDir did not create %s: %v", data, err)
	}
}
