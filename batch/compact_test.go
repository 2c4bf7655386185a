package batch

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar/internal/kernel"
)

// compactTwins returns u8, f16 and bf16 data of n×d features and k
// classes, each paired with the dense float32 data of the same values.
func compactTwins(t *testing.T, n, d, k int) [][2]*Data[float32] {
	t.Helper()
	r := rand.New(rand.NewPCG(uint64(n), uint64(k)))
	u := make([]uint8, n*d)
	h := make([]uint16, n*d)
	b := make([]uint16, n*d)
	for i := range u {
		u[i] = uint8(r.IntN(256))
		h[i] = kernel.F32ToF16(float32(r.NormFloat64()))
		b[i] = kernel.F32ToBF16(float32(r.NormFloat64()))
	}
	labels := make([]int32, n)
	for i := range labels {
		labels[i] = int32(r.IntN(k))
	}
	var pairs [][2]*Data[float32]
	for _, newData := range []func() (*Data[float32], error){
		func() (*Data[float32], error) { return NewDataU8[float32](u, 1.0/255, n, d, nil, labels, k) },
		func() (*Data[float32], error) { return NewDataF16[float32](h, n, d, nil, labels, k) },
		func() (*Data[float32], error) { return NewDataBF16[float32](b, n, d, nil, labels, k) },
	} {
		c, err := newData()
		if err != nil {
			t.Fatal(err)
		}
		x := []float32{}
		for i := 0; i < n; i++ {
			x = append(x, c.RowTo(make32(d), i)...)
		}
		dense, err := NewData(x, n, d, nil, labels, k)
		if err != nil {
			t.Fatal(err)
		}
		pairs = append(pairs, [2]*Data[float32]{c, dense})
	}
	return pairs
}

func make32(n int) []float32 { return make([]float32, n) }

// TestCompactData trains a few steps of logistic regression and softmax on
// u8 and f16 data and on their dense float32 twins: the gradients, losses
// and scores agree to float32 rounding, and each is bit-identical across
// thread counts.
func TestCompactData(t *testing.T) {
	t.Parallel()
	const n, d = 700, 37
	for _, k := range []int{2, 10} {
		pairs := compactTwins(t, n, d, k)
		var model Model[float32]
		if k == 2 {
			model, _ = NewLogistic[float32](d)
		} else {
			model, _ = NewSoftmax[float32](d, k)
		}
		theta := make([]float32, model.NumParams())
		r := rand.New(rand.NewPCG(1, 2))
		for i := range theta {
			theta[i] = float32(r.NormFloat64() * 0.1)
		}
		idx := make([]int, 300)
		for i := range idx {
			idx[i] = r.IntN(n)
		}
		for _, pair := range pairs {
			cd, dd := pair[0], pair[1]
			for _, wt := range []Weighting{{Objective: Softplus, Alpha: 0.1, Eps: 0.05, Tau: 0.5}, {Objective: TopK, Alpha: 0.1}} {
				var ref []float32
				for _, threads := range []int{1, 2, 3} {
					e, err := newEngineWith(model, threads, engineOptions{chunkRows: 64})
					if err != nil {
						t.Fatal(err)
					}
					g, gd := make([]float32, len(theta)), make([]float32, len(theta))
					l, sv, err := e.Gradient(g, theta, cd, idx, 0, &wt)
					if err != nil {
						t.Fatal(err)
					}
					l = append([]float32(nil), l...)
					ld, svd, err := e.Gradient(gd, theta, dd, idx, 0, &wt)
					if err != nil {
						t.Fatal(err)
					}
					what := cd.Storage() + " " + model.Name() + " " + wt.Objective.String()
					if math.Abs(sv-svd) > 1e-3*math.Max(1, math.Abs(svd)) {
						t.Fatalf("%s: Σv %v, dense %v", what, sv, svd)
					}
					for i := range l {
						if math.Abs(float64(l[i]-ld[i])) > 1e-4*math.Max(1, math.Abs(float64(ld[i]))) {
							t.Fatalf("%s: loss[%d] %v, dense %v", what, i, l[i], ld[i])
						}
					}
					for i := range g {
						if math.Abs(float64(g[i]-gd[i])) > 1e-4 {
							t.Fatalf("%s: g[%d] %v, dense %v", what, i, g[i], gd[i])
						}
					}
					if ref == nil {
						ref = g
					} else {
						for i := range g {
							if math.Float32bits(g[i]) != math.Float32bits(ref[i]) {
								t.Fatalf("%s: %d threads: g[%d] %v, 1 thread %v", what, threads, i, g[i], ref[i])
							}
						}
					}
					// Whole-data passes.
					out, outd := make([]float32, n), make([]float32, n)
					if err := e.Losses(out, theta, cd); err != nil {
						t.Fatal(err)
					}
					if err := e.Losses(outd, theta, dd); err != nil {
						t.Fatal(err)
					}
					for i := range out {
						if math.Abs(float64(out[i]-outd[i])) > 1e-4*math.Max(1, math.Abs(float64(outd[i]))) {
							t.Fatalf("%s: Losses[%d] %v, dense %v", what, i, out[i], outd[i])
						}
					}
					e.Close()
				}
			}
		}
	}
}

