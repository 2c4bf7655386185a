package cvarbeam

import (
	"context"
	"slices"
	"time"
)

// Bundle is one bundle of a pipeline's reading step, as its worker saw
// it. Items are the work items it took: parts of the data, or grid
// settings. The items are redistributed before the step (a Reshuffle),
// so a runner with W workers can run W bundles at once.
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

// bundleSpan is a Bundle as a worker stores it, in Unix nanoseconds. A
// DoFn times its bundle: begin in StartBundle, item for each element,
// save in FinishBundle.
type bundleSpan struct {
	Start, End int64
	Items      int
	Rows       int64
}

func (c *bundleSpan) begin()          { *c = bundleSpan{Start: time.Now().UnixNano()} }
func (c *bundleSpan) item(rows int64) { c.Items, c.Rows = c.Items+1, c.Rows+rows }

// save stores the span among the results of the run in dir, if any.
func (c *bundleSpan) save(ctx context.Context, dir string) error {
	if dir == "" {
		return nil
	}
	c.End = time.Now().UnixNano()
	return writeResult(ctx, dir+"/bundle-"+token(), *c)
}

func bundlesOf(spans []bundleSpan) []Bundle {
	out := make([]Bundle, len(spans))
	for i, s := range spans {
		out[i] = Bundle{Start: time.Unix(0, s.Start), End: time.Unix(0, s.End), Items: s.Items, Rows: s.Rows}
	}
	slices.SortFunc(out, func(a, b Bundle) int { return a.Start.Compare(b.Start) })
	return out
}
