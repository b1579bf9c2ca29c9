package clrs

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// diffMaskAVX2 is the bulk of diffMask on a CPU with AVX2 (diff_amd64.s):
// groups of eight words, one mask byte each.
//
//go:noescape
func diffMaskAVX2(a, b *uint64, groups int, mask *byte)

var haveAVX2 = cpu.X86.HasAVX2

// diffMask sets bit k of mask (bit k%64 of word k/64) when a[k] differs
// from b[k] and clears it when not, for every k < len(a); b is at least
// as long as a, and mask holds at least (len(a)+63)/64 words.
func diffMask(a, b, mask []uint64) {
	done := 0
	if n := len(a); haveAVX2 && n >= 8 {
		b = b[:n]
		mask = mask[:(n+63)/64]
		groups := n / 8
		diffMaskAVX2(&a[0], &b[0], groups, (*byte)(unsafe.Pointer(&mask[0])))
		done = 8 * groups
	}
	diffMaskGo(a, b, mask, done)
}
