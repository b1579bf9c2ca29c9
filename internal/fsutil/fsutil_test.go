package fsutil

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFileModesHonourUmask(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		perm os.FileMode
	}{{"data.bin", DataMode}, {"secret.txt", SecretMode}} {
		p := filepath.Join(dir, "sub", tc.name)
		if err := WriteFile(p, []byte("x"), tc.perm); err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := st.Mode().Perm(), tc.perm&^Umask(); got != want {
			t.Errorf("%s: mode %v, want %v (umask %v)", tc.name, got, want, Umask())
		}
	}
}

func TestWriteFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	if err := WriteFile(p, []byte("old"), DataMode); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(p, DataMode, func(w io.Writer) error {
		io.WriteString(w, "half")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	b, _ := os.ReadFile(p)
	if string(b) != "old" {
		t.Errorf("file = %q after a failed write, want the old content", b)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("directory holds %d entries after a failed write, want 1 (temporary file left behind)", len(ents))
	}
}

// TestBatch writes files through a Batch and checks what a reader sees
// before and after Commit or Abort: the old contents until Commit, then
// the new ones with their modes, and no temporary file left; a failed
// write and an aborted batch leave nothing.
func TestBatch(t *testing.T) {
	for _, tc := range []struct {
		name   string
		commit bool
	}{{"commit", true}, {"abort", false}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			old := filepath.Join(dir, "a.txt")
			if err := WriteFile(old, []byte("old"), DataMode); err != nil {
				t.Fatal(err)
			}
			files := map[string]string{old: "new a", filepath.Join(dir, "b.txt"): "b", filepath.Join(dir, "sub", "c.txt"): "c"}
			var b Batch
			for p, content := range files {
				if err := b.Write(p, DataMode, func(w io.Writer) error { _, err := io.WriteString(w, content); return err }); err != nil {
					t.Fatal(err)
				}
			}
			boom := errors.New("boom")
			if err := b.Write(filepath.Join(dir, "d.txt"), DataMode, func(w io.Writer) error { io.WriteString(w, "half"); return boom }); !errors.Is(err, boom) {
				t.Fatalf("failed write: err = %v, want boom", err)
			}
			if got, _ := os.ReadFile(old); string(got) != "old" {
				t.Errorf("before Commit, %s = %q, want the old content", old, got)
			}
			if _, err := os.Stat(filepath.Join(dir, "b.txt")); err == nil {
				t.Errorf("before Commit, b.txt exists")
			}
			if tc.commit {
				if err := b.Commit(); err != nil {
					t.Fatal(err)
				}
			} else {
				b.Abort()
			}
			for p, content := range files {
				got, err := os.ReadFile(p)
				switch {
				case tc.commit && string(got) != content:
					t.Errorf("after Commit, %s = %q (%v), want %q", p, got, err, content)
				case !tc.commit && p == old && string(got) != "old":
					t.Errorf("after Abort, %s = %q, want the old content", p, got)
				case !tc.commit && p != old && err == nil:
					t.Errorf("after Abort, %s exists", p)
				}
				if st, err := os.Stat(p); tc.commit && err == nil && st.Mode().Perm() != DataMode&^Umask() {
					t.Errorf("%s: mode %v, want %v", p, st.Mode().Perm(), DataMode&^Umask())
				}
			}
			for _, d := range []string{dir, filepath.Join(dir, "sub")} {
				ents, _ := os.ReadDir(d)
				for _, e := range ents {
					if strings.Contains(e.Name(), ".tmp-") {
						t.Errorf("%s left behind in %s", e.Name(), d)
					}
				}
			}
		})
	}
}

func TestReadJSONL(t *testing.T) {
	type rec struct{ A int }
	tests := []struct {
		name, in string
		want     []int
		err      string
	}{
		{"plain", "{\"A\":1}\n{\"A\":2}\n", []int{1, 2}, ""},
		{"blank lines and no final newline", "\n{\"A\":1}\n\n{\"A\":3}", []int{1, 3}, ""},
		{"bad line named", "{\"A\":1}\n{\"A\":\n", []int{1}, "line 2"},
		{"empty", "", nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []int
			err := ReadJSONL(strings.NewReader(tc.in), func(_ int, r rec) error {
				got = append(got, r.A)
				return nil
			})
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("err = %v, want %q", err, tc.err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			}
		})
	}
}

func TestCheckWritableDir(t *testing.T) {
	if os.Geteuid() == 0 {
		// root writes anywhere; check a path under a regular file instead.
		f := filepath.Join(t.TempDir(), "file")
		os.WriteFile(f, nil, 0o644)
		if err := CheckWritableDir(filepath.Join(f, "sub")); err == nil {
			t.Fatal("a directory under a regular file was reported writable")
		}
		return
	}
	d := t.TempDir()
	os.Chmod(d, 0o500)
	defer os.Chmod(d, 0o700)
	if err := CheckWritableDir(d); err == nil {
		t.Fatal("a read-only directory was reported writable")
	}
}

func TestCheckCreatableDir(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "file")
	os.WriteFile(file, nil, 0o644)
	for _, c := range []struct {
		name, dir string
		ok        bool
	}{
		{"an existing directory", tmp, true},
		{"a new directory", filepath.Join(tmp, "new"), true},
		{"new directories two deep", filepath.Join(tmp, "a", "b"), true},
		{"a regular file", file, false},
		{"under a regular file", filepath.Join(file, "sub"), false},
		{"deep under a regular file", filepath.Join(file, "sub", "deeper"), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := CheckCreatableDir(c.dir)
			if (err == nil) != c.ok {
				t.Fatalf("CheckCreatableDir(%s) = %v; want ok %v", c.dir, err, c.ok)
			}
		})
	}
	// Nothing was created, not even the checked directories.
	for _, p := range []string{filepath.Join(tmp, "new"), filepath.Join(tmp, "a")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("the check created %s", p)
		}
	}
	entries, _ := os.ReadDir(tmp)
	if len(entries) != 1 {
		t.Errorf("the check left %d entries in %s; want only the file", len(entries), tmp)
	}
	if os.Geteuid() != 0 {
		ro := filepath.Join(tmp, "ro")
		os.Mkdir(ro, 0o500)
		defer os.Chmod(ro, 0o700)
		if err := CheckCreatableDir(filepath.Join(ro, "new")); err == nil {
			t.Error("a directory inside a read-only one was reported creatable")
		}
	}
}
