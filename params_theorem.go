package cvar

import (
	"fmt"
	"math"
)

// The paper's theorems: the constant G_α, the theorem of each method and
// the bound on the excess CVaR it gives a run.

// gAlphaOf returns G_α = max{√(G² + (1−α)²)/α, 1} for a loss with range
// [0, 1]. It is the Lipschitz constant of the auxiliary objective f(w, τ)
// (Lemma 2.2).
func gAlphaOf(g, alpha float64) float64 {
	return math.Max(math.Sqrt(g*g+(1-alpha)*(1-alpha))/alpha, 1)
}

// Theorem names the paper's theorem whose step size, smoothing and bound
// the method has ("" for the baselines).
func (m Method) Theorem() string {
	switch m {
	case Alg1:
		return "Theorem 3.2"
	case Alg2:
		return "Theorem 3.6"
	case Alg3:
		return "Theorem 3.9"
	case Alg4:
		return "Theorem 4.1"
	}
	return ""
}

// theoremBound returns the bound of pr.Method's theorem on the expected
// excess CVaR, in the losses' units, and the theorem's name. Where there is
// none it returns NaN and why. The theorem may give no number (Alg4). The
// step size or smoothing may not be the theorem's. Or an assumption of the
// theorem that the run can see fails. Alg1–3 assume a convex loss with
// values in [0, 1] after the division by L. Alg2 and Alg3 also assume a
// smooth loss and the condition on c = T/n.
func theoremBound(pr *Params, convex, normalised bool) (float64, string) {
	thm := pr.Method.Theorem()
	nan := math.NaN()
	switch {
	case thm == "":
		return nan, fmt.Sprintf("%v has no theorem", pr.Method)
	case pr.Method == Alg4:
		return nan, thm + " gives only an O(·) bound"
	case pr.Method == Alg1 && !pr.TheoremLR:
		return nan, thm + "'s bound needs its step size"
	case pr.Method != Alg1 && !(pr.TheoremLR && pr.TheoremEps):
		return nan, thm + "'s bound needs its step size and smoothing"
	case !convex:
		return nan, thm + " assumes a convex loss; this one is not"
	case !normalised:
		return nan, thm + " assumes losses in [0, 1]; these have no finite bound L to divide them by"
	}
	d2, nf, bf := pr.D*pr.D+1, float64(pr.N), float64(pr.Batch)
	base := pr.GAlpha * math.Sqrt(d2) / math.Sqrt(nf) * pr.L
	if pr.Method == Alg1 {
		return base, thm
	}
	betan := pr.Beta / pr.L
	if !(betan < math.Inf(1)) {
		return nan, fmt.Sprintf("%s assumes a smooth loss; this one has β = %v", thm, pr.Beta)
	}
	// The condition on c: b√(D²+1)/(G_α √(c(1+2c)n)) ≤ α/β, b = 1 for Alg2.
	c, b := float64(pr.Steps)/nf, 1.0
	if pr.Method == Alg3 {
		b = bf
	}
	lhs := b * math.Sqrt(d2) / (pr.GAlpha * math.Sqrt(c*(1+2*c)*nf))
	if !(lhs <= pr.Alpha/betan) {
		return nan, fmt.Sprintf("%s's condition on c = T/n fails: c = %.4g gives %.4g > α/β = %.4g", thm, c, lhs, pr.Alpha/betan)
	}
	if pr.Method == Alg2 {
		return base * (math.Sqrt((1+2*c)/c) + 2/math.Sqrt(c*(1+2*c))), thm
	}
	return base / math.Sqrt(bf) * (math.Sqrt((1+2*c)/c) + 2/math.Sqrt(1+2*c)), thm
}
