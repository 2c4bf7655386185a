package kernel_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/cvarlearn/cvar/internal/kernel"
)

// Default is the implementation chosen for this CPU at start-up. Its kernels and the pure-Go reference compute the same
// functions and agree to rounding.
func ExampleDefault() {
	im := kernel.Default()
	_, why, _ := kernel.Choice()
	fmt.Println(why != "")

	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, 1000)
	w := make([]float64, 1000)
	for i := range x {
		x[i], w[i] = rng.Float64(), rng.Float64()
	}
	fast := kernel.OpsOf[float64](im).Dot(x, w)
	ref := kernel.OpsOf[float64](kernel.Generic()).Dot(x, w)
	fmt.Printf("%.6f\n", fast)
	fmt.Println(math.Abs(fast-ref) <= 1e-12*math.Abs(ref))
	// Output:
	// true
	// 249.371793
	// true
}
