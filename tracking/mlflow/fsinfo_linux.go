package mlflow

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// fsDescription describes the filesystem holding the existing path p: its
// type and mount point (from /proc/self/mountinfo) and its free and total
// space (statfs), e.g. "tmpfs on /mnt/small, 0 B free of 64 KiB".
func fsDescription(p string) string {
	var st syscall.Statfs_t
	space := ""
	if err := syscall.Statfs(p, &st); err == nil {
		bs := uint64(st.Bsize)
		space = fmt.Sprintf("%s free of %s", bytesText(st.Bavail*bs), bytesText(st.Blocks*bs))
	}
	mount, fstype := mountOf(p)
	switch {
	case mount != "" && space != "":
		return fmt.Sprintf("the filesystem %s on %s, %s", fstype, mount, space)
	case mount != "":
		return fmt.Sprintf("the filesystem %s on %s", fstype, mount)
	case space != "":
		return "its filesystem has " + space
	}
	return "the filesystem of " + p
}

// mountOf returns the mount point holding p and its filesystem type: the
// longest mount point of /proc/self/mountinfo that contains p's resolved
// path.
func mountOf(p string) (mount, fstype string) {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		real = p
	}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		// id parent major:minor root mount-point options [optional…] - type source super-options
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		mp := unescapeMount(fields[4])
		typ := ""
		for i, f := range fields {
			if f == "-" && i+1 < len(fields) {
				typ = fields[i+1]
				break
			}
		}
		if (real == mp || mp == "/" || strings.HasPrefix(real, mp+"/")) && len(mp) >= len(mount) {
			mount, fstype = mp, typ
		}
	}
	return mount, fstype
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space, …).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			var v int
			if _, err := fmt.Sscanf(s[i+1:i+4], "%03o", &v); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
