package dataset

import (
	"strconv"
	"strings"
	"testing"
)

func benchInput(rows, cols int, svm bool) string {
	var b strings.Builder
	if !svm {
		for j := range cols {
			b.WriteString("c" + strconv.Itoa(j) + ",")
		}
		b.WriteString("y\n")
	}
	for i := range rows {
		if svm {
			b.WriteString(strconv.Itoa(i % 2))
		}
		for j := range cols {
			v := strconv.FormatFloat(float64((i*cols+j)%1000)/7, 'g', 6, 64)
			if svm {
				b.WriteString(" " + strconv.Itoa(j+1) + ":" + v)
			} else {
				b.WriteString(v + ",")
			}
		}
		if !svm {
			b.WriteString(strconv.Itoa(i % 2))
		}
		b.WriteString("\n")
	}
	return b.String()
}

func BenchmarkReadCSV(b *testing.B) {
	in := benchInput(10000, 100, false)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := ReadCSV[float32](strings.NewReader(in), "b.csv", CSVOptions{Task: TaskAuto}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadLIBSVM(b *testing.B) {
	in := benchInput(10000, 100, true)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := ReadLIBSVM[float32](strings.NewReader(in), "b.svm", LIBSVMOptions{Task: TaskAuto}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSyntheticClassification(b *testing.B) {
	for b.Loop() {
		if _, err := SyntheticClassification[float32](SynthClassOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
