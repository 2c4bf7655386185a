package cvar

import (
	"fmt"
	"math"
	"sync"

	"github.com/cvarlearn/cvar/internal/tail"
)

// Empirical risk metrics of a sample of losses.
//
// Definitions (docs/algorithms.md, "Empirical VaR and CVaR of n losses"):
// α ∈ (0, 1] is the tail fraction. Sort the n losses descending,
// ℓ(1) ≥ ℓ(2) ≥ … ≥ ℓ(n), and let m = α·n and k = ⌊m⌋. Then
//
//	VaR_α  = ℓ(k+1) for k < n, and ℓ(n) (the minimum) when α = 1;
//	CVaR_α = (ℓ(1) + … + ℓ(k) + (m − k)·ℓ(k+1)) / m,
//
// where the last term vanishes when k = n. Equivalently,
// CVaR_α = min_τ τ + (1/(αn)) Σ [ℓ_i − τ]_+, attained at τ = VaR_α. So
// CVaR_1 is the mean, and CVaR_α for α < 1/n is the maximum. Always
// VaR_α ≤ CVaR_α ≤ max ℓ. Nothing here needs ℓ ≥ 0: negative losses
// (gains) are fine.
//
// The count m is computed robustly. A product α·n within four ulp of an
// integer is taken to be that integer, as the decimal α means. So α = 0.1
// with n = 100 gives k = 10. And α = 0.29 with n = 100 gives k = 29,
// though the raw float64 product is 28.999999999999996.
//
// All of it runs by selection: O(n), no sort. VaR is exact, one of the
// losses. Sums are compensated float64 sums whatever the element type. So
// CVaR is within a few float64 ulp of the definition's exact value for the
// given inputs, independently of n. It is clamped to [VaR, max ℓ].

func checkAlpha(alpha float64) error {
	if !(alpha > 0 && alpha <= 1) { // NaN fails both
		return fail(fmt.Sprintf("cvar: alpha %v outside (0, 1]", alpha), ErrAlpha)
	}
	return nil
}

// checkLosses reports the first non-finite loss, by index.
func checkLosses[T float32 | float64](losses []T) error {
	if len(losses) == 0 {
		return ErrEmpty
	}
	for i, x := range losses {
		if d := x - x; d == d { // finite: x − x is 0; NaN for NaN and ±Inf
			continue
		}
		f := float64(x)
		if math.IsNaN(f) {
			return fail(fmt.Sprintf("cvar: loss %d is NaN", i), ErrNonFinite, ErrNaN)
		}
		return fail(fmt.Sprintf("cvar: loss %d is %v", i, f), ErrNonFinite)
	}
	return nil
}

// checkWeights validates the sample weights of WeightedCVaR.
func checkWeights(n int, weights []float64) error {
	if len(weights) != n {
		return fail(fmt.Sprintf("cvar: %d weights for %d losses", len(weights), n), ErrWeights)
	}
	sum := 0.0
	for i, w := range weights {
		switch {
		case math.IsNaN(w):
			return fail(fmt.Sprintf("cvar: weight %d is NaN", i), ErrWeights)
		case math.IsInf(w, 0):
			return fail(fmt.Sprintf("cvar: weight %d is %v", i, w), ErrWeights)
		case w < 0:
			return fail(fmt.Sprintf("cvar: weight %d is negative (%v)", i, w), ErrWeights)
		}
		sum += w
	}
	if sum == 0 {
		return fail("cvar: weights are all zero", ErrWeights)
	}
	if math.IsInf(sum, 0) {
		return fail("cvar: weights sum to +Inf", ErrWeights)
	}
	return nil
}

// CVaR returns the empirical conditional value at risk CVaR_α of the
// losses. It is the mean of the worst α-fraction, the boundary loss
// counted fractionally:
//
//	CVaR_α = (ℓ(1) + … + ℓ(k) + (αn − k)·ℓ(k+1)) / (αn),  k = ⌊αn⌋,
//
// with ℓ(1) ≥ … ≥ ℓ(n) the losses sorted descending. CVaR_1 is the mean,
// and CVaR_α for α < 1/n the maximum. The tail fraction α ∈ (0, 1] is not
// a confidence level. It takes O(n) time by selection. Sums are in
// compensated float64 whatever T is. It allocates O(n) scratch a call; an
// Evaluator reuses its own. Errors: ErrAlpha, ErrEmpty, ErrNonFinite
// (ErrNaN) naming the offending index.
func CVaR[T float32 | float64](losses []T, alpha float64) (float64, error) {
	var s tailScratch[T]
	return s.CVaR(losses, alpha)
}

// VaR returns the empirical value at risk VaR_α of the losses. It is
// ℓ(k+1), with k = ⌊αn⌋ and ℓ(1) ≥ … ≥ ℓ(n) the losses sorted descending.
// When α = 1 it is the minimum. It is the τ that minimises
// τ + (1/(αn)) Σ [ℓ_i − τ]_+. It is one of the losses, so it is exact. O(n) by selection. Errors as for CVaR.
func VaR[T float32 | float64](losses []T, alpha float64) (float64, error) {
	var s tailScratch[T]
	return s.VaR(losses, alpha)
}

