package main

/*
#include <stdint.h>
*/
import "C"

import (
	"unsafe"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/dataset"
)

func floats(p *C.double, n C.int64_t) []float64 {
	if n <= 0 || p == nil {
		return nil
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(p)), int(n))
}

// cvar_tails writes CVaR_α and VaR_α of the n losses at each of the m
// alphas into outCVaR and outVaR (cvar.Tails).
//
//export cvar_tails
func cvar_tails(losses *C.double, n C.int64_t, alphas *C.double, m C.int64_t, outCVaR, outVaR *C.double, err **C.char) C.int32_t {
	tails, e := cvar.Tails(floats(losses, n), floats(alphas, m)...)
	if e != nil {
		fail(err, e)
		return 0
	}
	cv, va := floats(outCVaR, m), floats(outVaR, m)
	for i, t := range tails {
		cv[i], va[i] = t.CVaR, t.VaR
	}
	return 1
}

// cvar_bootstrap writes the percentile bootstrap 95 % intervals of the n
// losses' metrics (cvar.Bootstrap) into out. For each of the m alphas it
// writes CVaR_α's value, lo and hi, then VaR_α's. Then it writes the mean
// loss's and the accuracy's. The accuracy is NaN without correct, which
// holds n flags of 0 or 1.
//
//export cvar_bootstrap
func cvar_bootstrap(losses *C.double, n C.int64_t, correct *C.uint8_t, alphas *C.double, m C.int64_t,
	resamples C.int64_t, seed C.uint64_t, threads C.int32_t, out *C.double, err **C.char) C.int32_t {
	var flags []bool
	if correct != nil && n > 0 {
		flags = make([]bool, int(n))
		for i, c := range unsafe.Slice((*uint8)(unsafe.Pointer(correct)), int(n)) {
			flags[i] = c != 0
		}
	}
	bm, e := cvar.Bootstrap(floats(losses, n), flags, floats(alphas, m), cvar.BootstrapOptions{Resamples: int(resamples), Seed: uint64(seed), Threads: int(threads)})
	if e != nil {
		fail(err, e)
		return 0
	}
	dst := floats(out, 6*m+6)
	put := func(i int, v cvar.Interval) { dst[i], dst[i+1], dst[i+2] = v.Value, v.Lo, v.Hi }
	for i, t := range bm.Tails {
		put(6*i, t.CVaR)
		put(6*i+3, t.VaR)
	}
	put(6*int(m), bm.MeanLoss)
	put(6*int(m)+3, bm.Accuracy)
	return 1
}

// cvar_training_rows sets mask[i] to 1 for the rows of n that cvar train
// trains on with the seed, its 2/3 split. It sets the others to 0.
//
//export cvar_training_rows
func cvar_training_rows(n C.int64_t, seed C.uint64_t, mask *C.uint8_t, err **C.char) C.int32_t {
	sp, e := dataset.NewSplitter(int(n), 0, uint64(seed))
	if e != nil {
		fail(err, e)
		return 0
	}
	for i, b := 0, unsafe.Slice((*uint8)(unsafe.Pointer(mask)), int(n)); i < int(n); i++ {
		b[i] = 0
		if sp.Train(i) {
			b[i] = 1
		}
	}
	return 1
}

// cvar_cvar sets *out to CVaR_α of the n losses (cvar.CVaR).
//
//export cvar_cvar
func cvar_cvar(losses *C.double, n C.int64_t, alpha C.double, out *C.double, err **C.char) C.int32_t {
	v, e := cvar.CVaR(floats(losses, n), float64(alpha))
	if e != nil {
		fail(err, e)
		return 0
	}
	*out = C.double(v)
	return 1
}

// cvar_var sets *out to VaR_α of the n losses (cvar.VaR).
//
//export cvar_var
func cvar_var(losses *C.double, n C.int64_t, alpha C.double, out *C.double, err **C.char) C.int32_t {
	v, e := cvar.VaR(floats(losses, n), float64(alpha))
	if e != nil {
		fail(err, e)
		return 0
	}
	*out = C.double(v)
	return 1
}
