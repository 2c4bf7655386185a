package cvarbeam_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"
	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/beam/cvarbeam"
)

func init() { register.Function1x0(printMetrics) }

func printMetrics(m cvar.Metrics) {
	fmt.Printf("n %d, mean loss %.4f, accuracy %.2f\n", m.N, m.MeanLoss, m.Accuracy)
	for _, t := range m.Tails {
		fmt.Printf("CVaR_%g %.4f, VaR_%g %.4f\n", t.Alpha, t.CVaR, t.Alpha, t.VaR)
	}
}

// A pipeline of one's own: rows from any source, their losses under a
// model file that travels by path, and the exact tail metrics of those
// losses, on Prism.
func Example() {
	dir, err := os.MkdirTemp("", "cvarbeam-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	model := filepath.Join(dir, "model.cvar")
	mf := &cvar.ModelFile{Kind: batch.KindLogistic, D: 2, K: 2, Precision: cvar.F64, Classes: []string{"no", "yes"},
		Theta: []float64{2, -1, 0}, Tau: math.NaN(), Alpha: 0.5, Method: cvar.Alg3}
	f, err := os.Create(model)
	if err == nil {
		err = errors.Join(cvar.SaveModel(f, mf), f.Close())
	}
	if err != nil {
		fmt.Println(err)
		return
	}

	p, s := beam.NewPipelineWithRoot()
	rows := beam.Create(s,
		cvarbeam.Row{X: []float64{1, 0}, Label: 1},
		cvarbeam.Row{X: []float64{0, 1}, Label: 0},
		cvarbeam.Row{X: []float64{1, 1}, Label: 1},
		cvarbeam.Row{Cols: []uint32{1}, Vals: []float64{2}, Label: 1}, // sparse: x = (0, 2)
	)
	losses := cvarbeam.Losses(s, cvarbeam.LossOptions{Model: model}, rows)
	beam.ParDo0(s, printMetrics, cvarbeam.TailMetrics(s, []float64{0.25, 0.5}, losses))
	if err := beamx.Run(context.Background(), p); err != nil {
		fmt.Println(err)
	}
	// Output:
	// n 4, mean loss 0.7201, accuracy 0.75
	// CVaR_0.25 2.1269, VaR_0.25 0.3133
	// CVaR_0.5 1.2201, VaR_0.5 0.3133
}
