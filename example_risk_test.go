package cvar_test

import (
	"fmt"

	"github.com/cvarlearn/cvar"
)

func ExampleCVaR() {
	// Ten losses; the worst 20 % are 9 and 8.
	losses := []float64{4, 1, 9, 0, 7, 3, 8, 2, 6, 5}

	c, err := cvar.CVaR(losses, 0.2)
	if err != nil {
		panic(err)
	}
	v, _ := cvar.VaR(losses, 0.2)
	fmt.Printf("CVaR_0.2 = %.2f, VaR_0.2 = %g\n", c, v)

	// α·n = 2.5: the third-worst loss counts for half.
	c, _ = cvar.CVaR(losses, 0.25)
	fmt.Printf("CVaR_0.25 = %.2f\n", c) // (9 + 8 + 0.5·7) / 2.5

	// α = 1 is the mean.
	c, _ = cvar.CVaR(losses, 1)
	fmt.Printf("CVaR_1 = %.2f\n", c)

	_, err = cvar.CVaR(losses, 1.5)
	fmt.Println(err)
	// Output:
	// CVaR_0.2 = 8.50, VaR_0.2 = 7
	// CVaR_0.25 = 8.20
	// CVaR_1 = 4.50
	// cvar: alpha 1.5 outside (0, 1]
}

func ExampleTails() {
	losses := make([]float32, 100)
	for i := range losses {
		losses[i] = float32(i + 1) // 1, 2, …, 100
	}
	// Several α from one selection, in the order asked.
	tails, err := cvar.Tails(losses, 0.05, 0.1, 0.5, 1)
	if err != nil {
		panic(err)
	}
	for _, t := range tails {
		fmt.Printf("α = %-4g CVaR = %-5g VaR = %g\n", t.Alpha, t.CVaR, t.VaR)
	}
	// Output:
	// α = 0.05 CVaR = 98    VaR = 95
	// α = 0.1  CVaR = 95.5  VaR = 90
	// α = 0.5  CVaR = 75.5  VaR = 50
	// α = 1    CVaR = 50.5  VaR = 1
}
