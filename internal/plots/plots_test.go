package plots

import (
	"bytes"
	"image/png"
	"math"
	"strings"
	"testing"
)

func testPanels() []Panel {
	var panels []Panel
	for _, name := range []string{"CVaR_0.1", "accuracy", "mean loss"} {
		pn := Panel{Title: name}
		for m, method := range []string{"Vanilla-SGD", "CVaR-on-Minibatch", "CVaR-SGD"} {
			c := Curve{Method: method}
			for e := range 20 {
				v := 1/float64(e+1) + 0.1*float64(m)
				c.Val = append(c.Val, v)
				c.Train = append(c.Train, 0.9*v)
			}
			c.Val[3] = math.NaN() // skipped, not drawn
			pn.Curves = append(pn.Curves, c)
		}
		panels = append(panels, pn)
	}
	return panels
}

func TestCurvesAndTails(t *testing.T) {
	tails := []Tail{{"Vanilla-SGD", []float64{3, 1, 2, 5, 4, 0.5, 0.1, 0.2, 0.3, 0.4, 8, 9, 1, 1, 1, 1, 1, 1, 1, 1}}, {"CVaR-SGD", []float64{1, 2, 3}}}
	for _, format := range []string{"png", "svg"} {
		var b bytes.Buffer
		if err := Curves(&b, format, "training curves", testPanels()); err != nil {
			t.Fatal(err)
		}
		if format == "png" {
			img, err := png.Decode(&b)
			if err != nil {
				t.Fatal(err)
			}
			if r := img.Bounds(); r.Dx() < 600 || r.Dy() < 200 {
				t.Errorf("curves image is %v", r)
			}
		} else if !strings.Contains(b.String(), "<svg") {
			t.Error("no svg element")
		}
		b.Reset()
		if err := Tails(&b, format, "tails", []float64{0.05, 0.1}, tails); err != nil {
			t.Fatal(err)
		}
		if b.Len() == 0 {
			t.Error("empty tails plot")
		}
	}
	if err := Tails(&bytes.Buffer{}, "png", "", []float64{0}, tails); err == nil {
		t.Error("alpha 0 accepted")
	}
	if err := Curves(&bytes.Buffer{}, "gif", "", testPanels()); err == nil {
		t.Error("gif accepted")
	}
}
