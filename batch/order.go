package batch

import "math/bits"

// sortRows writes the rows idx in increasing order to rows, for rows in [0,
// n). pos[i] is the place in idx of rows[i]. Equal rows keep their order in
// idx: the sort is stable. count is scratch of at least
// sortBuckets(len(idx))+1 counters.
//
// The rows of a sample are spread evenly over [0, n). So a counting pass
// over buckets of their high bits leaves them nearly sorted. The buckets are
// a power of two, at least twice as many as rows. An insertion pass then
// finishes with a shift now and then. That costs a few nanoseconds a row. It
// avoids the mispredicted branches of an insertion sort of random keys.
func sortRows(rows []int, pos []int32, idx []int, n int, count []int32) {
	m := len(idx)
	rows, pos = rows[:m], pos[:m]
	nb := sortBuckets(m)
	// Buckets of 2^shift rows: (n−1)>>shift < nb.
	shift := max(0, bits.Len(uint(max(n-1, 0)))-bits.Len(uint(nb-1)))
	count = count[:nb+1]
	clear(count)
	for _, r := range idx {
		count[r>>shift+1]++
	}
	for b := 1; b <= nb; b++ {
		count[b] += count[b-1]
	}
	for i, r := range idx {
		b := r >> shift
		rows[count[b]], pos[count[b]] = r, int32(i)
		count[b]++
	}
	for i := 1; i < m; i++ {
		r, p := rows[i], pos[i]
		k := i
		for ; k > 0 && rows[k-1] > r; k-- {
			rows[k], pos[k] = rows[k-1], pos[k-1]
		}
		rows[k], pos[k] = r, p
	}
}

// sortBuckets is the number of buckets sortRows uses for m rows: the power
// of two at or above 2m.
func sortBuckets(m int) int { return 1 << bits.Len(uint(max(2*m-1, 0))) }
