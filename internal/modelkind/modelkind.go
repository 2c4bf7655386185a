// Package modelkind holds what a model kind means to the programs: the
// kind that fits a task, the task a kind fits, and the class a row's
// scores predict. The library, the command, the exporter and the C ABI
// share these rules, so a model kind means the same everywhere.
package modelkind

import (
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

// For returns the kind that fits data of a task and class count when the
// kind is left to the data ("auto"). Regression gets batch.KindLinear. Two
// classes get batch.KindLogistic, any other number batch.KindSoftmax. It
// returns "" for dataset.TaskAuto, which names no task.
func For(task dataset.Task, classes int) string {
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

// Task returns the task a model kind fits. Linear and lad fit regression;
// logistic, softmax and mlp fit classification. Any other name (such as
// "auto") gives dataset.TaskAuto, which leaves the task to the data.
func Task(kind string) dataset.Task {
	switch kind {
	case batch.KindLinear, batch.KindLAD:
		return dataset.Regression
	case batch.KindLogistic, batch.KindSoftmax, batch.KindMLP:
		return dataset.Classification
	}
	return dataset.TaskAuto
}

// Class returns the class one row's scores predict. A single score
// (binary logistic regression) predicts 1 when positive, else 0. More
// scores predict the highest-scoring class, the first one on ties.
func Class[T batch.Float](scores []T) int {
	if len(scores) == 1 {
		if scores[0] > 0 {
			return 1
		}
		return 0
	}
	best := 0
	for j, v := range scores {
		if v > scores[best] {
			best = j
		}
	}
	return best
}
