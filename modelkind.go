package cvar

import (
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

// ModelKindFor returns the model kind that fits data of the given task and
// number of classes when the kind is left to the data ("auto"):
// batch.KindLinear for regression, batch.KindLogistic for two classes and
// batch.KindSoftmax for any other number. It returns "" for
// dataset.TaskAuto, which names no task.
func ModelKindFor(task dataset.Task, classes int) string {
	switch {
	case task == dataset.Regression:
		return batch.KindLinear
	case task != dataset.Classification:
		return ""
	case classes == 2:
		return batch.KindLogistic
	}
	return batch.KindSoftmax
}

// ModelTask returns the task a model kind fits: dataset.Regression for
// linear and lad, dataset.Classification for logistic, softmax and mlp, and
// dataset.TaskAuto for any other name (such as "auto"), which leaves the
// task to the data.
func ModelTask(kind string) dataset.Task {
	switch kind {
	case batch.KindLinear, batch.KindLAD:
		return dataset.Regression
	case batch.KindLogistic, batch.KindSoftmax, batch.KindMLP:
		return dataset.Classification
	}
	return dataset.TaskAuto
}
