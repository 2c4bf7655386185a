package rounds

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar/dataset"
)

func csvStream(t *testing.T, name, text string) *dataset.Stream[float64] {
	t.Helper()
	st, err := dataset.NewCSVStream[float64](strings.NewReader(text), name, dataset.CSVOptions{Task: dataset.Classification})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// The parts' fits merge in their keys' order, to the same bits whatever
// order they come in; held-out rows count for the classes only.
func TestReadFitAndMerge(t *testing.T) {
	t.Parallel()
	parts := []string{"a,b,y\n1,2,cat\n3,4,dog\n5,6,cat\n", "a,b,y\n0.5,1e9,eel\n-1,2,dog\n"}
	held := func(line int) bool { return line == 3 }
	var fits []Fit
	for i, p := range parts {
		f, err := ReadFit(csvStream(t, fmt.Sprint("part", i), p), true, int64(i), held)
		if err != nil {
			t.Fatal(err)
		}
		fits = append(fits, f)
	}
	if fits[0].N != 2 || fits[1].N != 1 || !slices.Equal(fits[0].Features, []string{"a", "b"}) {
		t.Fatalf("fits of %d and %d training rows, features %v; want 2, 1, [a b]", fits[0].N, fits[1].N, fits[0].Features)
	}
	one, two := MergeFits(slices.Clone(fits)), MergeFits([]Fit{fits[1], fits[0]})
	b1, _ := one.Fit.MarshalBinary()
	b2, _ := two.Fit.MarshalBinary()
	classes, err := one.Labels.Classes()
	if err != nil || !bytes.Equal(b1, b2) || one.N != 3 || !slices.Equal(classes, []string{"cat", "dog", "eel"}) {
		t.Errorf("merged: %d rows, classes %v (%v), same bits either order: %v", one.N, classes, err, bytes.Equal(b1, b2))
	}
	if bad := MergeFits([]Fit{fits[0], {}}); bad.Fit != nil {
		t.Error("a missing fit merged")
	}
	lib, err := dataset.NewLIBSVMStream[float64](strings.NewReader("1 1:2 7:1\n0 3:1\n"), "p.svm", dataset.LIBSVMOptions{Dim: 10, Task: dataset.Regression})
	if err != nil {
		t.Fatal(err)
	}
	f, err := ReadFit(lib, false, 0, func(int) bool { return false })
	if err != nil || f.N != 2 || f.Fit.D() != 7 {
		t.Errorf("LIBSVM fit: %d rows, %d wide, %v; want 2 rows, 7 wide", f.N, f.Fit.D(), err)
	}
}

// A target the fit refuses fails the read, naming the file and the line.
func TestReadFitNamesTheLine(t *testing.T) {
	t.Parallel()
	_, err := ReadFit(csvStream(t, "f.csv", "a,y\n1,2\n2,+Inf\n"), true, 0, func(int) bool { return false })
	var de *dataset.Error
	if !errors.As(err, &de) || de.File != "f.csv" || de.Line != 3 {
		t.Errorf("error %v; want one naming f.csv:3", err)
	}
}

// About the fraction asked is held out, the same rows for a copy of the
// data in another folder, others for another seed.
func TestHeld(t *testing.T) {
	t.Parallel()
	n, same, other := 0, 0, 0
	for line := 1; line <= 20000; line++ {
		h := Held(0.25, 7, "/data/part-1.csv", 4096, line)
		if h {
			n++
		}
		if h == Held(0.25, 7, "/copy/part-1.csv", 4096, line) {
			same++
		}
		if h != Held(0.25, 8, "/data/part-1.csv", 4096, line) {
			other++
		}
	}
	if math.Abs(float64(n)/20000-0.25) > 0.015 || same != 20000 || other < 4000 {
		t.Errorf("%d of 20000 held (want about 5000), %d alike in a copy, %d differ for another seed", n, same, other)
	}
	if Held(0, 7, "x", 0, 1) {
		t.Error("a row held out with none asked")
	}
}
