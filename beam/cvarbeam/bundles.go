package cvarbeam

import (
	"context"
	"crypto/rand"
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

// MostAtOnce is the largest number of bundles whose spans overlap. A
// bundle that ends when another starts does not overlap it.
func MostAtOnce(bs []Bundle) int {
	most := 0
	for _, b := range bs { // the most at once is at some bundle's start
		n := 0
		for _, c := range bs {
			if !c.Start.After(b.Start) && c.End.After(b.Start) {
				n++
			}
		}
		most = max(most, n)
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
	return writeResult(ctx, dir+"/bundle-"+rand.Text(), *b)
}
