package main

import (
	"strings"
	"testing"
)

// Names are compared only when both sides have them for the same width;
// the first column that differs is named, with the rule that columns match
// by position.
func TestCheckFeatureNames(t *testing.T) {
	t.Parallel()
	want := []string{"a", "b", "c"}
	for _, got := range [][]string{nil, {"a", "b"}, {"a", "b", "c"}} {
		if err := checkFeatureNames("f.csv", got, want, "the model file"); err != nil {
			t.Errorf("%v: %v", got, err)
		}
	}
	err := checkFeatureNames("f.csv", []string{"a", "c", "b"}, want, "the model file")
	if err == nil || !strings.Contains(err.Error(), `f.csv: feature 2 is named "c" where the model file has "b"`) || !strings.Contains(err.Error(), "by position") {
		t.Errorf("renamed column: %v", err)
	}
}
