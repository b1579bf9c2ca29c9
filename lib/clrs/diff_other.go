//go:build !amd64

package clrs

// haveAVX2 is false off amd64: diffMask is diffMaskGo.
var haveAVX2 = false

// diffMask sets bit k of mask (bit k%64 of word k/64) when a[k] differs
// from b[k] and clears it when not, for every k < len(a); b is at least
// as long as a, and mask holds at least (len(a)+63)/64 words.
func diffMask(a, b, mask []uint64) { diffMaskGo(a, b, mask, 0) }
