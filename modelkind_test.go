package cvar

import (
	"testing"

	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

// TestModelKindFor: "auto" is linear for regression, logistic for two
// classes, softmax for any other number, and nothing without a task.
func TestModelKindFor(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		task    dataset.Task
		classes int
		want    string
	}{
		{dataset.Regression, 0, batch.KindLinear},
		{dataset.Regression, 2, batch.KindLinear},
		{dataset.Classification, 2, batch.KindLogistic},
		{dataset.Classification, 3, batch.KindSoftmax},
		{dataset.Classification, 10, batch.KindSoftmax},
		{dataset.Classification, 1, batch.KindSoftmax},
		{dataset.TaskAuto, 2, ""},
		{dataset.Task(7), 2, ""},
	} {
		if got := ModelKindFor(c.task, c.classes); got != c.want {
			t.Errorf("ModelKindFor(%v, %d) = %q, want %q", c.task, c.classes, got, c.want)
		}
	}
}

// TestModelTask: every kind of the registry has its task, and the kind
// ModelKindFor picks fits the task it was asked for.
func TestModelTask(t *testing.T) {
	t.Parallel()
	want := map[string]dataset.Task{
		batch.KindLinear: dataset.Regression, batch.KindLAD: dataset.Regression,
		batch.KindLogistic: dataset.Classification, batch.KindSoftmax: dataset.Classification, batch.KindMLP: dataset.Classification,
	}
	for _, kind := range batch.Kinds() {
		if got, ok := want[kind]; !ok || ModelTask(kind) != got {
			t.Errorf("ModelTask(%q) = %v, want %v", kind, ModelTask(kind), got)
		}
	}
	for _, kind := range []string{"auto", "", "svm"} {
		if got := ModelTask(kind); got != dataset.TaskAuto {
			t.Errorf("ModelTask(%q) = %v, want auto", kind, got)
		}
	}
	for _, task := range []dataset.Task{dataset.Classification, dataset.Regression} {
		for _, k := range []int{0, 2, 5} {
			if task == dataset.Classification && k == 0 {
				continue
			}
			if got := ModelTask(ModelKindFor(task, k)); got != task {
				t.Errorf("ModelTask(ModelKindFor(%v, %d)) = %v", task, k, got)
			}
		}
	}
}
