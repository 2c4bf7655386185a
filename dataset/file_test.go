package dataset

import (
	"os"
	"path/filepath"
	"testing"
)

func writeFile(t *testing.T, path string, b []byte) string {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLoadFileFormats: the format from the name (a tab for .tsv), or as
// given; the readers' options pass through.
func TestLoadFileFormats(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tsv := writeFile(t, filepath.Join(dir, "a.tsv"), []byte("x\ty\n1\t2.5\n3\t4.5\n5\t6.5\n"))
	ds, err := LoadFile[float64](tsv, FileOptions{Limit: 2, Task: Regression})
	if err != nil {
		t.Fatal(err)
	}
	if ds.N != 2 || ds.D != 1 || ds.Task != Regression || ds.Y[1] != 4.5 || ds.Features[0] != "x" {
		t.Errorf("a.tsv: %d rows of %d, task %v, y %v, features %v", ds.N, ds.D, ds.Task, ds.Y, ds.Features)
	}
	svm := writeFile(t, filepath.Join(dir, "b.data"), []byte("1 2:0.5\n0 1:1\n"))
	if _, err := LoadFile[float64](svm, FileOptions{}); err == nil {
		t.Error("b.data: the format guessed")
	}
	ds, err = LoadFile[float64](svm, FileOptions{Format: "libsvm", Dim: 4, Task: Classification})
	if err != nil {
		t.Fatal(err)
	}
	if ds.D != 4 || ds.K() != 2 || ds.X[1] != 0.5 {
		t.Errorf("b.data as libsvm: width %d, %d classes, x %v", ds.D, ds.K(), ds.X)
	}
	_, err = LoadFile[float64](svm, FileOptions{Format: "arff"})
	wantErr(t, err, `unknown format "arff"`)
}

// TestLoadFileIDX: an image file with the label file its name says, or a
// directory of MNIST's files, read raw or scaled; regression and a name
// without images-idx3 are errors naming the file.
func TestLoadFileIDX(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	images := writeFile(t, filepath.Join(dir, "t10k-images-idx3-ubyte"), idxImages(3, 2, 2))
	labels := writeFile(t, filepath.Join(dir, "t10k-labels-idx1-ubyte"), idxLabelFile(1, 0, 1))
	writeFile(t, filepath.Join(dir, "train-images-idx3-ubyte.gz"), gz(idxImages(4, 2, 2)))
	trainLabels := writeFile(t, filepath.Join(dir, "train-labels-idx1-ubyte.gz"), gz(idxLabelFile(0, 1, 1, 0)))
	ds, err := LoadFile[float32](images, FileOptions{Raw: true})
	if err != nil {
		t.Fatal(err)
	}
	if ds.N != 3 || ds.D != 4 || ds.X[5] != 31+7 || ds.Labels[0] != 1 {
		t.Errorf("image file: %d rows of %d, x[5] %v, labels %v", ds.N, ds.D, ds.X[5], ds.Labels)
	}
	for split, want := range map[string]int{"": 4, "train": 4, "test": 3} {
		ds, err := LoadFile[float32](dir, FileOptions{Split: split})
		if err != nil {
			t.Fatal(err)
		}
		if ds.N != want || ds.X[5] != 38.0/255 {
			t.Errorf("split %q: %d rows, x[5] %v; want %d rows scaled", split, ds.N, ds.X[5], want)
		}
	}
	if got := (&FileOptions{}).LabelsPath(images); got != labels {
		t.Errorf("LabelsPath(images) = %q, want %q", got, labels)
	}
	if got := (&FileOptions{}).LabelsPath(dir); got != trainLabels {
		t.Errorf("LabelsPath(dir) = %q, want %q", got, trainLabels)
	}
	if got := (&FileOptions{}).LabelsPath("a.csv"); got != "a.csv" {
		t.Errorf("LabelsPath(a.csv) = %q", got)
	}
	_, err = LoadFile[float32](dir, FileOptions{Task: Regression})
	wantErr(t, err, dir+": IDX files hold class labels")
	odd := writeFile(t, filepath.Join(dir, "pix.idx"), idxImages(1, 1, 1))
	_, err = LoadFile[float32](odd, FileOptions{})
	wantErr(t, err, odd+": cannot find the label file", "images-idx3")
}

// TestRowLine: the line of a row, past a header, blank lines and
// comments; 0 where there is none.
func TestRowLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	csv := writeFile(t, filepath.Join(dir, "a.csv"), []byte("x,y\n1,0\n\n2,1\n3,0\n"))
	svm := writeFile(t, filepath.Join(dir, "b.svm"), []byte("# c\n1 1:2\n\n0 2:1\n"))
	for _, c := range []struct {
		path string
		row  int
		want int
	}{{csv, 0, 2}, {csv, 1, 4}, {csv, 2, 5}, {csv, 3, 0}, {svm, 0, 2}, {svm, 1, 4}, {svm, 2, 0}, {filepath.Join(dir, "none.csv"), 0, 0}} {
		if got := RowLine[float64](c.path, FileOptions{Task: Classification, Dim: 2}, c.row); got != c.want {
			t.Errorf("RowLine(%s, %d) = %d, want %d", filepath.Base(c.path), c.row, got, c.want)
		}
	}
	if got := RowLine[float64](dir, FileOptions{}, 0); got != 0 {
		t.Errorf("a directory: line %d", got)
	}
}
