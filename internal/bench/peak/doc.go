// Package peak measures two limits of the machine that cvar's kernels are
// compared against. One is the read-only memory bandwidth: a sum over a
// big slice. The other is the peak rate of fused multiply-adds.
//
// [Sum32] is the bandwidth loop: a sum that reads its slice once. [FMA32]
// and [FMA64] are the FMA loops. [FMA32Wide] and [FMA64Wide] are their
// twins on the widest vectors the CPU has ([HasWide], [WidestKind]). Each
// returns the multiply-adds it did. Package bench times them, on one
// thread and on all, for cvarbench's limits and floors. [Asm] and [Kind]
// say which loops ran.
//
// On amd64 with AVX2+FMA and on arm64 both loops are assembly. Sum32 reads
// 256-bit (amd64) or 128-bit (arm64) vectors into eight independent
// accumulators. FMA32/FMA64 run twelve independent chains of FMAs:
// VFMADD231PS/PD on ymm registers (amd64), FMLA on 128-bit vectors
// (arm64). Twelve chains hide the FMA latency on two or more FMA pipes.
// Elsewhere, and with -tags purego, they are plain Go loops and Asm is
// false. Their figures are then what Go code reaches, not the machine's
// limit.
package peak