func TestCompactDataErrors(t *testing.T) {
	t.Parallel()
	u := make([]uint8, 12)
	if _, err := NewDataU8[float32](u, 1.0/255, 3, 5, nil, []int32{0, 1, 0}, 2); err == nil {
		t.Error("NewDataU8 took 12 bytes for 3×5")
	}
	if _, err := NewDataU8[float32](u, 0, 3, 4, nil, []int32{0, 1, 0}, 2); err == nil {
		t.Error("NewDataU8 took scale 0")
	}
	if _, err := NewDataF16[float32]([]uint16{0x7c00, 0}, 1, 2, nil, []int32{0}, 2); err == nil || !strings.Contains(err.Error(), "not finite") {
		t.Errorf("NewDataF16 took +Inf: %v", err)
	}
	if _, err := NewDataBF16[float32]([]uint16{0x3f80, 0xff81}, 1, 2, nil, []int32{0}, 2); err == nil || !strings.Contains(err.Error(), "row 0, column 1") {
		t.Errorf("NewDataBF16 took a NaN: %v", err)
	}
	if _, err := NewDataBF16[float32](make([]uint16, 5), 2, 3, nil, []int32{0, 1}, 2); err == nil {
		t.Error("NewDataBF16 took 5 values for 2×3")
	}
	bf, err := NewDataBF16[float32]([]uint16{0x3f80, 0xc000}, 1, 2, nil, []int32{0}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if bf.Storage() != "bf16" || bf.FeatureBytes() != 4 || bf.RowTo(make32(2), 0)[1] != -2 {
		t.Errorf("NewDataBF16: storage %q, %d bytes, row %v", bf.Storage(), bf.FeatureBytes(), bf.RowTo(make32(2), 0))
	}
	data, err := NewDataU8[float32](u, 1.0/255, 3, 4, nil, []int32{0, 1, 0}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if data.Storage() != "u8" || data.FeatureBytes() != 12 {
		t.Errorf("Storage %q, FeatureBytes %d", data.Storage(), data.FeatureBytes())
	}
}

// TestCompactMLP trains the MLP's minibatch gradient on u8 and f16 data and
// on their dense twins, through the kernels and through gonum's BLAS.
func TestCompactMLP(t *testing.T) {
	t.Parallel()
	const n, d, k = 200, 19, 3
	pairs := compactTwins(t, n, d, k)
	for _, blas := range []bool{false, true} {
		var model Model[float32]
		if blas {
			model, _ = NewMLPBLAS[float32](d, 7, k)
		} else {
			model, _ = NewMLP[float32](d, 7, k)
		}
		theta := make([]float32, model.NumParams())
		model.InitParams(theta, 1)
		idx := []int{3, 150, 7, 7, 199, 0, 42, 88, 120, 5}
		for _, pair := range pairs {
			e, _ := NewEngine(model, 1)
			g, gd := make([]float32, len(theta)), make([]float32, len(theta))
			wt := Weighting{Objective: Softplus, Alpha: 0.2, Eps: 0.05, Tau: 0.5}
			for _, ix := range [][]int{idx, nil} {
				if _, _, err := e.Gradient(g, theta, pair[0], ix, 64, &wt); err != nil {
					t.Fatal(err)
				}
				if _, _, err := e.Gradient(gd, theta, pair[1], ix, 64, &wt); err != nil {
					t.Fatal(err)
				}
				for i := range g {
					if math.Abs(float64(g[i]-gd[i])) > 1e-4 {
						t.Fatalf("%s blas=%v: g[%d] %v, dense %v", pair[0].Storage(), blas, i, g[i], gd[i])
					}
				}
			}
			e.Close()
		}
	}
}
