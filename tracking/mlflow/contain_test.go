package mlflow

import (
	"bytes"
	"context"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// craftLine writes a spool record line as an attacker would: the JSON
// fields by hand and the CRC-32 recomputed over them.
func craftLine(fields string) string {
	rest := fields[1:] // without the leading '{'
	return fmt.Sprintf(`{"crc":"%08x",%s`, crc32.ChecksumIEEE([]byte(rest)), rest) + "\n"
}

// TestCraftedSpoolStaysInside syncs, against a real server, a spool whose
// artifact records name files outside it (absolute paths, "..", a link in
// artifacts/, a name with a sub-directory), beside one honest record. The
// honest artifact must arrive and its copy be removed (the test can see an
// upload and a removal); no outside file may be uploaded, changed or
// removed.
func TestCraftedSpoolStaysInside(t *testing.T) {
	c := testClient(t)
	ctx := context.Background()
	base := t.TempDir()
	outside := filepath.Join(base, "secret.txt")
	const secret = "the contents of a file outside the spool\n"
	if err := os.WriteFile(outside, []byte(secret), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(base, "spool")
	exp := "crafted-spool-" + t.Name()
	meta := fmt.Sprintf(`{"version":1,"local_id":"crafted-%d","tracking":%q,"experiment":%q}`, os.Getpid(), c.URI(), exp)
	os.MkdirAll(filepath.Join(dir, artifactsDir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, metaFile), []byte(meta), 0o644)
	os.WriteFile(filepath.Join(dir, stateFile), []byte(`{"acked":0}`), 0o644)
	os.WriteFile(filepath.Join(dir, artifactsDir, "00000002-honest.txt"), []byte("honest\n"), 0o644)
	os.WriteFile(filepath.Join(dir, artifactsDir, "sub", "x.txt"), []byte("nested\n"), 0o644)
	if err := os.Symlink(outside, filepath.Join(dir, artifactsDir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(filepath.Join(dir, artifactsDir), outside)
	lines := []string{
		craftLine(fmt.Sprintf(`{"seq":1,"op":"create_run","body":{"start_time":1,"tags":[]},"experiment":%q}`, exp)),
		craftLine(`{"seq":2,"op":"artifact","path":"honest.txt","file":"artifacts/00000002-honest.txt"}`),
	}
	evil := []string{
		outside,                         // absolute
		"artifacts/" + rel,              // climbs out with ..
		"artifacts/../../secret.txt",    // not clean
		"../secret.txt",                 // not under artifacts/
		"artifacts/link.txt",            // a link to the outside file
		"artifacts/sub/x.txt",           // not directly under artifacts/
		"artifacts/./00000002-x.txt",    // not clean
		"artifacts\\..\\..\\secret.txt", // backslashes
	}
	for i, f := range evil {
		lines = append(lines, craftLine(fmt.Sprintf(`{"seq":%d,"op":"artifact","path":"stolen%d.txt","file":%q}`, i+3, i, f)))
	}
	lines = append(lines, craftLine(fmt.Sprintf(`{"seq":%d,"op":"update_run","body":{"status":"FINISHED","end_time":2}}`, len(evil)+3)))
	if err := os.WriteFile(filepath.Join(dir, requestsFile), []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}

	res, err := Sync(ctx, c, dir, SyncOptions{})
	if err == nil {
		t.Errorf("Sync of a crafted spool reported no error")
	}
	if got := len(res.Rejected); got != len(evil) {
		t.Errorf("%d records rejected, want %d (one per crafted artifact record): %v", got, len(evil), res.Rejected)
	}
	for _, r := range res.Rejected {
		if !strings.Contains(r.Error(), "inside its own spool") && !strings.Contains(r.Error(), "outside the spool") {
			t.Errorf("rejection does not say why: %v", r)
		}
	}
	if res.RunID == "" {
		t.Fatalf("the run was not created: %+v", res)
	}
	// The outside file is intact.
	if b, err := os.ReadFile(outside); err != nil || string(b) != secret {
		t.Fatalf("the file outside the spool was changed or removed: %q, %v", b, err)
	}
	// The link and the nested file are still there (sync removes only what it delivered).
	for _, p := range []string{filepath.Join(dir, artifactsDir, "link.txt"), filepath.Join(dir, artifactsDir, "sub", "x.txt")} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
	// The honest copy was delivered and removed.
	if _, err := os.Stat(filepath.Join(dir, artifactsDir, "00000002-honest.txt")); err == nil {
		t.Errorf("the delivered honest artifact copy was not removed")
	}
	run, err := c.GetRun(ctx, res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	files, err := c.ListArtifactsRecursive(ctx, run.Info.ArtifactURI, "")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, f.Path)
	}
	if len(names) != 1 || names[0] != "honest.txt" {
		t.Errorf("the server holds artifacts %v, want only honest.txt", names)
	}
	if b, err := c.ReadArtifact(ctx, run.Info.ArtifactURI, "honest.txt"); err != nil || string(b) != "honest\n" {
		t.Errorf("honest.txt = %q, %v", b, err)
	}
}

// TestCraftedSpoolFiles: a spool whose own files are links to files
// outside it is refused before anything is opened for writing, so the
// outside files are neither truncated (lock) nor appended to
// (requests.jsonl, rejected.jsonl) nor read as a spool.
func TestCraftedSpoolFiles(t *testing.T) {
	for _, name := range []string{lockName, requestsFile, rejectedFile, stateFile, metaFile, artifactsDir} {
		t.Run(name, func(t *testing.T) {
			base := t.TempDir()
			outside := filepath.Join(base, "victim")
			const content = "do not touch\n"
			os.WriteFile(outside, []byte(content), 0o644)
			dir := filepath.Join(base, "spool")
			os.MkdirAll(dir, 0o755)
			if name != metaFile {
				os.WriteFile(filepath.Join(dir, metaFile), []byte(`{"version":1,"local_id":"x","tracking":"http://127.0.0.1:1","experiment":"e"}`), 0o644)
			}
			target := outside
			if name == artifactsDir {
				target = base
			}
			if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
			_, err := OpenSpool(dir)
			if err == nil || !strings.Contains(err.Error(), name) {
				t.Errorf("OpenSpool with %s a link: %v, want an error naming it", name, err)
			}
			if _, err := InspectSpool(dir); err == nil {
				t.Errorf("InspectSpool with %s a link: no error", name)
			}
			if b, _ := os.ReadFile(outside); string(b) != content {
				t.Errorf("the outside file became %q", b)
			}
		})
	}
	// A named pipe instead of requests.jsonl would block a reader forever.
	dir := filepath.Join(t.TempDir(), "spool")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, metaFile), []byte(`{"version":1}`), 0o644)
	if err := mkfifo(filepath.Join(dir, requestsFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenSpool(dir); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("OpenSpool with a fifo: %v", err)
	}
}

func mkfifo(p string) error { return syscall.Mkfifo(p, 0o644) }

// TestSpoolHugeLine: a crafted requests.jsonl with a line longer than
// fsutil.MaxLine is refused with an error, not read into memory.
func TestSpoolHugeLine(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "spool")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, metaFile), []byte(`{"version":1,"local_id":"x","tracking":"http://127.0.0.1:1","experiment":"e"}`), 0o644)
	f, err := os.Create(filepath.Join(dir, requestsFile))
	if err != nil {
		t.Fatal(err)
	}
	block := bytes.Repeat([]byte("x"), 1<<20)
	for range 65 {
		f.Write(block)
	}
	f.Write([]byte("\n"))
	f.Close()
	if _, err := OpenSpool(dir); err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Errorf("OpenSpool with a 65 MiB line: %v", err)
	}
	if _, err := InspectSpool(dir); err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Errorf("InspectSpool with a 65 MiB line: %v", err)
	}
}
