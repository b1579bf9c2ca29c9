// Package smalldisk gives tests a real filesystem of a few kilobytes (a
// tmpfs of a given size), so that writing past its size fails as on a full
// disk: with ENOSPC, from the kernel, for this process and its children.
//
// As root, the tmpfs is mounted where the test process sees it, and
// unmounted when the test ends. Without root, the test is run again, alone,
// by a child process in a new user and mount namespace (util-linux's
// unshare, which needs unprivileged user namespaces), where the tmpfs is
// mounted at the same path; the child's verdict is the test's. Where
// neither works the test cannot run: under CI=true it fails saying why (a
// check that CI silently skips is no check), elsewhere it is skipped with
// the reason.
package smalldisk
