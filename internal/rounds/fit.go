package rounds

import (
	"cmp"
	"io"
	"path"
	"slices"
	"strconv"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/dataset"
	"github.com/cvarlearn/cvar/internal/rng"
)

// Fit is the fitting pass's result for some parts of the data. It holds
// a cvar.Fit of their training rows, the CSV header's feature names and
// every CSV target text. The texts say whether the targets are classes.
type Fit struct {
	N        int64 // training rows
	Features []string
	Labels   dataset.ClassTexts
	Fit      *cvar.Fit[float64]
	Key      int64 // the first part's key, for the order of merges
}

// ReadFit reads the rows of a part, keyed by key, into a Fit. Training
// rows go to the cvar.Fit whole. A held-out row goes by its target only
// (cvar.Fit.AddHeld), since cvar train counts it for the task and the
// classes. The row at a line is held out when held says so. A CSV
// stream must read its targets as texts (dataset.Classification); a
// LIBSVM stream is read sparse. A row's error is a *dataset.Error
// naming its line.
func ReadFit(st *dataset.Stream[float64], csv bool, key int64, held func(line int) bool) (Fit, error) {
	m := Fit{Key: key, Fit: &cvar.Fit[float64]{}} // LIBSVM: as wide as the largest index
	if csv {
		m.Fit, m.Features = cvar.NewFit[float64](st.D()), st.Features()
	}
	for {
		var (
			x, vals []float64
			cols    []uint32
			y       float64
			text    string
			err     error
		)
		if csv {
			if x, text, err = st.NextText(); err == nil {
				m.Labels.Add(text)
				y, _ = strconv.ParseFloat(text, 64) // a class text counts as 0
			}
		} else {
			cols, vals, y, _, err = st.NextSparse()
		}
		if err == io.EOF {
			return m, nil
		}
		if err != nil {
			return m, err
		}
		switch {
		case held(st.Line()):
			err = m.Fit.AddHeld(y)
		case csv:
			m.N++
			err = m.Fit.Add(x, y)
		default:
			m.N++
			err = m.Fit.AddSparse(cols, vals, y)
		}
		if err != nil {
			return m, &dataset.Error{File: st.Name(), Line: st.Line(), Msg: err.Error()}
		}
	}
}

// MergeFits merges the parts' fits in the order of their keys. So a seed
// gives the same model however the parts were spread. It sorts a.
// Fits that do not merge leave the result empty.
func MergeFits(a []Fit) Fit {
	slices.SortFunc(a, func(x, y Fit) int { return cmp.Compare(x.Key, y.Key) })
	all := Fit{Fit: &cvar.Fit[float64]{}}
	for i := range a {
		if a[i].Fit == nil || all.Fit.Merge(a[i].Fit) != nil {
			return Fit{}
		}
		all.N += a[i].N
		if all.Features == nil {
			all.Features = a[i].Features
		}
		all.Labels.Merge(&a[i].Labels)
	}
	return all
}

// Held reports whether a row is held out, a fraction hold of the rows. It
// hashes the seed, the file's name, the part's first byte and the line.
// The name leaves out the directory, so a copy of the data holds out the
// same rows.
func Held(hold float64, seed uint64, file string, start int64, line int) bool {
	if hold <= 0 {
		return false
	}
	h := seed ^ 0x9e3779b97f4a7c15
	name := path.Base(file)
	for i := 0; i < len(name); i++ {
		h = rng.Mix(h ^ uint64(name[i]))
	}
	h = rng.Mix(rng.Mix(h^uint64(start)) ^ uint64(line))
	return float64(h>>11)/(1<<53) < hold
}
