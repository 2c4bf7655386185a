package dataset

import (
	"math"
	"slices"
	"testing"
)

func small() *Dataset[float64] {
	return &Dataset[float64]{
		Name:     "small",
		X:        []float64{1, 2, 3, 4, 5, 6},
		N:        3,
		D:        2,
		Task:     Classification,
		Labels:   []int32{0, 1, 1},
		Classes:  []string{"a", "b"},
		Features: []string{"x", "y"},
	}
}

func TestDatasetMethods(t *testing.T) {
	t.Parallel()
	ds := small()
	if ds.K() != 2 || !slices.Equal(ds.Row(1), []float64{3, 4}) {
		t.Errorf("K %d Row(1) %v", ds.K(), ds.Row(1))
	}
	// Row's capacity ends at the row, so appending cannot overwrite the next.
	if r := ds.Row(0); cap(r) != 2 {
		t.Errorf("cap(Row(0)) = %d", cap(r))
	}
	sub := ds.Subset([]int{2, 0, 2})
	if sub.N != 3 || !slices.Equal(sub.X, []float64{5, 6, 1, 2, 5, 6}) || !slices.Equal(sub.Labels, []int32{1, 0, 1}) {
		t.Errorf("Subset: N %d X %v Labels %v", sub.N, sub.X, sub.Labels)
	}
	sub.X[0] = 100
	if ds.X[4] != 5 {
		t.Error("Subset shares X")
	}
	if err := sub.Validate(); err != nil {
		t.Error(err)
	}
	if (&Dataset[float64]{}).K() != 0 {
		t.Error("K of empty dataset")
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	if err := small().Validate(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		change func(*Dataset[float64])
		want   []string
	}{
		{"NaN", func(d *Dataset[float64]) { d.X[3] = math.NaN() }, []string{"small: row 1, feature 1", `("y")`, "NaN"}},
		{"Inf", func(d *Dataset[float64]) { d.X[0] = math.Inf(-1) }, []string{"row 0, feature 0", "-Inf"}},
		{"label", func(d *Dataset[float64]) { d.Labels[2] = 2 }, []string{"row 2: label 2", "0..1"}},
		{"negative label", func(d *Dataset[float64]) { d.Labels[0] = -1 }, []string{"row 0: label -1"}},
		{"short X", func(d *Dataset[float64]) { d.X = d.X[:5] }, []string{"X has 5 values", "3×2"}},
		{"labels", func(d *Dataset[float64]) { d.Labels = d.Labels[:2] }, []string{"2 labels", "N = 3"}},
		{"features", func(d *Dataset[float64]) { d.Features = []string{"x"} }, []string{"1 feature names"}},
		{"task", func(d *Dataset[float64]) { d.Task = TaskAuto }, []string{"task auto"}},
		{"no classes", func(d *Dataset[float64]) { d.Classes = nil }, []string{"no classes"}},
		{"Y in classification", func(d *Dataset[float64]) { d.Y = make([]float64, 3) }, []string{"regression targets"}},
		{"regression without Y", func(d *Dataset[float64]) { d.Task = Regression }, []string{"0 targets"}},
		{"regression NaN", func(d *Dataset[float64]) {
			d.Task, d.Labels, d.Classes, d.Y = Regression, nil, nil, []float64{0, math.NaN(), 0}
		}, []string{"row 1: target NaN"}},
		{"negative N", func(d *Dataset[float64]) { d.N = -1 }, []string{"negative"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ds := small()
			c.change(ds)
			wantErr(t, ds.Validate(), c.want...)
		})
	}
}

func TestTaskString(t *testing.T) {
	t.Parallel()
	for _, task := range []Task{Classification, Regression, TaskAuto} {
		got, err := ParseTask(task.String())
		if err != nil || got != task {
			t.Errorf("ParseTask(%q) = %v, %v", task.String(), got, err)
		}
	}
	if got, err := ParseTask(" Reg "); err != nil || got != Regression {
		t.Errorf("ParseTask(reg) = %v, %v", got, err)
	}
	wantErr(t, func() error { _, err := ParseTask("ranking"); return err }(), `"ranking"`, "classification, regression or auto")
	if Task(9).String() != "Task(9)" {
		t.Errorf("Task(9).String() = %q", Task(9).String())
	}
}
