package bench

import (
	"testing"

	"github.com/cvarlearn/cvar/internal/kernel"
)

// benchKernel runs every variant of every size of one kernel in one
// precision as sub-benchmarks impl/size.
func benchKernel(b *testing.B, name, prec string) {
	specs := KernelSpecs(SpecOptions{Dims: DefaultDims(), Precs: []string{prec}, Kernels: []string{name}, OutOfCache: true})
	for _, sp := range specs {
		c := sp.Build(kernel.Impls())
		for _, v := range c.Variants {
			b.Run(v.Impl+"/"+c.Size, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(c.Bytes)
				for b.Loop() {
					v.Run()
				}
				sec := b.Elapsed().Seconds()
				if c.Flops > 0 && v.Impl != Stream {
					b.ReportMetric(float64(c.Flops)*float64(b.N)/sec/1e9, "GFLOP/s")
				}
				if c.Elems > 0 {
					b.ReportMetric(float64(c.Elems)*float64(b.N)/sec/1e6, "Melem/s")
				}
			})
		}
	}
}

func BenchmarkDotF32(b *testing.B)     { benchKernel(b, "dot", "f32") }
func BenchmarkDotF64(b *testing.B)     { benchKernel(b, "dot", "f64") }
func BenchmarkAxpyF32(b *testing.B)    { benchKernel(b, "axpy", "f32") }
func BenchmarkAxpyF64(b *testing.B)    { benchKernel(b, "axpy", "f64") }
func BenchmarkMarginsF32(b *testing.B) { benchKernel(b, "margins", "f32") }
func BenchmarkMarginsF64(b *testing.B) { benchKernel(b, "margins", "f64") }
func BenchmarkAddRowsF32(b *testing.B) { benchKernel(b, "addrows", "f32") }
func BenchmarkAddRowsF64(b *testing.B) { benchKernel(b, "addrows", "f64") }
func BenchmarkFusedF32(b *testing.B)   { benchKernel(b, "fused", "f32") }
func BenchmarkFusedF64(b *testing.B)   { benchKernel(b, "fused", "f64") }

// The row kernels over a minibatch gathered in scrambled order, as the
// engine hands them a sampled minibatch (no gonum baseline: BLAS does not
// gather).
func BenchmarkMarginsGatherF32(b *testing.B) { benchKernel(b, "margins-gather", "f32") }
func BenchmarkMarginsGatherF64(b *testing.B) { benchKernel(b, "margins-gather", "f64") }
func BenchmarkAddRowsGatherF32(b *testing.B) { benchKernel(b, "addrows-gather", "f32") }
func BenchmarkAddRowsGatherF64(b *testing.B) { benchKernel(b, "addrows-gather", "f64") }
func BenchmarkFusedGatherF32(b *testing.B)   { benchKernel(b, "fused-gather", "f32") }
func BenchmarkFusedGatherF64(b *testing.B)   { benchKernel(b, "fused-gather", "f64") }
func BenchmarkMarginsKF32(b *testing.B)      { benchKernel(b, "marginsk", "f32") }
func BenchmarkMarginsKF64(b *testing.B)      { benchKernel(b, "marginsk", "f64") }
func BenchmarkAddOuterKF32(b *testing.B)     { benchKernel(b, "addouterk", "f32") }
func BenchmarkAddOuterKF64(b *testing.B)     { benchKernel(b, "addouterk", "f64") }

func BenchmarkMLPHiddenF32(b *testing.B) { benchKernel(b, "mlp-hidden", "f32") }
func BenchmarkMLPHiddenF64(b *testing.B) { benchKernel(b, "mlp-hidden", "f64") }
func BenchmarkMLPLogitsF32(b *testing.B) { benchKernel(b, "mlp-logits", "f32") }
func BenchmarkMLPLogitsF64(b *testing.B) { benchKernel(b, "mlp-logits", "f64") }
func BenchmarkMLPGradW2F32(b *testing.B) { benchKernel(b, "mlp-gradw2", "f32") }
func BenchmarkMLPGradW2F64(b *testing.B) { benchKernel(b, "mlp-gradw2", "f64") }
func BenchmarkMLPBackHF32(b *testing.B)  { benchKernel(b, "mlp-backh", "f32") }
func BenchmarkMLPBackHF64(b *testing.B)  { benchKernel(b, "mlp-backh", "f64") }
func BenchmarkMLPGradW1F32(b *testing.B) { benchKernel(b, "mlp-gradw1", "f32") }
func BenchmarkMLPGradW1F64(b *testing.B) { benchKernel(b, "mlp-gradw1", "f64") }

func BenchmarkMLPReLUF32(b *testing.B)     { benchKernel(b, "mlp-relu", "f32") }
func BenchmarkMLPReLUF64(b *testing.B)     { benchKernel(b, "mlp-relu", "f64") }
func BenchmarkMLPReLUGradF32(b *testing.B) { benchKernel(b, "mlp-relugrad", "f32") }
func BenchmarkMLPReLUGradF64(b *testing.B) { benchKernel(b, "mlp-relugrad", "f64") }

func BenchmarkLogisticF32(b *testing.B)  { benchKernel(b, "logistic", "f32") }
func BenchmarkLogisticF64(b *testing.B)  { benchKernel(b, "logistic", "f64") }
func BenchmarkSoftplusF32(b *testing.B)  { benchKernel(b, "softplus", "f32") }
func BenchmarkSoftplusF64(b *testing.B)  { benchKernel(b, "softplus", "f64") }
func BenchmarkExpF32(b *testing.B)       { benchKernel(b, "exp", "f32") }
func BenchmarkExpF64(b *testing.B)       { benchKernel(b, "exp", "f64") }
func BenchmarkLog1pF32(b *testing.B)     { benchKernel(b, "log1p", "f32") }
func BenchmarkLog1pF64(b *testing.B)     { benchKernel(b, "log1p", "f64") }
func BenchmarkSoftmaxCEF32(b *testing.B) { benchKernel(b, "softmaxce", "f32") }
func BenchmarkSoftmaxCEF64(b *testing.B) { benchKernel(b, "softmaxce", "f64") }

// BenchmarkMarginsOOC runs margins over the 60000×784 matrix, which no cache
// holds, in minibatches of consecutive rows, beside gonum's gemv and the
// read-only stream over the same bytes: MB/s of avx2 over MB/s of stream is
// the fraction of the bandwidth the kernel reaches.
func BenchmarkMarginsOOCF32(b *testing.B) { benchKernel(b, "margins-ooc", "f32") }
func BenchmarkMarginsOOCF64(b *testing.B) { benchKernel(b, "margins-ooc", "f64") }

// BenchmarkMarginsOOCGather is BenchmarkMarginsOOC with rows drawn with
// replacement (Alg 3's sampling): 60000 gathered rows per call.
func BenchmarkMarginsOOCGatherF32(b *testing.B) { benchKernel(b, "margins-ooc-gather", "f32") }
func BenchmarkMarginsOOCGatherF64(b *testing.B) { benchKernel(b, "margins-ooc-gather", "f64") }

// BenchmarkMarginsKOOCGather is softmax's forward pass as Alg 3 runs it:
// k = 10 margins of 60000 rows drawn with replacement from the 60000×784
// matrix, beside the stream over the same bytes.
func BenchmarkMarginsKOOCGatherF32(b *testing.B) { benchKernel(b, "marginsk-ooc-gather", "f32") }
func BenchmarkMarginsKOOCGatherF64(b *testing.B) { benchKernel(b, "marginsk-ooc-gather", "f64") }
