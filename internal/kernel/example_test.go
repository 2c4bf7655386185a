package kernel_test

import (
	"fmt"
	"slices"

	"github.com/cvarlearn/cvar/internal/kernel"
)

// The default implementation is chosen once from the CPU's features;
// For[T] returns its kernels for element type T.
func Example() {
	ops := kernel.For[float64]()
	x := []float64{1, 2, 3, 4}
	w := []float64{0.5, -1, 0, 2}
	fmt.Println(ops.Dot(x, w))

	// Margins of two gathered rows of a 3×2 matrix (row stride 2): rows 2 and 0.
	m := make([]float64, 2)
	ops.Margins(m, []float64{1, 2, 3, 4, 5, 6}, 2, []int{2, 0}, []float64{1, -1})
	fmt.Println(m)
	// Output:
	// 6.5
	// [-1 -1]
}

// An implementation is a value: look one up by name and use its kernels,
// whatever the default is.
func ExampleLookup() {
	im, err := kernel.Lookup("generic")
	if err != nil {
		fmt.Println(err)
		return
	}
	ops := kernel.OpsOf[float32](im)
	g := []float32{0, 0}
	ops.AddRows(g, []float32{1, 2, 3, 4}, 2, nil, []float32{1, 0.5})
	fmt.Println(im, g)

	_, err = kernel.Lookup("no-such-kernel")
	fmt.Println(err != nil)
	// Output:
	// generic [2.5 4]
	// true
}

// Impls lists what this CPU can run, best first; the last is always the
// pure-Go reference, and the default is one of them (the first, unless
// CVAR_KERNEL names another).
func ExampleImpls() {
	impls := kernel.Impls()
	fmt.Println(slices.Contains(impls, kernel.Default()), impls[len(impls)-1] == kernel.Generic())
	// Output: true true
}
