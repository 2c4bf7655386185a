package cvar

import (
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

// NewModelFile is the model file of a run of Train on data in memory, for
// SaveModel: the model (its kind is its Name, an mlp's width its Hidden),
// the run's result, the classes and feature names of the training data
// train, the preprocessing its features went through (such as
// Prepared.Preprocessing), and the program's record of the data.
func NewModelFile[T batch.Float](model batch.Model[T], res *Result[T], train *dataset.Dataset[T], prep dataset.Preprocessing, src Provenance) *ModelFile {
	theta := make([]float64, len(res.Theta))
	for i, v := range res.Theta {
		theta[i] = float64(v)
	}
	mf := &ModelFile{
		Kind: model.Name(), D: train.D, K: train.K(), Precision: precisionOf[T](),
		Theta: theta, Tau: res.Tau, Alpha: res.Params.Alpha, Method: res.Params.Method,
		Classes: train.Classes, Features: train.Features, Preprocessing: prep,
		Params: res.Params, Source: src,
	}
	if h, ok := model.(interface{ Hidden() int }); ok && mf.Kind == batch.KindMLP {
		mf.Hidden = h.Hidden()
	}
	return mf
}
