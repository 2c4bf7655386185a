package dataset

import "testing"

func TestCentres(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		p    Preprocessing
		want bool
	}{
		{Preprocessing{}, false},
		{Preprocessing{Divide: 255}, false},
		{Preprocessing{Mean: []float64{0, 0}, Scale: []float64{2, 3}}, false},
		{Preprocessing{Mean: []float64{0, -1e-300}, Scale: []float64{1, 1}}, true},
	} {
		if got := c.p.Centres(); got != c.want {
			t.Errorf("%+v: Centres %v, want %v", c.p, got, c.want)
		}
	}
}
