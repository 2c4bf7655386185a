package cvarbeam

import (
	"slices"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
)

func init() {
	register.Combiner3[[]bundleSpan, bundleSpan, []bundleSpan](&collectSpansFn{})
	register.Emitter1[bundleSpan]()
	gobCoder(encSpan, decSpan)
}

// Bundle is one bundle of a pipeline's reading step as its worker saw
// it: its start and end, the work items it took (splits of the data, or
// grid settings) and the rows it read. The work items are redistributed
// before the step (a Reshuffle), so a runner with W workers can run W
// bundles at once.
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

// bundleSpan is a Bundle as it crosses the runner, in Unix nanoseconds.
// A DoFn times its bundle: begin in StartBundle, item for each element,
// end in FinishBundle.
type bundleSpan struct {
	Start, End int64
	Items      int
	Rows       int64
}

func encSpan(v bundleSpan) ([]byte, error) { return gobEncode(v) }
func decSpan(b []byte) (bundleSpan, error) { return gobDecode[bundleSpan](b) }

func (c *bundleSpan) begin() { *c = bundleSpan{Start: time.Now().UnixNano()} }

func (c *bundleSpan) item(rows int64) { c.Items, c.Rows = c.Items+1, c.Rows+rows }

func (c *bundleSpan) end() bundleSpan {
	c.End = time.Now().UnixNano()
	return *c
}

func bundlesOf(spans []bundleSpan) []Bundle {
	out := make([]Bundle, len(spans))
	for i, s := range spans {
		out[i] = Bundle{Start: time.Unix(0, s.Start), End: time.Unix(0, s.End), Items: s.Items, Rows: s.Rows}
	}
	slices.SortFunc(out, func(a, b Bundle) int { return a.Start.Compare(b.Start) })
	return out
}

// collectSpans stores a step's bundle spans as the run's "bundles".
func (j *job) collectSpans(s beam.Scope, spans beam.PCollection) {
	j.write(s, "bundles", beam.Combine(s, &collectSpansFn{}, spans))
}

type collectSpansFn struct{}

func (*collectSpansFn) CreateAccumulator() []bundleSpan { return nil }

func (*collectSpansFn) AddInput(a []bundleSpan, s bundleSpan) []bundleSpan { return append(a, s) }

func (*collectSpansFn) MergeAccumulators(a, b []bundleSpan) []bundleSpan { return append(a, b...) }
