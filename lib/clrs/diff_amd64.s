#include "textflag.h"

// func diffMaskAVX2(a, b *uint64, groups int, mask *byte)
//
// For each group g of eight words, byte g of mask gets bit k set where
// a[8g+k] != b[8g+k]: two 32-byte compares and the lanes' sign bits.
TEXT ·diffMaskAVX2(SB), NOSPLIT, $0-32
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ groups+16(FP), CX
	MOVQ mask+24(FP), DX
	XORQ AX, AX

loop:
	CMPQ AX, CX
	JAE  done
	VMOVDQU   (SI), Y0
	VMOVDQU   32(SI), Y1
	VPCMPEQQ  (DI), Y0, Y0
	VPCMPEQQ  32(DI), Y1, Y1
	VMOVMSKPD Y0, R8
	VMOVMSKPD Y1, R9
	SHLL $4, R9
	ORL  R9, R8
	XORL $0xff, R8
	MOVB R8, (DX)(AX*1)
	ADDQ $64, SI
	ADDQ $64, DI
	INCQ AX
	JMP  loop

done:
	VZEROUPPER
	RET
