package tail

// This file holds the selection engine. It is a deterministic introselect
// over a permutation of indices. The indices are ranked by a strict total
// order.
//
// The order. Index a ranks before (counts as larger than) index b when
// losses[a] > losses[b], or losses[a] == losses[b] and a < b. Indices are
// distinct, so this order has no ties at all. So the set of the k
// first-ranked indices is unique. Every result is independent of the order
// in which the caller's permutation lists the indices.
//
// The pivots. Ranges of fewer than smallRange elements are insertion sorted.
// Larger ranges partition around the median of three (lo, middle, hi-1).
// From ninther elements up, they use Tukey's ninther. So sorted,
// reverse-sorted and all-equal inputs split in half at every step. (Under
// the total order, all-equal inputs are sorted by index.) A work budget
// catches adversarial inputs that defeat the sampled pivots. Once the
// elements partitioned exceed budgetFactor·n, the remaining work uses
// median-of-medians pivots (groups of five). Such a pivot has at least 3/10
// of the range on either side. Worst case O(n); expected about 2–3 n
// comparisons. Nothing is random.

const (
	smallRange   = 16  // ranges up to this size are insertion sorted
	ninther      = 128 // from this size on the sampled pivot is Tukey's ninther
	budgetFactor = 6   // partition work allowed (× n) before median-of-medians
)

// pivots chooses a selection's pivots. The exported functions use sampled
// pivots, with the median-of-medians fallback once the work passes its
// budget. Tests may ask for median of medians from the start, to exercise
// the fallback on every input.
type pivots bool

const (
	sampled         pivots = false
	medianOfMedians pivots = true
)

// selector ranks the indices p of v under the total order above.
type selector[T Float] struct {
	v []T
	p []int
	// work counts the elements partitioned or insertion sorted. It is a
	// proxy for comparisons, which tests use to check linear behaviour.
	work   int
	budget int
	mom    bool   // median-of-medians pivots from now on
	piv    pivots // the pivots a selection starts with
}

func newSelector[T Float](v []T, p []int, piv pivots) selector[T] {
	return selector[T]{v: v, p: p, piv: piv}
}

// run is the entry point of one selection. It calls selectAt with sampled
// pivots first. The fresh work budget is budgetFactor times the range, plus
// a constant.
func (s *selector[T]) run(lo, hi, k int) {
	s.mom = s.piv == medianOfMedians
	s.budget = s.work + budgetFactor*(hi-lo) + 64
	s.selectAt(lo, hi, k)
}

// before reports whether index a ranks before index b.
func (s *selector[T]) before(a, b int) bool {
	va, vb := s.v[a], s.v[b]
	return va > vb || (va == vb && a < b)
}

func (s *selector[T]) swap(i, j int) { s.p[i], s.p[j] = s.p[j], s.p[i] }

// split partitions p[lo:hi] about a pivot and returns the pivot's final
// place. The pivot is sampled, or the median of medians once the work has
// passed its budget.
func (s *selector[T]) split(lo, hi int) int {
	var piv int
	if s.mom {
		piv = s.momPivot(lo, hi)
	} else {
		piv = s.samplePivot(lo, hi)
	}
	q := s.partition(lo, hi, piv)
	if s.work > s.budget {
		s.mom = true
	}
	return q
}

// selectAt partially orders p[lo:hi] so that p[k] holds the element of rank
// k-lo within the range. Then p[lo:k] holds the elements ranked before it,
// and p[k+1:hi] those ranked after it. It needs lo <= k < hi.
func (s *selector[T]) selectAt(lo, hi, k int) {
	for hi-lo > smallRange {
		q := s.split(lo, hi)
		switch {
		case k < q:
			hi = q
		case k > q:
			lo = q + 1
		default:
			return
		}
	}
	s.insertion(lo, hi)
}

// insertion sorts p[lo:hi] by rank.
func (s *selector[T]) insertion(lo, hi int) {
	s.work += hi - lo
	for i := lo + 1; i < hi; i++ {
		x := s.p[i]
		vx := s.v[x]
		j := i
		for ; j > lo; j-- {
			y := s.p[j-1]
			vy := s.v[y]
			if vy > vx || (vy == vx && y < x) {
				break
			}
			s.p[j] = y
		}
		s.p[j] = x
	}
}

// median3 returns whichever of the positions a, b, c holds the median rank.
func (s *selector[T]) median3(a, b, c int) int {
	pa, pb, pc := s.p[a], s.p[b], s.p[c]
	if s.before(pa, pb) {
		if s.before(pb, pc) {
			return b
		}
		if s.before(pa, pc) {
			return c
		}
		return a
	}
	// pb before pa
	if s.before(pa, pc) {
		return a
	}
	if s.before(pb, pc) {
		return c
	}
	return b
}

// samplePivot returns the position of a sampled pivot for p[lo:hi].
func (s *selector[T]) samplePivot(lo, hi int) int {
	n := hi - lo
	mid := lo + n/2
	if n < ninther {
		return s.median3(lo, mid, hi-1)
	}
	d := n / 8
	a := s.median3(lo, lo+d, lo+2*d)
	b := s.median3(mid-d, mid, mid+d)
	c := s.median3(hi-1-2*d, hi-1-d, hi-1)
	return s.median3(a, b, c)
}

// momPivot returns the position of the median of the medians of groups of
// five of p[lo:hi], where len > smallRange. It moves the group medians to
// the front of the range and selects their median recursively.
func (s *selector[T]) momPivot(lo, hi int) int {
	g := 0
	for i := lo; i+5 <= hi; i += 5 {
		s.insertion(i, i+5)
		s.swap(lo+g, i+2)
		g++
	}
	mid := lo + g/2
	s.selectAt(lo, lo+g, mid)
	return mid
}

// partition moves the element at position piv into its final position q
// within p[lo:hi], and returns q. Everything ranked before it ends in
// p[lo:q], everything ranked after it in p[q+1:hi]. It is Hoare's scheme. No
// two indices compare equal, so duplicates need no special treatment.
func (s *selector[T]) partition(lo, hi, piv int) int {
	s.work += hi - lo
	s.swap(lo, piv)
	x := s.p[lo]
	vx := s.v[x]
	i, j := lo+1, hi-1
	for {
		for i <= j {
			y := s.p[i]
			vy := s.v[y]
			if !(vy > vx || (vy == vx && y < x)) {
				break
			}
			i++
		}
		for i <= j {
			y := s.p[j]
			vy := s.v[y]
			if !(vx > vy || (vx == vy && x < y)) {
				break
			}
			j--
		}
		if i > j {
			break
		}
		s.swap(i, j)
		i++
		j--
	}
	s.swap(lo, j)
	return j
}
