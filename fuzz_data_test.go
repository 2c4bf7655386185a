package cvar

import (
	"errors"
	"math"
	"testing"

	"github.com/cvarlearn/cvar/batch"
)

// fuzzSparse builds a sparse Data of n rows and d columns from b: a byte a
// row for its offset's step (negative steps included), then two bytes a
// non-zero for its column (d itself included, one too many) and its value
// (127: NaN, 126: +Inf), and labels or targets a row from what is left.
// Most byte strings make invalid data; the seeds make valid ones too.
func fuzzSparse(b []byte, n, d int, classify bool) *batch.Data[float64] {
	next := func() byte {
		if len(b) == 0 {
			return 0
		}
		c := b[0]
		b = b[1:]
		return c
	}
	data := &batch.Data[float64]{N: n, D: d, Indptr: make([]int64, n+1)}
	for i := range n {
		data.Indptr[i+1] = data.Indptr[i] + int64(int8(next()))%5
	}
	for range max(data.Indptr[n], 0) {
		data.Cols = append(data.Cols, uint32(next())%uint32(d+1))
		v := float64(int8(next())) / 4
		switch v {
		case 127.0 / 4:
			v = math.NaN()
		case 126.0 / 4:
			v = math.Inf(1)
		}
		data.Vals = append(data.Vals, v)
	}
	if classify {
		data.K = 2
		for range n {
			c := int32(next() % 3) // 2: outside the classes
			data.Labels = append(data.Labels, c)
			data.Y = append(data.Y, float64(2*c-1))
		}
	} else {
		for range n {
			data.Y = append(data.Y, float64(int8(next()))/8)
		}
	}
	return data
}

// FuzzSparseData builds sparse data from bytes, valid or not, and wants
// Validate never to panic, the evaluations to refuse exactly the data it
// refuses, and Train to refuse it too and to train on the rest.
func FuzzSparseData(f *testing.F) {
	f.Add([]byte{2, 1, 0, 8, 1, 4, 2, 12, 0, 1}, uint8(1), uint8(2), true)
	f.Add([]byte{0, 2, 0, 0, 8, 1, 4, 1, 0, 1}, uint8(2), uint8(2), true) // an empty row
	f.Add([]byte{1, 1, 1, 0, 4, 1, 8, 2, 12, 9, 9, 9}, uint8(2), uint8(2), false)
	f.Add([]byte{3, 255, 1, 0, 4, 1, 8}, uint8(2), uint8(2), false)    // a falling offset
	f.Add([]byte{1, 1, 3, 4, 0, 4, 1, 1}, uint8(1), uint8(2), true)    // a column outside
	f.Add([]byte{1, 1, 0, 127, 1, 4, 1, 1}, uint8(1), uint8(2), false) // NaN
	f.Add([]byte{0, 0, 0, 2, 2, 2}, uint8(2), uint8(4), true)          // no non-zeros, a label outside
	f.Fuzz(func(t *testing.T, b []byte, n8, d8 uint8, classify bool) {
		n, d := 1+int(n8%8), 1+int(d8%6)
		data := fuzzSparse(b, n, d, classify)
		invalid := data.Validate()
		var model batch.Model[float64] = must(batch.NewLeastSquares[float64](d))
		if classify {
			model = must(batch.NewLogistic[float64](d))
		}
		theta := make([]float64, model.NumParams())
		for i := range theta {
			theta[i] = 0.25 * float64(i%3-1)
		}
		if _, err := lossesOf(model, theta, data, 2); (err == nil) != (invalid == nil) {
			t.Fatalf("Losses: %v; Validate: %v", err, invalid)
		}
		if _, err := Evaluate(model, theta, data, 0.5); (err == nil) != (invalid == nil) {
			t.Fatalf("Evaluate: %v; Validate: %v", err, invalid)
		}
		if _, err := predictionsOf(model, theta, data, 2); (err == nil) != (data.ValidateFeatures() == nil) {
			t.Fatalf("Predictions: %v; ValidateFeatures: %v", err, data.ValidateFeatures())
		}
		_, err := Train(model, data, Options{Method: Alg3, Steps: 4, Batch: 2, Threads: 2, Seed: 1})
		var div *DivergenceError
		switch {
		case invalid != nil && err == nil:
			t.Fatalf("Train of data Validate refuses (%v): no error", invalid)
		case invalid == nil && err != nil && !errors.As(err, &div):
			t.Fatalf("Train of valid data: %v", err)
		}
	})
}
