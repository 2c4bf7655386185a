package kernel

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkCompact times the minibatch kernels of the linear models and
// softmax on MNIST-shaped data (60000 rows of 784 features, 512 rows
// gathered at random a call) held as float32, u8 and f16, for every
// implementation: compact rows move a quarter (u8) or half (f16) of the
// bytes. MB/s counts the bytes of the rows read.
func BenchmarkCompact(b *testing.B) {
	const n, d, k, batch = 60000, 784, 10, 512
	r := rand.New(rand.NewPCG(1, 2))
	u8x, xf := compactMatrix[float32](r, U8, n, d, d, 0)
	h := make([]uint16, n*d)
	for i, v := range xf {
		h[i] = F32ToF16(v)
	}
	f16x := Compact{Format: F16, F16: h, Stride: d}
	idx := make([]int, batch)
	w := make([]float32, k*d)
	fillRand(r, w)
	for i := range w {
		w[i] /= d
	}
	y := make([]float32, batch)
	for i := range y {
		y[i] = float32(2*r.IntN(2) - 1)
	}
	loss, g, m, c := make([]float32, batch), make([]float32, k*d), make([]float32, batch*k), make([]float32, batch*k)
	fillRand(r, c)
	p := LinearStep[float32]{Loss: Logistic, Plus: PlusSoftplus, InvL: 1, Eps: 0.1, Tau: 0.5, Scale: 1.0 / batch}
	for _, im := range Impls() {
		ops := im.F32()
		for _, st := range []struct {
			name string
			size int
			x    *Compact
		}{{"f32", 4, nil}, {"u8", 1, &u8x}, {"f16", 2, &f16x}} {
			run := func(name string, f func()) {
				b.Run(im.Name()+"/"+st.name+"/"+name, func(b *testing.B) {
					b.SetBytes(int64(batch * d * st.size))
					for range b.N {
						for i := range idx {
							idx[i] = r.IntN(n)
						}
						f()
					}
				})
			}
			run("fused", func() {
				if st.x == nil {
					ops.FusedLinear(g[:d], loss, xf, d, idx, y, w[:d], &p)
				} else {
					ops.FusedLinearC(g[:d], loss, st.x, idx, y, w[:d], &p)
				}
			})
			run("marginsK+addOuterK", func() {
				if st.x == nil {
					ops.MarginsK(m, xf, d, idx, w, k)
					ops.AddOuterK(g, xf, d, idx, c, k)
				} else {
					ops.MarginsKC(m, st.x, idx, w, k)
					ops.AddOuterKC(g, st.x, idx, c, k)
				}
			})
		}
	}
}
