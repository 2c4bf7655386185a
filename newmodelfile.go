package cvar

import (
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

// NewModelFile is the model file of a run of Train on data in memory, for
// SaveModel. It takes the model: its kind is its Name, an mlp's width its
// Hidden. It takes the run's result, and the training data train for its
// classes and feature names. It takes the preprocessing the features went
// through, such as Prepared.Preprocessing. It takes the program's record
// of the data. A nil
// model, res or train gives nil, which SaveModel refuses with an error.
func NewModelFile[T batch.Float](model batch.Model[T], res *Result[T], train *dataset.Dataset[T], prep dataset.Preprocessing, src Provenance) *ModelFile {
	if model == nil || res == nil || train == nil {
		return nil
	}
	return modelFileOf(model, res, train.D, train.Classes, train.Features, prep, src)
}

// modelFileOf is the model file of a trained model with d inputs, the
// given classes and feature names, preprocessing and provenance.
func modelFileOf[T batch.Float](model batch.Model[T], res *Result[T], d int, classes, features []string, prep dataset.Preprocessing, src Provenance) *ModelFile {
	theta := make([]float64, len(res.Theta))
	for i, v := range res.Theta {
		theta[i] = float64(v)
	}
	mf := &ModelFile{
		Kind: model.Name(), D: d, K: len(classes), Precision: precisionOf[T](),
		Theta: theta, Tau: res.Tau, Alpha: res.Params.Alpha, Method: res.Params.Method,
		Classes: classes, Features: features, Preprocessing: prep,
		Params: res.Params, Source: src,
	}
	if h, ok := model.(interface{ Hidden() int }); ok && mf.Kind == batch.KindMLP {
		mf.Hidden = h.Hidden()
	}
	return mf
}
