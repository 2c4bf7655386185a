// Package cvar trains models that minimise the conditional value at risk
// (CVaR) of their losses — the mean of the worst α-fraction — instead of the
// mean loss, following Soma & Yoshida, "Statistical Learning with Conditional
// Value at Risk".
//
// CVaR_α(w) = min_τ τ + E[ℓ(w; z) − τ]_+/α (Rockafellar–Uryasev), so the
// algorithms run (stochastic) gradient descent on the pair x = (w, τ):
//
//   - Alg1: projected online gradient descent on the non-smooth objective,
//     one pass over a stream, averaged output (Theorem 3.2);
//   - Alg2: smoothed SGD, one sample per step drawn with replacement
//     (Theorem 3.5);
//   - Alg3: the same with minibatches (Theorem 3.9) — "CVaR-SGD";
//   - Alg4: smoothed online gradient descent for nonconvex losses, output a
//     uniformly random iterate (Theorem 4.1);
//   - Vanilla: minibatch SGD on the mean loss, the baseline;
//   - MinibatchCVaR: SGD along the gradient of the exact CVaR of each
//     minibatch's losses, the other baseline of the paper's experiments.
//
// [Train] runs any of them on data in memory (package batch), [Online] feeds
// Alg1 or Alg4 one sample at a time, and [CVaR], [VaR], [Tails] and
// [Evaluate] (or an [Evaluator], reused) measure the tail of the losses
// exactly.
//
// Conventions (see docs/algorithms.md): α ∈ (0, 1] is the tail fraction, so
// α = 1 is the mean; losses are divided by a bound L before the plus
// function when the theorems' step sizes are used, and τ is reported in the
// losses' own units.
package cvar
