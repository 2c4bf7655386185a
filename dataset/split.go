package dataset

import (
	"fmt"
	"math"
)

// DefaultTrainFrac is the training fraction Split uses when given 0: the
// 2/3 – 1/3 split of the CVaR paper's experiments.
const DefaultTrainFrac = 2.0 / 3

// Split shuffles the rows of ds with a seeded random permutation and
// returns the first round(trainFrac·N) as the training set and the rest as
// the validation set, both copies. trainFrac 0 means DefaultTrainFrac. The
// split depends only on N, trainFrac and seed, on every platform and Go
// version. Both parts are non-empty, so N must be at least 2; the split is
// not stratified.
func Split[T Float](ds *Dataset[T], trainFrac float64, seed uint64) (train, val *Dataset[T], err error) {
	if trainFrac == 0 {
		trainFrac = DefaultTrainFrac
	}
	if !(trainFrac > 0 && trainFrac < 1) {
		return nil, nil, fmt.Errorf("dataset: training fraction %v; expected a number in (0,1)", trainFrac)
	}
	if ds.N < 2 {
		return nil, nil, fileError(ds.Name, "%d samples cannot be split into non-empty training and validation sets", ds.N)
	}
	nTrain := int(math.Round(trainFrac * float64(ds.N)))
	nTrain = min(max(nTrain, 1), ds.N-1)
	perm := newRNG(seed, 1).perm(ds.N)
	return ds.Subset(perm[:nTrain]), ds.Subset(perm[nTrain:]), nil
}
