package cvar

import (
	"bytes"
	"slices"
	"testing"

	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

// TestNewModelFile: the file of a run holds the model's kind, shapes and
// width, θ, τ, the data's classes, names and preprocessing, and survives
// SaveModel and LoadModel.
func TestNewModelFile(t *testing.T) {
	t.Parallel()
	ds, err := dataset.SyntheticClassification[float32](dataset.SynthClassOptions{N: 200, D: 7, Classes: 3, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(ds, PrepareOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	data, err := p.Train.Batch()
	if err != nil {
		t.Fatal(err)
	}
	model, err := batch.NewMLP[float32](ds.D, 4, 3)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Train(model, data, Options{Method: Alg3, Epochs: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	src := Provenance{Kind: "synthetic", Name: ds.Name, N: p.Train.N}
	mf := NewModelFile(model, res, p.Train, p.Preprocessing, src)
	if mf.Kind != "mlp" || mf.Hidden != 4 || mf.D != 7 || mf.K != 3 || mf.Precision != F32 || mf.Tau != res.Tau || mf.Method != Alg3 {
		t.Errorf("model file %+v", mf)
	}
	if !slices.Equal(mf.Classes, ds.Classes) || !slices.Equal(mf.Features, ds.Features) || !slices.Equal(mf.Preprocessing.Mean, p.Preprocessing.Mean) {
		t.Errorf("classes %v, features %v, means %v", mf.Classes, mf.Features, mf.Preprocessing.Mean)
	}
	var b bytes.Buffer
	if err := SaveModel(&b, mf); err != nil {
		t.Fatal(err)
	}
	back, err := LoadModel(&b)
	if err != nil {
		t.Fatal(err)
	}
	_, theta, err := BuildModel[float32](back)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(theta, res.Theta) || back.Source.N != p.Train.N {
		t.Error("θ or the source changed through SaveModel and LoadModel")
	}
}
