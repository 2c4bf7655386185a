package kernel

import "unsafe"

// The driver's vector kernels: level 1 (Dot, Axpy, Lerp) and the ReLU
// layer's. Then the elementwise ones: Exp, Log1p, the linear losses, Plus,
// SoftmaxCE. Each is cut into calls of at most archChunk elements.

// dotF32Base, dotF32Wide, dotF64Base and dotF64Wide call the assembly
// directly for one chunk (archDotF32, archDotF64 inline to the stub, the
// level a constant): Dot is called per row.
func dotF32Base(x, y []float32) float32 {
	y = y[:len(x)]
	if n := len(x); n > 0 && n <= archChunk {
		var s float32
		return s + archDotF32(ptr(x), ptr(y), n)
	}
	return dotDriver(tunedLevel(isaBase), x, y)
}

func dotF32Wide(x, y []float32) float32 {
	y = y[:len(x)]
	if n := len(x); n > 0 && n <= archChunk {
		var s float32
		return s + archWideDotF32(ptr(x), ptr(y), n)
	}
	return dotDriver(tunedLevel(isaWide), x, y)
}

func dotF64Base(x, y []float64) float64 {
	y = y[:len(x)]
	if n := len(x); n > 0 && n <= archChunk {
		var s float64
		return s + archDotF64(ptr(x), ptr(y), n)
	}
	return dotDriver(tunedLevel(isaBase), x, y)
}

func dotF64Wide(x, y []float64) float64 {
	y = y[:len(x)]
	if n := len(x); n > 0 && n <= archChunk {
		var s float64
		return s + archWideDotF64(ptr(x), ptr(y), n)
	}
	return dotDriver(tunedLevel(isaWide), x, y)
}

func dotDriver[T Float](lvl level, x, y []T) T {
	y = y[:len(x)]
	var s T
	for len(x) > 0 {
		n := min(len(x), archChunk)
		s += archDot[T](lvl, ptr(x), ptr(y), n)
		x, y = x[n:], y[n:]
	}
	return s
}

func axpyDriver[T Float](lvl level, a T, x, y []T) {
	y = y[:len(x)]
	for len(x) > 0 {
		n := min(len(x), archChunk)
		archAxpy(lvl, a, ptr(x), ptr(y), n)
		x, y = x[n:], y[n:]
	}
}

func lerpDriver[T Float](lvl level, t T, x, y []T) {
	y = y[:len(x)]
	for len(x) > 0 {
		n := min(len(x), archChunk)
		archLerp(lvl, t, ptr(x), ptr(y), n)
		x, y = x[n:], y[n:]
	}
}

// ---- ReLU ------------------------------------------------------------------

func biasReLUDriver[T Float](lvl level, z, b []T) {
	h := len(b)
	reluBlocks(reluRows(len(z), h), h, func(i, j, rows, cols int) {
		archBiasReLU[T](lvl, ptr(z[i*h+j:]), ptr(b[j:]), rows, cols, h)
	})
}

func reluBackwardDriver[T Float](lvl level, gb, dh, a []T) {
	h := len(gb)
	dh = dh[:len(a)]
	reluBlocks(reluRows(len(a), h), h, func(i, j, rows, cols int) {
		archReLUBackward[T](lvl, ptr(gb[j:]), ptr(dh[i*h+j:]), ptr(a[i*h+j:]), rows, cols, h)
	})
}

// reluBlocks cuts n rows of h columns into calls of about archChunk elements
// at most. It makes blocks of at most archChunk columns. Each block goes in
// runs of whole rows taken in order. So each column's sum sees the rows in
// order.
func reluBlocks(n, h int, call func(i, j, rows, cols int)) {
	for j := 0; j < h; j += archChunk {
		cols := min(archChunk, h-j)
		step := max(1, archChunk/cols)
		for i := 0; i < n; i += step {
			call(i, j, min(step, n-i), cols)
		}
	}
}

// ---- Elementwise ------------------------------------------------------------

// whole returns the largest multiple of archGroup not above n. The
// elementwise primitives take that many elements directly. The rest go
// through a padded buffer of archGroup elements.
func whole(n int) int { return n &^ (archGroup - 1) }

func expDriver[T Float](lvl level, dst, x []T) {
	dst = dst[:len(x)]
	n := whole(len(x))
	for i := 0; i < n; i += archChunk {
		archExp[T](lvl, at[T](ptr(dst), i), at[T](ptr(x), i), min(archChunk, n-i))
	}
	if n < len(x) {
		var b [archGroup]T
		copy(b[:], x[n:])
		archExp[T](lvl, ptr(b[:]), ptr(b[:]), archGroup)
		copy(dst[n:], b[:])
	}
}

