// Package membudget is narlab's one memory budget: what a command, or a
// library call checking a request before it starts work, may plan to hold
// in memory for the data it builds, and the message that refuses a
// request beyond it.
//
// Commands hold two to three times their data at the peak (arrays,
// padding, their encoding): a budget of 128 MiB is about 400 MB resident;
// the Go runtime reserves another 1.6 GiB of address space, so a command
// stays within a 2 GiB address-space limit (ulimit -v).
package membudget

import "fmt"

// Bytes is the budget: 128 MiB.
const Bytes = 128 << 20

// Check refuses count items of about perItem bytes each when together they
// exceed Bytes. what names the items ("bfs samples of length 64"); hint,
// appended to the message, says how to ask for less (" (lower --count)").
func Check(what string, count int, perItem float64, hint string) error {
	total := float64(count) * perItem
	if total <= Bytes {
		return nil
	}
	maxCount := int(Bytes / perItem)
	accepted := fmt.Sprintf("accepted at most %d here", maxCount)
	if maxCount == 0 {
		accepted = "even one is too large"
	}
	return fmt.Errorf("%d %s of about %s each need about %s, more than the %s that narlab plans to hold in memory; %s%s",
		count, what, Human(perItem), Human(total), Human(Bytes), accepted, hint)
}

// Human writes a byte count as 1.5 GiB, 3.2 MiB, 4.0 KiB or 12 B.
func Human(b float64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", b/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", b/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", b/(1<<10))
	}
	return fmt.Sprintf("%.0f B", b)
}
