package cvarbeam

import (
	"context"
	"reflect"
	"slices"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
)

func init() {
	register.Combiner3[[]bundleSpan, bundleSpan, []bundleSpan](&collectSpansFn{})
	register.DoFn2x1[context.Context, []bundleSpan, error](&writeSpansFn{})
	register.Emitter1[bundleSpan]()
	beam.RegisterCoder(reflect.TypeOf(bundleSpan{}), encSpan, decSpan)
	register.Function1x2(encSpan)
	register.Function1x2(decSpan)
}

// Bundle is one bundle of a pipeline's reading step, as its worker saw
// it: when it started and finished, the work items it took (splits of the
// data, or grid settings) and the rows it read. The runner decides the
// bundles: the splits are redistributed before the step (a Reshuffle),
// so that a runner with W workers can run W bundles at once.
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

// bundleSpan is a Bundle as it crosses the runner (Unix nanoseconds).
type bundleSpan struct {
	Start, End int64
	Items      int
	Rows       int64
}

func encSpan(v bundleSpan) ([]byte, error) { return gobEncode(v) }
func decSpan(b []byte) (bundleSpan, error) { return gobDecode[bundleSpan](b) }

func bundlesOf(spans []bundleSpan) []Bundle {
	out := make([]Bundle, len(spans))
	for i, s := range spans {
		out[i] = Bundle{Start: time.Unix(0, s.Start), End: time.Unix(0, s.End), Items: s.Items, Rows: s.Rows}
	}
	slices.SortFunc(out, func(a, b Bundle) int { return a.Start.Compare(b.Start) })
	return out
}

// spanClock times a DoFn's bundle: begin in StartBundle, item for each
// element, span in FinishBundle.
type spanClock struct {
	span bundleSpan
}

func (c *spanClock) begin() { c.span = bundleSpan{Start: time.Now().UnixNano()} }

func (c *spanClock) item(rows int64) {
	c.span.Items++
	c.span.Rows += rows
}

// end returns the bundle's span.
func (c *spanClock) end() bundleSpan {
	s := c.span
	s.End = time.Now().UnixNano()
	return s
}

// collectSpans gathers a step's bundle spans into the run's "bundles"
// result.
func (j *job) collectSpans(s beam.Scope, spans beam.PCollection) {
	beam.ParDo0(s, &writeSpansFn{Path: j.path("bundles")}, beam.Combine(s, &collectSpansFn{}, spans))
}

type collectSpansFn struct{}

func (*collectSpansFn) CreateAccumulator() []bundleSpan { return nil }

func (*collectSpansFn) AddInput(a []bundleSpan, s bundleSpan) []bundleSpan { return append(a, s) }

func (*collectSpansFn) MergeAccumulators(a, b []bundleSpan) []bundleSpan { return append(a, b...) }

type writeSpansFn struct{ Path string }

func (f *writeSpansFn) ProcessElement(ctx context.Context, list []bundleSpan) error {
	return record(ctx, dirOf(f.Path), writeResult(ctx, f.Path, list))
}
