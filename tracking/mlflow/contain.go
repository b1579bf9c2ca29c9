package mlflow

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
)

// A spool may come from another machine (`narlab mlflow sync --dir`), so
// nothing in it is trusted to name a file: its record checksums are plain
// CRCs that anyone can recompute. The functions here confine every file the
// spool code opens, appends to, truncates, uploads or removes to the
// spool's own directory:
//
//   - the spool's own files (meta.json, state.json, requests.jsonl,
//     rejected.jsonl, lock) must be regular files or absent, never
//     symbolic links or devices;
//   - artifacts/ must be a real directory inside the spool;
//   - an artifact record's file must be "artifacts/<name>", one plain
//     name, naming a regular file (not a link) whose resolved path is
//     inside the resolved spool directory; it is opened without following
//     links and checked again after opening.

// checkSpoolFiles refuses a spool whose own files are links or not regular
// files (a link named lock or requests.jsonl would let a crafted spool make
// narlab truncate or append to a file outside it).
func checkSpoolFiles(dir string) error {
	for _, name := range []string{metaFile, stateFile, requestsFile, rejectedFile, lockName} {
		fi, err := os.Lstat(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("mlflow: spool %s: %w", dir, err)
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("mlflow: spool %s: %s is %s, not a regular file; a spool's files must be plain files inside it (refusing to use it)",
				dir, name, describeMode(fi.Mode()))
		}
	}
	fi, err := os.Lstat(filepath.Join(dir, artifactsDir))
	if err == nil && !fi.IsDir() {
		return fmt.Errorf("mlflow: spool %s: %s is %s, not a directory inside the spool (refusing to use it)",
			dir, artifactsDir, describeMode(fi.Mode()))
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("mlflow: spool %s: %w", dir, err)
	}
	return nil
}

func describeMode(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

// artifactCopy checks the file named by an artifact record and returns its
// path inside the spool. It accepts only "artifacts/<name>" naming a
// regular file (not a link) that resolves inside the spool directory.
func (s *Spool) artifactCopy(rec record) (string, error) {
	bad := func(why string) error {
		return &permanentError{fmt.Errorf("mlflow: spool %s: record %d names the artifact copy %q, which %s; "+
			"an artifact record may only name a regular file artifacts/<name> inside its own spool (nothing was uploaded or removed)",
			s.dir, rec.Seq, rec.File, why)}
	}
	f := rec.File
	switch {
	case f == "":
		return "", bad("is empty")
	case strings.ContainsRune(f, '\\') || strings.ContainsRune(f, 0):
		return "", bad("holds a backslash or NUL")
	case path.IsAbs(f) || filepath.IsAbs(f) || filepath.VolumeName(f) != "":
		return "", bad("is an absolute path")
	case path.Clean(f) != f:
		return "", bad("is not a clean relative path")
	}
	dirPart, name := path.Split(f)
	if dirPart != artifactsDir+"/" || name == "" || name == "." || name == ".." {
		return "", bad("is not directly under artifacts/")
	}
	full := filepath.Join(s.dir, artifactsDir, name)
	fi, err := os.Lstat(full)
	if err != nil {
		return "", &permanentError{fmt.Errorf("mlflow: spool %s: the copy of artifact %s is missing: %w", s.dir, rec.Path, err)}
	}
	if !fi.Mode().IsRegular() {
		return "", bad("is " + describeMode(fi.Mode()))
	}
	root, err := filepath.EvalSymlinks(s.dir)
	if err != nil {
		return "", &permanentError{fmt.Errorf("mlflow: spool %s: %w", s.dir, err)}
	}
	real, err := filepath.EvalSymlinks(full)
	if err != nil {
		return "", &permanentError{fmt.Errorf("mlflow: spool %s: %w", s.dir, err)}
	}
	if !strings.HasPrefix(real, filepath.Join(root, artifactsDir)+string(filepath.Separator)) {
		return "", bad("resolves to " + real + ", outside the spool")
	}
	return full, nil
}

// openArtifactCopy opens a checked artifact copy without following links
// and checks that what was opened is the regular file that was checked.
func openArtifactCopy(p string) (*os.File, error) {
	before, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", p, err)
	}
	after, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !after.Mode().IsRegular() || !os.SameFile(before, after) {
		f.Close()
		return nil, fmt.Errorf("%s changed while it was being opened; refusing to upload it", p)
	}
	return f, nil
}

// removeArtifactCopy removes a delivered artifact copy, only if it is still
// a regular file inside the spool's artifacts directory.
func (s *Spool) removeArtifactCopy(rec record) {
	if p, err := s.artifactCopy(rec); err == nil {
		_ = os.Remove(p)
	}
}

// openNoFollow opens one of the spool's own files, refusing a link.
func openNoFollow(name string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(name, flag|syscall.O_NOFOLLOW, perm)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("%s is a symbolic link; a spool's files must be plain files inside it", name)
		}
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = fmt.Errorf("%s is not a regular file", name)
		}
		return nil, err
	}
	return f, nil
}

// copyGone reports whether the artifact copy that rec names is plainly
// absent from the spool's artifacts directory (as after its upload).
func (s *Spool) copyGone(rec record) bool {
	dirPart, name := path.Split(rec.File)
	if dirPart != artifactsDir+"/" || name == "" || name == "." || name == ".." || strings.ContainsAny(name, "\\\x00") {
		return false
	}
	_, err := os.Lstat(filepath.Join(s.dir, artifactsDir, name))
	return errors.Is(err, fs.ErrNotExist)
}