// WeightedCVaR returns CVaR_α and VaR_α of weighted samples. Loss i has
// weight weights[i] ≥ 0, normalised to p_i = weights[i]/Σweights. Then
//
//	VaR_α  = the smallest loss v (among positive-weight samples) with
//	         Σ_{ℓ_i > v} p_i ≤ α,
//	CVaR_α = (Σ_{ℓ_i > VaR} p_i ℓ_i + (α − Σ_{ℓ_i > VaR} p_i)·VaR) / α,
//
// which is min_τ τ + (1/α) Σ p_i [ℓ_i − τ]_+ attained at τ = VaR. Equal
// weights give the unweighted VaR and CVaR, up to the order of the float64
// sums. Integer weights give those of the sample with loss i repeated
// weights[i] times. For that, α·Σweights is snapped to an integer within
// four ulp, as α·n is. Zero-weight samples are ignored. It takes O(n) time
// by weighted selection.
// Errors: those of CVaR, and ErrWeights for a length mismatch, a negative,
// NaN or infinite weight, all-zero weights or an infinite sum.
func WeightedCVaR(losses, weights []float64, alpha float64) (cvar, valueAtRisk float64, err error) {
	var s tailScratch[float64]
	return s.WeightedCVaR(losses, weights, alpha)
}

// Tail is CVaR_α and VaR_α of a sample of losses at one tail fraction α.
type Tail struct {
	Alpha float64 `json:"alpha"`
	CVaR  float64 `json:"cvar"`
	VaR   float64 `json:"var"`
}

// Tails returns CVaR_α and VaR_α at each α, in the order given. Duplicates
// are allowed; no alphas gives an empty result. It makes one pass of
// nested selections instead of a sort. That takes O(n + Σ_j ⌊α_j n⌋)
// expected time, O(n) for the small α of interest, and O(A²) to order A
// alphas. Each entry equals CVaR and VaR at that α: VaR exactly, CVaR
// within float64 rounding. Errors as for CVaR; every α is checked before
// any work.
func Tails[T float32 | float64](losses []T, alphas ...float64) ([]Tail, error) {
	var s tailScratch[T]
	return s.AppendTails(nil, losses, alphas...)
}

// tailScratch holds the index scratch of the risk metrics. Repeated calls
// then allocate nothing once it has grown to the largest n. The zero value
// is ready; it must not be copied after first use. Its methods behave as
// the functions of the same name. Its calls are serialised, so an
// Evaluator shared by goroutines may hold one.
type tailScratch[T float32 | float64] struct {
	mu     sync.Mutex // held by the running call
	perm   []int
	cv, va []float64
}

func (s *tailScratch[T]) grow(n int) []int {
	if cap(s.perm) < n {
		s.perm = make([]int, n)
	}
	return s.perm[:n]
}

// CVaR is CVaR using s's scratch.
func (s *tailScratch[T]) CVaR(losses []T, alpha float64) (float64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := checkAlpha(alpha); err != nil {
		return math.NaN(), err
	}
	if err := checkLosses(losses); err != nil {
		return math.NaN(), err
	}
	c, _ := tail.CVaRVaR(losses, alpha, s.grow(len(losses)))
	return c, nil
}

// VaR is VaR using s's scratch.
func (s *tailScratch[T]) VaR(losses []T, alpha float64) (float64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := checkAlpha(alpha); err != nil {
		return math.NaN(), err
	}
	if err := checkLosses(losses); err != nil {
		return math.NaN(), err
	}
	n := len(losses)
	_, k := tail.Count(n, alpha)
	if k == n {
		mn := losses[0]
		for _, x := range losses {
			mn = min(mn, x)
		}
		return float64(mn), nil
	}
	p := s.grow(n)
	for i := range p {
		p[i] = i
	}
	tail.Select(losses, k, p)
	return float64(losses[p[k]]), nil
}

// WeightedCVaR is the package's WeightedCVaR for losses of type T, using s's
// scratch.
func (s *tailScratch[T]) WeightedCVaR(losses []T, weights []float64, alpha float64) (cvar, valueAtRisk float64, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := checkAlpha(alpha); err != nil {
		return math.NaN(), math.NaN(), err
	}
	if err := checkLosses(losses); err != nil {
		return math.NaN(), math.NaN(), err
	}
	if err := checkWeights(len(losses), weights); err != nil {
		return math.NaN(), math.NaN(), err
	}
	cvar, valueAtRisk = tail.WeightedCVaRVaR(losses, weights, alpha, s.grow(len(losses)))
	return cvar, valueAtRisk, nil
}

// AppendTails appends to dst the Tail at each α (as Tails) and returns the
// extended slice; on error it returns dst unchanged.
func (s *tailScratch[T]) AppendTails(dst []Tail, losses []T, alphas ...float64) ([]Tail, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range alphas {
		if err := checkAlpha(a); err != nil {
			return dst, err
		}
	}
	if err := checkLosses(losses); err != nil {
		return dst, err
	}
	na := len(alphas)
	if cap(s.cv) < na {
		s.cv, s.va = make([]float64, na), make([]float64, na)
	}
	cv, vr := s.cv[:na], s.va[:na]
	tail.Multi(losses, alphas, s.grow(len(losses)), cv, vr)
	if dst == nil {
		dst = make([]Tail, 0, na)
	}
	for j, a := range alphas {
		dst = append(dst, Tail{Alpha: a, CVaR: cv[j], VaR: vr[j]})
	}
	return dst, nil
}
