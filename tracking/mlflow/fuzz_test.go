package mlflow

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzSpoolRecord: any line is a checked record or an error, and an
// artifact record — whatever it names — resolves only to a regular file
// inside its spool's artifacts/ directory.
func FuzzSpoolRecord(f *testing.F) {
	for _, s := range []string{
		`{"seq":1,"op":"create_run","body":{"start_time":1},"experiment":"e"}`,
		`{"seq":2,"op":"artifact","path":"a.txt","file":"artifacts/00000002-a.txt"}`,
		`{"seq":3,"op":"artifact","path":"b","file":"/etc/passwd"}`,
		`{"seq":4,"op":"artifact","path":"b","file":"artifacts/../../x"}`,
		`{"seq":5,"op":"artifact","path":"b","file":"artifacts/link"}`,
		`{"seq":6,"op":"log_batch","body":{"metrics":[]}}`,
	} {
		f.Add([]byte(craftLine(s)), "")
	}
	f.Add([]byte(`{"crc":"00000000",}`), "")
	for _, p := range []string{"artifacts/00000002-a.txt", "/etc/passwd", "artifacts/../artifacts/00000002-a.txt", "artifacts/link", "artifacts/", "artifacts//x", "artifacts\\x", "./artifacts/00000002-a.txt"} {
		f.Add([]byte(nil), p)
	}
	dir := filepath.Join(f.TempDir(), "spool")
	os.MkdirAll(filepath.Join(dir, artifactsDir), 0o755)
	os.WriteFile(filepath.Join(dir, artifactsDir, "00000002-a.txt"), []byte("a"), 0o644)
	os.Symlink("/etc/passwd", filepath.Join(dir, artifactsDir, "link"))
	s := &Spool{dir: dir}
	inside := filepath.Join(dir, artifactsDir) + string(filepath.Separator)
	f.Fuzz(func(t *testing.T, line []byte, file string) {
		line = []byte(strings.TrimSuffix(string(line), "\n"))
		rec, err := parseRecord(line)
		if err == nil && (rec.Seq <= 0 || rec.Op == "") {
			t.Fatalf("accepted %+v", rec)
		}
		if err != nil || file != "" {
			// The file field as an attacker would write it, with a valid checksum.
			rec = record{Seq: 1, Op: opArtifact, Path: "x", File: file}
		}
		p, err := s.artifactCopy(rec)
		if err != nil {
			return
		}
		if !strings.HasPrefix(p, inside) || strings.Contains(strings.TrimPrefix(p, inside), string(filepath.Separator)) {
			t.Fatalf("artifact record %q resolved to %s, outside %s", rec.File, p, inside)
		}
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() {
			t.Fatalf("artifact record %q resolved to %s, not a regular file", rec.File, p)
		}
	})
}
