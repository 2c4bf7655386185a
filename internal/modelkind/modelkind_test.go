package modelkind

import (
	"testing"

	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

// TestFor: "auto" is linear for regression, logistic for two
// classes, softmax for any other number, and nothing without a task.
func TestFor(t *testing.T) {
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
		if got := For(c.task, c.classes); got != c.want {
			t.Errorf("For(%v, %d) = %q, want %q", c.task, c.classes, got, c.want)
		}
	}
}

// TestTask: every kind of the registry has its task, and the kind
// For picks fits the task it was asked for.
func TestTask(t *testing.T) {
	t.Parallel()
	want := map[string]dataset.Task{
		batch.KindLinear: dataset.Regression, batch.KindLAD: dataset.Regression,
		batch.KindLogistic: dataset.Classification, batch.KindSoftmax: dataset.Classification, batch.KindMLP: dataset.Classification,
	}
	for _, kind := range batch.Kinds() {
		if got, ok := want[kind]; !ok || Task(kind) != got {
			t.Errorf("Task(%q) = %v, want %v", kind, Task(kind), got)
		}
	}
	for _, kind := range []string{"auto", "", "svm"} {
		if got := Task(kind); got != dataset.TaskAuto {
			t.Errorf("Task(%q) = %v, want auto", kind, got)
		}
	}
	for _, task := range []dataset.Task{dataset.Classification, dataset.Regression} {
		for _, k := range []int{0, 2, 5} {
			if task == dataset.Classification && k == 0 {
				continue
			}
			if got := Task(For(task, k)); got != task {
				t.Errorf("Task(For(%v, %d)) = %v", task, k, got)
			}
		}
	}
}

// TestClass: one score predicts 1 when positive; more scores predict the
// first highest.
func TestClass(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		scores []float64
		want   int
	}{
		{[]float64{0.5}, 1}, {[]float64{0}, 0}, {[]float64{-1}, 0},
		{[]float64{1, 3, 2}, 1}, {[]float64{2, 2, 1}, 0}, {[]float64{-3, -1}, 1},
	} {
		if got := Class(c.scores); got != c.want {
			t.Errorf("Class(%v) = %d, want %d", c.scores, got, c.want)
		}
	}
}
