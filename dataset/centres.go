package dataset

// Centres reports whether p subtracts a mean from some feature. That would
// fill in the zeros of sparse data. So data for such a preprocessing is
// read dense.
func (p *Preprocessing) Centres() bool {
	for _, m := range p.Mean {
		if m != 0 {
			return true
		}
	}
	return false
}
