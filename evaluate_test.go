package cvar

import (
	"math"
	"reflect"
	"testing"

	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/internal/modelkind"
)

// TestEvaluatorAgrees checks that an Evaluator reused over data sets of
// several sizes gives what Evaluate, Losses, Predictions and MetricsOf give
// on their own, for a classifier and a regression.
func TestEvaluatorAgrees(t *testing.T) {
	t.Parallel()
	cls := must(batch.NewLogistic[float64](4))
	reg := must(batch.NewLeastAbsolute[float64](3))
	for _, c := range []struct {
		name  string
		model batch.Model[float64]
		sets  []*batch.Data[float64]
	}{
		{"logistic", cls, []*batch.Data[float64]{subgroupData(t, 3000, 4, 1), subgroupData(t, 500, 4, 2), subgroupData(t, 4000, 4, 3)}},
		{"lad", reg, []*batch.Data[float64]{ladData(t, 2000, 3, 1), ladData(t, 300, 3, 2)}},
	} {
		theta := make([]float64, c.model.NumParams())
		for i := range theta {
			theta[i] = 0.1 * float64(i+1)
		}
		ev, err := NewEvaluator(c.model, 2)
		if err != nil {
			t.Fatal(err)
		}
		for i, data := range c.sets {
			got, err := ev.Metrics(theta, data, 0.05, 0.1)
			if err != nil {
				t.Fatal(err)
			}
			want, err := Evaluate(c.model, theta, data, 0.05, 0.1)
			if err != nil {
				t.Fatal(err)
			}
			if !sameMetrics(got, want) {
				t.Errorf("%s set %d: Evaluator.Metrics %+v, Evaluate %+v", c.name, i, got, want)
			}
			losses, err := ev.Losses(theta, data)
			if err != nil {
				t.Fatal(err)
			}
			if l2, _ := lossesOf(c.model, theta, data, 1); !reflect.DeepEqual(losses, l2) {
				t.Errorf("%s set %d: Evaluator.Losses differs from Losses", c.name, i)
			}
			var correct []bool
			if data.IsClassification() {
				pred, err := ev.Predictions(theta, data)
				if err != nil {
					t.Fatal(err)
				}
				if p2, _ := predictionsOf(c.model, theta, data, 1); !reflect.DeepEqual(pred, p2) {
					t.Errorf("%s set %d: Evaluator.Predictions differs from Predictions", c.name, i)
				}
				scores, err := ev.Scores(theta, data)
				if err != nil {
					t.Fatal(err)
				}
				k := c.model.NumOutputs()
				correct = make([]bool, data.N)
				for r := range correct {
					if modelkind.Class(scores[r*k:(r+1)*k]) != pred[r] {
						t.Fatalf("%s set %d row %d: modelkind.Class of the scores is not the prediction", c.name, i, r)
					}
					correct[r] = pred[r] == int(data.Labels[r])
				}
			}
			of, err := MetricsOf(losses, correct, 0.05, 0.1)
			if err != nil {
				t.Fatal(err)
			}
			if !sameMetrics(of, want) {
				t.Errorf("%s set %d: MetricsOf %+v, Evaluate %+v", c.name, i, of, want)
			}
		}
		ev.Close()
		ev.Close() // a second Close is harmless
	}
}

func sameMetrics(a, b Metrics) bool {
	same := func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) }
	return a.N == b.N && same(a.MeanLoss, b.MeanLoss) && same(a.Accuracy, b.Accuracy) && reflect.DeepEqual(a.Tails, b.Tails)
}

// lossesOf is Evaluator.Losses of a one-call Evaluator on threads workers.
func lossesOf[T batch.Float](model batch.Model[T], theta []T, data *batch.Data[T], threads int) ([]T, error) {
	ev, err := NewEvaluator(model, threads)
	if err != nil {
		return nil, err
	}
	defer ev.Close()
	return ev.Losses(theta, data)
}

// predictionsOf is Evaluator.Predictions of a one-call Evaluator on
// threads workers.
func predictionsOf[T batch.Float](model batch.Model[T], theta []T, data *batch.Data[T], threads int) ([]int, error) {
	ev, err := NewEvaluator(model, threads)
	if err != nil {
		return nil, err
	}
	defer ev.Close()
	return ev.Predictions(theta, data)
}
