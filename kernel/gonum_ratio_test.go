package kernel

// TestGonumRatios compares the active implementation with gonum's BLAS on the
// same operations (Sdot/Ddot; Sgemv/Dgemv for margins and, transposed, for the
// accumulation; Gemv + a math.Exp/math.Log1p loop + Gemvᵀ for the fused
// step), timed like TestSpeedRatios. Run with
//
//	CVAR_RATIOS=1 go test -run GonumRatios -v ./kernel/

import (
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
)

func data32(n int) []float32 {
	r := rand.New(rand.NewPCG(uint64(n), 1))
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(2*r.Float64() - 1)
	}
	return x
}

func data64(n int) []float64 {
	r := rand.New(rand.NewPCG(uint64(n), 1))
	x := make([]float64, n)
	for i := range x {
		x[i] = 2*r.Float64() - 1
	}
	return x
}

// gonumStep is the fused step done the BLAS way: Gemv, a Go loop with
// math.Exp/math.Log1p for the logistic loss and the softplus weight, Gemv^T.
func gonumStep64(A blas64.General, w, g, m, c, loss, y []float64, p *LinearStep[float64]) {
	blas64.Gemv(blas.NoTrans, 1, A, blas64.Vector{N: len(w), Inc: 1, Data: w}, 0, blas64.Vector{N: len(m), Inc: 1, Data: m})
	for i := range m {
		z := y[i] * (m[i] + p.Bias)
		e := math.Exp(-math.Abs(z))
		l := math.Max(-z, 0) + math.Log1p(e)
		var s float64
		if z >= 0 {
			s = e / (1 + e)
		} else {
			s = 1 / (1 + e)
		}
		loss[i] = l
		t := (l*p.InvL - p.Tau) / p.Eps
		et := math.Exp(-math.Abs(t))
		v := 1 / (1 + et)
		if t < 0 {
			v = et / (1 + et)
		}
		c[i] = p.Scale * v * (-y[i] * s)
	}
	blas64.Gemv(blas.Trans, 1, A, blas64.Vector{N: len(m), Inc: 1, Data: c}, 1, blas64.Vector{N: len(g), Inc: 1, Data: g})
}

func gonumStep32(A blas32.General, w, g, m, c, loss, y []float32, p *LinearStep[float32]) {
	blas32.Gemv(blas.NoTrans, 1, A, blas32.Vector{N: len(w), Inc: 1, Data: w}, 0, blas32.Vector{N: len(m), Inc: 1, Data: m})
	for i := range m {
		z := float64(y[i] * (m[i] + p.Bias))
		e := math.Exp(-math.Abs(z))
		l := math.Max(-z, 0) + math.Log1p(e)
		var s float64
		if z >= 0 {
			s = e / (1 + e)
		} else {
			s = 1 / (1 + e)
		}
		loss[i] = float32(l)
		t := (l*float64(p.InvL) - float64(p.Tau)) / float64(p.Eps)
		et := math.Exp(-math.Abs(t))
		v := 1 / (1 + et)
		if t < 0 {
			v = et / (1 + et)
		}
		c[i] = float32(float64(p.Scale) * v * (-float64(y[i]) * s))
	}
	blas32.Gemv(blas.Trans, 1, A, blas32.Vector{N: len(m), Inc: 1, Data: c}, 1, blas32.Vector{N: len(g), Inc: 1, Data: g})
}

