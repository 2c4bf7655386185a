package cvarbeam

import (
	"context"
	"slices"
	"time"
)

// Bundle is one bundle of a pipeline's reading step, as its worker saw
// it. Items are the work items it took: parts of the data, or grid
// settings.
type Bundle struct {
	Start, End time.Time
	Items      int
	Rows       int64
}

// MostAtOnce is the largest number of bundles whose spans overlap.
func MostAtOnce(bs []Bundle) int {
	type event struct {
		t     time.Time
		delta int
	}
	var ev []event
	for _, b := range bs {
		ev = append(ev, event{b.Start, 1}, event{b.End, -1})
	}
	slices.SortFunc(ev, func(a, b event) int {
		if c := a.t.Compare(b.t); c != 0 {
			return c
		}
		return a.delta - b.delta // an end before a start at the same time
	})
	most, now := 0, 0
	for _, e := range ev {
		now += e.delta
		most = max(most, now)
	}
	return most
}

// A DoFn times its bundle: begin in StartBundle, item for each element,
// save in FinishBundle.
func (b *Bundle) begin()          { *b = Bundle{Start: time.Now()} }
func (b *Bundle) item(rows int64) { b.Items, b.Rows = b.Items+1, b.Rows+rows }

// save stores the bundle among the results of the run in dir, if any.
func (b *Bundle) save(ctx context.Context, dir string) error {
	if dir == "" {
		return nil
	}
	b.End = time.Now()
	return writeResult(ctx, dir+"/bundle-"+token(), *b)
}