func log1pDriver[T Float](lvl level, dst, x []T) {
	dst = dst[:len(x)]
	n := whole(len(x))
	for i := 0; i < n; i += archChunk {
		archLog1p[T](lvl, at[T](ptr(dst), i), at[T](ptr(x), i), min(archChunk, n-i))
	}
	if n < len(x) {
		var b [archGroup]T
		copy(b[:], x[n:])
		archLog1p[T](lvl, ptr(b[:]), ptr(b[:]), archGroup)
		copy(dst[n:], b[:])
	}
}

func checkLoss(kind LossKind) {
	if kind < Logistic || kind > Absolute {
		panic("kernel: unknown LossKind")
	}
}

func checkPlus(kind PlusKind) {
	if kind < PlusNone || kind > PlusQuadratic {
		panic("kernel: unknown PlusKind")
	}
}

// lossN runs the loss primitive over n elements (no checks), in bounded
// calls, with a padded tail.
func lossN[T Float](lvl level, kind LossKind, loss, dloss, m, y unsafe.Pointer, n int) {
	nw := whole(n)
	for i := 0; i < nw; i += archChunk {
		archLoss[T](lvl, kind, at[T](loss, i), at[T](dloss, i), at[T](m, i), at[T](y, i), min(archChunk, nw-i))
	}
	if nw < n {
		var bm, by, bl, bd [archGroup]T
		copy(bm[:], unsafe.Slice((*T)(at[T](m, nw)), n-nw))
		copy(by[:], unsafe.Slice((*T)(at[T](y, nw)), n-nw))
		archLoss[T](lvl, kind, ptr(bl[:]), ptr(bd[:]), ptr(bm[:]), ptr(by[:]), archGroup)
		copy(unsafe.Slice((*T)(at[T](loss, nw)), n-nw), bl[:])
		copy(unsafe.Slice((*T)(at[T](dloss, nw)), n-nw), bd[:])
	}
}

func linearLossDriver[T Float](lvl level, kind LossKind, loss, dloss, m, y []T) {
	checkLoss(kind)
	n := len(m)
	loss, dloss, y = loss[:n], dloss[:n], y[:n]
	lossN[T](lvl, kind, ptr(loss), ptr(dloss), ptr(m), ptr(y), n)
}

// plusN runs the plus primitive over n elements, in bounded calls, with a
// padded tail. It checks nothing. The caller ensures that kind is not
// PlusNone and that rho and drho are both writable.
func plusN[T Float](lvl level, kind PlusKind, eps T, rho, drho, s unsafe.Pointer, n int) {
	nw := whole(n)
	for i := 0; i < nw; i += archChunk {
		archPlus(lvl, kind, eps, at[T](rho, i), at[T](drho, i), at[T](s, i), min(archChunk, nw-i))
	}
	if nw < n {
		var bs, br, bd [archGroup]T
		copy(bs[:], unsafe.Slice((*T)(at[T](s, nw)), n-nw))
		archPlus(lvl, kind, eps, ptr(br[:]), ptr(bd[:]), ptr(bs[:]), archGroup)
		copy(unsafe.Slice((*T)(at[T](rho, nw)), n-nw), br[:])
		copy(unsafe.Slice((*T)(at[T](drho, nw)), n-nw), bd[:])
	}
}

func plusDriver[T Float](lvl level, kind PlusKind, eps T, rho, drho, s []T) {
	checkPlus(kind)
	if rho != nil {
		rho = rho[:len(s)]
	}
	if drho != nil {
		drho = drho[:len(s)]
	}
	if kind == PlusNone {
		// ρ(s) = s and ρ' = 1: a copy and a fill, no arithmetic.
		copy(rho, s)
		for i := range drho {
			drho[i] = 1
		}
		return
	}
	if rho != nil && drho != nil {
		plusN(lvl, kind, eps, ptr(rho), ptr(drho), ptr(s), len(s))
		return
	}
	// The primitive writes both; the one not wanted goes to a scratch block.
	const B = 256
	var scratch [B]T
	for i := 0; i < len(s); i += B {
		n := min(B, len(s)-i)
		r, dr := ptr(scratch[:]), ptr(scratch[:])
		if rho != nil {
			r = ptr(rho[i:])
		}
		if drho != nil {
			dr = ptr(drho[i:])
		}
		plusN(lvl, kind, eps, r, dr, ptr(s[i:]), n)
	}
}

func softmaxCEDriver[T Float](lvl level, loss, z []T, label []int32, k int) {
	n := len(loss)
	if n == 0 || k <= 0 {
		return
	}
	z = z[:n*k]
	label = label[:n]
	for _, y := range label {
		if uint32(y) >= uint32(k) {
			panic("kernel: label out of range")
		}
	}
	step := max(1, archChunk/k)
	for i := 0; i < n; i += step {
		archSoftmax[T](lvl, ptr(loss[i:]), ptr(z[i*k:]), unsafe.Pointer(&label[i]), min(step, n-i), k)
	}
}