func TestGonumRatios(t *testing.T) {
	if os.Getenv("CVAR_RATIOS") == "" {
		t.Skip("set CVAR_RATIOS=1 to measure")
	}
	ops := OpsOf[float32](Impls()[0])
	ops64 := OpsOf[float64](Impls()[0])
	t.Logf("impl %s", Impls()[0].Name)
	for _, n := range []int{100, 784, 4096} {
		x, y := data32(n), data32(n)
		xd, yd := data64(n), data64(n)
		vx, vy := blas32.Vector{N: n, Inc: 1, Data: x}, blas32.Vector{N: n, Inc: 1, Data: y}
		wx, wy := blas64.Vector{N: n, Inc: 1, Data: xd}, blas64.Vector{N: n, Inc: 1, Data: yd}
		var s32 float32
		var s64 float64
		b := bestOf([]func(){
			func() { s32 += ops.Dot(x, y) }, func() { s32 += blas32.Dot(vx, vy) },
			func() { s64 += ops64.Dot(xd, yd) }, func() { s64 += blas64.Dot(wx, wy) },
		}, 50, 2000)
		t.Logf("dot n=%-5d float32 avx2 %7.1f ns gonum Sdot %7.1f ns (%.2fx) | float64 avx2 %7.1f ns gonum Ddot %7.1f ns (%.2fx)", n, b[0], b[1], b[1]/b[0], b[2], b[3], b[3]/b[2])
	}
	for _, sz := range []struct{ n, d int }{{64, 100}, {64, 784}} {
		n, d := sz.n, sz.d
		x, w, m, c, g := data32(n*d), data32(d), make([]float32, n), data32(n), make([]float32, d)
		xd, wd, md, cd, gd := data64(n*d), data64(d), make([]float64, n), data64(n), make([]float64, d)
		for i := range w {
			w[i] /= 8
			wd[i] /= 8
		}
		A := blas32.General{Rows: n, Cols: d, Stride: d, Data: x}
		A64 := blas64.General{Rows: n, Cols: d, Stride: d, Data: xd}
		loss, y, cc := make([]float32, n), make([]float32, n), make([]float32, n)
		lossd, yd, ccd := make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range y {
			y[i] = float32(1 - 2*(i%2))
			yd[i] = float64(y[i])
		}
		p := LinearStep[float32]{Loss: Logistic, Plus: PlusSoftplus, InvL: 0.5, Tau: 0.2, Eps: 0.1, Scale: 1.0 / 64}
		pd := LinearStep[float64]{Loss: Logistic, Plus: PlusSoftplus, InvL: 0.5, Tau: 0.2, Eps: 0.1, Scale: 1.0 / 64}
		reps := max(1, 100000/(n*d))
		b := bestOf([]func(){
			func() { ops.Margins(m, x, d, nil, w) },
			func() {
				blas32.Gemv(blas.NoTrans, 1, A, blas32.Vector{N: d, Inc: 1, Data: w}, 0, blas32.Vector{N: n, Inc: 1, Data: m})
			},
			func() { ops64.Margins(md, xd, d, nil, wd) },
			func() {
				blas64.Gemv(blas.NoTrans, 1, A64, blas64.Vector{N: d, Inc: 1, Data: wd}, 0, blas64.Vector{N: n, Inc: 1, Data: md})
			},
			func() { ops.AddRows(g, x, d, nil, c) },
			func() {
				blas32.Gemv(blas.Trans, 1, A, blas32.Vector{N: n, Inc: 1, Data: c}, 1, blas32.Vector{N: d, Inc: 1, Data: g})
			},
			func() { ops64.AddRows(gd, xd, d, nil, cd) },
			func() {
				blas64.Gemv(blas.Trans, 1, A64, blas64.Vector{N: n, Inc: 1, Data: cd}, 1, blas64.Vector{N: d, Inc: 1, Data: gd})
			},
			func() { ops.FusedLinear(g, loss, x, d, nil, y, w, &p) },
			func() { gonumStep32(A, w, g, m, cc, loss, y, &p) },
			func() { ops64.FusedLinear(gd, lossd, xd, d, nil, yd, wd, &pd) },
			func() { gonumStep64(A64, wd, gd, md, ccd, lossd, yd, &pd) },
		}, 40, reps)
		for i, name := range []string{"margins (Gemv N)", "addrows (Gemv T)", "fused step"} {
			t.Logf("%-17s %dx%-4d float32 avx2 %8.0f ns gonum %8.0f ns (%.2fx) | float64 avx2 %8.0f ns gonum %8.0f ns (%.2fx)",
				name, n, d, b[4*i], b[4*i+1], b[4*i+1]/b[4*i], b[4*i+2], b[4*i+3], b[4*i+3]/b[4*i+2])
		}
	}
}
