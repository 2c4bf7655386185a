package dataset

import (
	"io"
	"slices"
	"strings"
	"testing"
)

// TestStreamNextText: a classification stream without Classes returns
// each row and its target's text as written (trimmed); an empty or
// non-finite target is an error naming the line, which then sticks.
func TestStreamNextText(t *testing.T) {
	t.Parallel()
	const in = "a,b,label\n1,2, cat\n3,4,1.0\n5,6,NaN\n7,8,dog\n"
	s, err := NewCSVStream[float64](strings.NewReader(in), "t.csv", CSVOptions{Task: Classification})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	var xs []float64
	for {
		x, text, err := s.NextText()
		if err != nil {
			if err == io.EOF {
				t.Fatal("no error for the NaN target")
			}
			wantErr(t, err, "t.csv:4:", "NaN")
			break
		}
		texts, xs = append(texts, text), append(xs, x...)
	}
	if !slices.Equal(texts, []string{"cat", "1.0"}) || !slices.Equal(xs, []float64{1, 2, 3, 4}) || s.Line() != 3 {
		t.Errorf("texts %q rows %v line %d", texts, xs, s.Line())
	}
	if _, _, err := s.NextText(); err == nil {
		t.Error("no error after the first")
	}
}
