package cvar

import (
	"fmt"

	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

// PrepareOptions say how Prepare splits and scales data in memory.
type PrepareOptions struct {
	// Scaling is the features' scaling, fitted on the training part
	// (ScaleAuto: ScaleMaxAbs for data held sparse, else ScaleZScore);
	// ScaleZScore does not centre sparse data (dataset.FitScaler), which
	// keeps its zeros.
	Scaling Scaling
	// ScaleTarget fits the standardisation of a regression target on the
	// training part (Preprocessing's TargetMean and TargetScale); the
	// targets themselves stay in their units.
	ScaleTarget bool
	// TrainFrac is the training part of the split; 0 means
	// dataset.DefaultTrainFrac, and 1 trains on every row, with no
	// validation part (a caller that holds out data of its own).
	TrainFrac float64
	// Seed makes the split (dataset.Split).
	Seed uint64
}

// Prepared is data in memory split for training, preprocessed with what
// was fitted on its training part.
type Prepared[T batch.Float] struct {
	Train, Val *dataset.Dataset[T]
	// Preprocessing is the scaling fitted on Train. Train, Val and the
	// other data sets given to Prepare hold it applied. A ModelFile records
	// it for new data.
	Preprocessing dataset.Preprocessing
}

// Prepare is the in-memory counterpart of TrainStream's reading. It splits
// full into a training and a validation part (dataset.Split). It fits the
// scaling on the training part and applies it to both parts. It also
// applies it, in place, to each data set of more that is not nil (a test
// set). The data set full is not modified.
func Prepare[T batch.Float](full *dataset.Dataset[T], opt PrepareOptions, more ...*dataset.Dataset[T]) (*Prepared[T], error) {
	train, val, err := split(full, opt)
	if err != nil {
		return nil, err
	}
	p := &Prepared[T]{Train: train, Val: val}
	if err := p.fitScaling(opt.Scaling); err != nil {
		return nil, err
	}
	for _, ds := range append([]*dataset.Dataset[T]{val}, more...) {
		if ds != nil {
			if err := dataset.PreprocessDataset(&p.Preprocessing, ds); err != nil {
				return nil, err
			}
		}
	}
	if train.Task == dataset.Regression && opt.ScaleTarget {
		ts, err := dataset.FitTargetScaler(train)
		if err != nil {
			return nil, err
		}
		p.Preprocessing.TargetMean, p.Preprocessing.TargetScale = ts.Mean, ts.Scale
	}
	return p, nil
}

// split is dataset.Split, or with TrainFrac 1 a copy of every row of full
// and no validation part.
func split[T batch.Float](full *dataset.Dataset[T], opt PrepareOptions) (train, val *dataset.Dataset[T], err error) {
	if opt.TrainFrac != 1 {
		return dataset.Split(full, opt.TrainFrac, opt.Seed)
	}
	if err := full.Validate(); err != nil {
		return nil, nil, err
	}
	rows := make([]int, full.N)
	for i := range rows {
		rows[i] = i
	}
	return full.Subset(rows), nil, nil
}

// fitScaling fits the scaling on p.Train and applies it there.
func (p *Prepared[T]) fitScaling(mode Scaling) error {
	train, prep := p.Train, &p.Preprocessing
	if mode == ScaleAuto {
		mode = ScaleZScore
		if train.IsSparse() {
			mode = ScaleMaxAbs
		}
	}
	var st *dataset.Standardizer
	var err error
	switch {
	case mode == ScaleNone:
		return nil
	case mode == ScaleUnit:
		prep.Divide = 255
		return dataset.PreprocessDataset(prep, train)
	case mode == ScaleMaxAbs:
		st, err = dataset.FitMaxAbs(train)
	case mode == ScaleZScore && train.IsSparse():
		st, err = dataset.FitScaler(train) // means of 0: the zeros stay
	case mode == ScaleZScore:
		if st, err = dataset.FitStandardizer(train); err != nil {
			return err
		}
		prep.Mean, prep.Scale = st.Mean, st.Scale
		return dataset.StandardizeInPlace(st, train)
	default:
		return fmt.Errorf("cvar: unknown Scaling %d", mode)
	}
	if err != nil {
		return err
	}
	prep.Mean, prep.Scale = st.Mean, st.Scale
	return dataset.PreprocessDataset(prep, train)
}
