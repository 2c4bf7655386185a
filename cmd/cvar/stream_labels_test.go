package main

import "testing"

// TestStreamTextLabels: -stream on text labels names the file, the line and
// the label, and says that the stream needs numeric labels, under every
// model that classifies; a regression model says the target is not a
// number.
func TestStreamTextLabels(t *testing.T) {
	t.Parallel()
	data := write(t, t.TempDir(), "pets.csv", classCSV(30, 1, true))
	for _, model := range []string{"logistic", "auto", "softmax"} {
		fails(t, 1, []string{"pets.csv:2", `column 4 ("animal")`, "label \"", "is not a number", "-stream needs numeric class labels"},
			"train", "-data", data, "-stream", "-method", "alg1", "-model", model)
	}
	fails(t, 1, []string{"pets.csv:2", "target \"", "is not a number"}, "train", "-data", data, "-stream", "-method", "alg1", "-model", "linear")
}
