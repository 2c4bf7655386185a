//go:build purego || !(amd64 || arm64)

package kernel

import "unsafe"

func archCvtU8(dst, src unsafe.Pointer, n int, scale float32) { panic(noAsm) }
func archCvtF16(dst, src unsafe.Pointer, n int)               { panic(noAsm) }
