package main

import "fmt"

// checkFeatureNames refuses data read from path whose feature names got
// differ from want. want are those of the data a model was trained on;
// ref names it, such as "the model file". The error names the first
// column that differs. The readers match columns by position. So a column
// renamed or moved would be read as another feature. Names are compared
// only when both have them, for the same number of features.
func checkFeatureNames(path string, got, want []string, ref string) error {
	if got == nil || want == nil || len(got) != len(want) {
		return nil
	}
	for j := range got {
		if got[j] != want[j] {
			return fmt.Errorf("%s: feature %d is named %q where %s has %q; columns are matched by position, not by name: give the columns in the training file's order and names", path, j+1, got[j], ref, want[j])
		}
	}
	return nil
}
