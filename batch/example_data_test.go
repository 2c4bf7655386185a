package batch_test

import (
	"fmt"

	"github.com/cvarlearn/cvar/batch"
)

// NewData wraps dense row-major features with their class labels; an
// Engine then computes every row's loss under a model's parameters.
func ExampleNewData() {
	x := []float64{ // 4 samples × 2 features
		1, 0,
		0, 1,
		-1, 0,
		0, -1,
	}
	labels := []int32{1, 1, 0, 0}
	data, err := batch.NewData(x, 4, 2, nil, labels, 2)
	if err != nil {
		panic(err)
	}
	fmt.Println(data.N, data.D, data.K, data.Storage(), data.Row(2))
	fmt.Println(data.Y) // binary labels as ±1, for logistic regression

	model, err := batch.NewLogistic[float64](2)
	if err != nil {
		panic(err)
	}
	engine, err := batch.NewEngine(model, 1)
	if err != nil {
		panic(err)
	}
	defer engine.Close()
	theta := []float64{1, -1, 0} // w = (1, −1), b = 0
	losses := make([]float64, data.N)
	if err := engine.Losses(losses, theta, data); err != nil {
		panic(err)
	}
	fmt.Printf("%.3f\n", losses) // log(1 + e^{−y·⟨w, x⟩})

	// Bad input is an error, not a panic later in training.
	_, err = batch.NewData(x, 4, 2, nil, []int32{1, 1, 0, 2}, 2)
	fmt.Println(err)
	// Output:
	// 4 2 2 f64 [-1 0]
	// [1 1 -1 -1]
	// [0.313 1.313 0.313 1.313]
	// batch: row 3: label 2 outside the classes 0..1
}

// NewSparseData wraps features in CSR form: row i holds vals[p] in column
// cols[p] for indptr[i] ≤ p < indptr[i+1], and every other feature is 0.
func ExampleNewSparseData() {
	// 3 samples of 1000 features, 4 non-zeros in all.
	indptr := []int64{0, 2, 3, 4}
	cols := []uint32{3, 999, 0, 3}
	vals := []float64{1, 2, 0.5, -1}
	y := []float64{4, 1, -2} // regression targets
	data, err := batch.NewSparseData(indptr, cols, vals, 3, 1000, y, nil, 0)
	if err != nil {
		panic(err)
	}
	c, v := data.SparseRow(0)
	fmt.Println(data.N, data.D, data.Storage(), c, v)

	// Least squares: ℓ = ½(⟨w, x⟩ + b − y)².
	model, err := batch.NewLeastSquares[float64](1000)
	if err != nil {
		panic(err)
	}
	engine, err := batch.NewEngine(model, 1)
	if err != nil {
		panic(err)
	}
	defer engine.Close()
	theta := make([]float64, model.NumParams()) // w, then b
	theta[3], theta[999] = 2, 1                 // w₃ = 2, w₉₉₉ = 1
	losses := make([]float64, data.N)
	if err := engine.Losses(losses, theta, data); err != nil {
		panic(err)
	}
	fmt.Printf("%.3f\n", losses)

	// A column outside the d features is an error.
	_, err = batch.NewSparseData(indptr, []uint32{3, 1000, 0, 3}, vals, 3, 1000, y, nil, 0)
	fmt.Println(err)
	// Output:
	// 3 1000 csr [3 999] [1 2]
	// [0.000 0.500 0.000]
	// batch: row 0: column 1000 outside the 1000 columns
}
