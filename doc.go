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
//     (Theorem 3.6);
//   - Alg3: the same with minibatches (Theorem 3.9) — "CVaR-SGD";
//   - Alg4: smoothed online gradient descent for nonconvex losses, output a
//     uniformly random iterate (Theorem 4.1);
//   - Vanilla: minibatch SGD on the mean loss, the baseline;
//   - MinibatchCVaR: SGD along the gradient of the exact CVaR of each
//     minibatch's losses, the other baseline of the paper's experiments.
//
// [Train] runs any of them on data in memory (package batch), [Online] feeds
// Alg1 or Alg4 one sample at a time, [TrainStream] trains them on a CSV or
// LIBSVM file read pass by pass without holding it, and [CVaR], [VaR],
// [Tails] and [Evaluate] (or an [Evaluator], reused) measure the tail of the
// losses exactly; [Bootstrap] adds confidence intervals.
//
// # Usage
//
// A run goes from data to a model file in five steps:
//
//  1. Read the data with package dataset (dataset.LoadCSV,
//     dataset.LoadLIBSVM, dataset.LoadMNIST, …) and hand it over with its
//     Batch method, or wrap slices already in memory with batch.NewData
//     (dense rows) or batch.NewSparseData (CSR).
//  2. Make a model of package batch: batch.NewLogistic, batch.NewSoftmax,
//     batch.NewLeastSquares, batch.NewLeastAbsolute or batch.NewMLP.
//  3. Call [Train] with [Options]: only the [Method] is required, and every
//     field left zero takes its documented default (α = 0.1 for the tail
//     fraction). The [Result] holds the parameters θ, the threshold τ and the
//     [Params] the run used. The same seed gives the same bits whatever the
//     number of threads, on one kernel implementation.
//  4. Measure θ with [Evaluate] on held-out data: the mean loss, the
//     accuracy, and CVaR and VaR at any α. [Tune] does steps 3 and 4 over a
//     grid of step sizes, weight decays and smoothings and keeps the setting
//     with the smallest validation CVaR.
//  5. Save the model, θ and the data's preprocessing as a [ModelFile] with
//     [SaveModel]; [LoadModel] reads it back, and [BuildModel] rebuilds the
//     model and θ, for [Predictions] and [Losses] on new data.
//
// By default ([PracticalStep]) the step size, the smoothing ε and the
// starting τ are set to lower the tail on real data: η from the paper's
// experimental grid, ε and τ from the VaR_α of the losses at the starting
// point. The theorems' step sizes and smoothings, with their bounds, are
// [TheoremStep]: worst-case guarantees, conservative in practice. [Tune]
// searches a grid for the setting with the smallest validation CVaR, and
// [TrainContext] stops on cancellation.
//
// Conventions (see docs/algorithms.md): α ∈ (0, 1] is the tail fraction, so
// α = 1 is the mean; losses are divided by a bound L before the plus
// function when the theorems' step sizes are used, and τ is reported in the
// losses' own units.
//
// # Model files
//
// [SaveModel] writes a [ModelFile] — a trained model and everything needed
// to apply it to new data: the model's kind and shapes (the registry of
// package batch: batch.Kinds, batch.NumParams), its parameters in the
// precision it was trained in, τ, α and the method, the class texts, the
// feature names, the preprocessing of the features (dataset.Preprocessing),
// the resolved training [Params] and the writing program's [Provenance] of
// the training data — and [LoadModel] reads it back. Version 1
// ([ModelFileVersion]) is laid out as
//
//	offset    size  content
//	0         8     magic "CVARMODL"
//	8         4     version, uint32 little-endian (1)
//	12        4     header length h, uint32 little-endian (at most 64 MiB)
//	16        h     header: one JSON object, UTF-8
//	16+h      p·s   the p = num_params parameters, IEEE 754 little-endian,
//	                s = 4 bytes each for precision "f32", 8 for "f64"
//	16+h+p·s  4     CRC-32C (Castagnoli) of every byte before it, uint32 LE
//
// and nothing after the checksum. The header is one JSON object, with
// nothing but JSON whitespace after it. Its fields are "format"
// ("cvar-model"), "model" (the kind), "d", "k", "hidden" (the mlp's, else
// absent), "precision", "num_params", "tau", "alpha", "method", "classes",
// "features", "preprocessing" ("divide", "mean", "scale", "target_mean",
// "target_scale"), "params" (the resolved Params) and "source" (the
// Provenance: its fields and the writing program's own keys, Extra); no
// others are accepted. It is readable with any JSON tool
// (it starts at byte 16); floating-point values that JSON cannot hold (NaN,
// ±Inf, as in τ of a baseline or an unbounded τ interval) are written as the
// strings "NaN", "+Inf" and "-Inf". A text (a class, a feature name, the
// source's "kind", "name" and "target") that is valid UTF-8 is a JSON
// string; any other bytes, such as a Latin-1 label, are written as the
// object {"base64": "…"} holding them in standard base64 (and only such
// bytes: base64 of valid UTF-8 is refused), so that every text comes back
// byte for byte. The parameters follow the layout of the batch model of
// that kind (batch.NewLogistic and so on document it).
//
// LoadModel rejects a file that is not a model file (wrong magic; a
// compressed file is named as such), a file of another version, a
// truncated file, a file whose checksum does not match its content (checked
// before the header is interpreted) and a header that is inconsistent
// (unknown model, shapes that
// do not match the number of parameters, non-finite parameters or
// parameters whose Euclidean norm exceeds 1e150 (f64) or 1e18 (f32),
// class texts that are empty, repeated or do not match k); each with an
// error matching one of [ErrModelFormat], [ErrModelVersion],
// [ErrModelTrunc], [ErrModelChecksum] and [ErrModelInvalid] under
// errors.Is. It reads and allocates no more than
// the bytes actually there, whatever a header claims: see LoadModel.
package cvar
