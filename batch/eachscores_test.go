package batch

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// TestWholeDataRounds: on more rows than one round of whole-data chunks
// (16 of 1024 rows) and with a model whose rows hold more scratch than
// features, Losses, LossesOf, Scores and EachScores give every row the
// value its own one-row pass gives, whatever the rounds and pieces.
func TestWholeDataRounds(t *testing.T) {
	const n, d, k = 40000, 3, 300
	data := testData[float64](t, n, d, k, 7)
	model := must(NewSoftmax[float64](d, k))
	theta := make([]float64, model.NumParams())
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range theta {
		theta[i] = rng.NormFloat64()
	}
	e := must(NewEngine[float64](model, 2))
	defer e.Close()
	losses := make([]float64, n)
	if err := e.Losses(losses, theta, data); err != nil {
		t.Fatal(err)
	}
	of, err := e.LossesOf(theta, data, nil, n)
	if err != nil {
		t.Fatal(err)
	}
	scores := make([]float64, n*k)
	if err := e.Scores(scores, theta, data); err != nil {
		t.Fatal(err)
	}
	each := make([]float64, n*k)
	var mu sync.Mutex
	seen := 0
	err = e.EachScores(theta, data, func(lo int, s []float64) {
		copy(each[lo*k:], s)
		mu.Lock()
		seen += len(s) / k
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen != n || !slices.Equal(each, scores) {
		t.Errorf("EachScores: %d rows, scores equal to Scores' %v", seen, slices.Equal(each, scores))
	}
	one := must(NewEngine[float64](model, 1))
	defer one.Close()
	for _, i := range []int{0, 1023, 16383, 16384, 32768, n - 1} {
		l, err := one.LossesOf(theta, data, []int{i}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if losses[i] != l[0] || of[i] != l[0] {
			t.Errorf("row %d: Losses %v, LossesOf %v, alone %v", i, losses[i], of[i], l[0])
		}
	}
	if err := e.EachScores(theta, data, nil); err == nil {
		t.Error("EachScores with a nil function: no error")
	}
}
