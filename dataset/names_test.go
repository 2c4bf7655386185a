package dataset

import "testing"

func TestFormatOfName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"a.csv": "csv", "dir/A.TSV.gz": "csv", "x.tab.bz2": "csv",
		"r.svm": "libsvm", "r.LIBSVM": "libsvm", "news.svmlight.gz": "libsvm", "a9a.scale": "libsvm",
		"train-images-idx3-ubyte.gz": "idx", "pix.idx": "idx",
		"data.txt": "", "csv": "", "a.csv.zip": "", "train-labels-idx1-ubyte": "",
	} {
		if got := FormatOfName(name); got != want {
			t.Errorf("FormatOfName(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestCommaOfName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]rune{"a.tsv": '\t', "b.TAB.gz": '\t', "c.csv": ',', "d.tsv.zip": ',', "e": ','} {
		if got := CommaOfName(name); got != want {
			t.Errorf("CommaOfName(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestIDXLabelsPath(t *testing.T) {
	t.Parallel()
	for images, want := range map[string]string{
		"d/train-images-idx3-ubyte": "d/train-labels-idx1-ubyte",
		"t10k-images.idx3-ubyte.gz": "t10k-labels.idx1-ubyte.gz",
		"pix.idx":                   "",
	} {
		got, ok := IDXLabelsPath(images)
		if ok != (want != "") || ok && got != want {
			t.Errorf("IDXLabelsPath(%q) = %q, %v; want %q", images, got, ok, want)
		}
	}
}

func TestHeadAndSingleClass(t *testing.T) {
	t.Parallel()
	ds := &Dataset[float64]{Name: "d", X: []float64{1, 2, 3, 4, 5, 6}, N: 3, D: 2, Task: Classification,
		Labels: []int32{1, 1, 0}, Classes: []string{"a", "b"}, Features: []string{"x", "y"}}
	if h := ds.Head(0); h != ds {
		t.Error("Head(0) is not ds")
	}
	if h := ds.Head(5); h != ds {
		t.Error("Head(5) of 3 rows is not ds")
	}
	h := ds.Head(2)
	if h.N != 2 || len(h.X) != 4 || h.X[3] != 4 || ds.N != 3 {
		t.Errorf("Head(2): %d rows %v; ds %d rows", h.N, h.X, ds.N)
	}
	if c, one := h.SingleClass(); !one || c != "b" {
		t.Errorf("the first two rows: SingleClass %q, %v; want b, true", c, one)
	}
	if _, one := ds.SingleClass(); one {
		t.Error("three rows of two classes: SingleClass true")
	}
	if c, one := (&Dataset[float64]{Task: Classification, Classes: []string{"z"}}).SingleClass(); !one || c != "z" {
		t.Errorf("one class named: %q, %v", c, one)
	}
}
