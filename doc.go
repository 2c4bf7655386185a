// Package cvar trains models that minimise the conditional value at risk
// (CVaR) of their losses instead of the mean loss. CVaR_α is the mean of
// the worst α-fraction of the losses. The package follows Soma & Yoshida,
// "Statistical Learning with Conditional Value at Risk".
//
// CVaR_α(w) = min_τ τ + E[ℓ(w; z) − τ]_+/α (Rockafellar–Uryasev). So the
// algorithms run (stochastic) gradient descent on the pair x = (w, τ):
//
//   - Alg1: projected online gradient descent on the non-smooth objective,
//     one pass over a stream, averaged output (Theorem 3.2);
//   - Alg2: smoothed SGD, one sample per step drawn with replacement
//     (Theorem 3.6);
//   - Alg3: the same with minibatches (Theorem 3.9), "CVaR-SGD";
//   - Alg4: smoothed online gradient descent for nonconvex losses, output a
//     uniformly random iterate (Theorem 4.1);
//   - Vanilla: minibatch SGD on the mean loss, the baseline;
//   - MinibatchCVaR: SGD along the gradient of each minibatch's exact
//     CVaR, the paper's other baseline.
//
// [Train] runs any of them on data in memory (package batch). [Online]
// feeds Alg1 or Alg4 one sample at a time. [TrainStream] trains them on a
// CSV or LIBSVM file, read pass by pass without holding it. [CVaR], [VaR],
// [Tails] and [Evaluate] (or a reused [Evaluator]) measure the tail of the
// losses exactly. [Bootstrap] adds confidence intervals.
//
// # Usage
//
// A run goes from data to a model file in five steps:
//
//  1. Read the data with package dataset (dataset.LoadCSV,
//     dataset.LoadLIBSVM, dataset.LoadMNIST, …) and hand it over with its
//     Batch method. Or wrap slices already in memory with batch.NewData
//     (dense rows) or batch.NewSparseData (CSR).
//  2. Make a model of package batch: batch.NewLogistic, batch.NewSoftmax,
//     batch.NewLeastSquares, batch.NewLeastAbsolute or batch.NewMLP.
//  3. Call [Train] with [Options]. Only the [Method] is required; every
//     field left zero takes its documented default (α = 0.1). The [Result]
//     holds the parameters θ, the threshold τ and the [Params] the run
//     used. On one kernel implementation, the same seed gives the same
//     bits whatever the number of threads.
//  4. Measure θ with [Evaluate] on held-out data: the mean loss, the
//     accuracy, and CVaR and VaR at any α. [Tune] does steps 3 and 4 over
//     a grid of step sizes, weight decays and smoothings. It keeps the
//     setting with the smallest validation CVaR.
//  5. Save the model, θ and the data's preprocessing as a [ModelFile] with
//     [SaveModel]. [LoadModel] reads it back, and [BuildModel] rebuilds the
//     model and θ for an [Evaluator] on new data.
//
// By default ([PracticalStep]) the step size, the smoothing ε and the
// starting τ are set to lower the tail on real data. η comes from the
// paper's experimental grid; ε and τ come from the VaR_α of the losses at
// the starting point. [TheoremStep] takes the theorems' step sizes and
// smoothings, with their bounds. Those are worst-case guarantees,
// conservative in practice. [TrainContext] stops on cancellation.
//
// Conventions (see docs/algorithms.md): α ∈ (0, 1] is the tail fraction,
// so α = 1 is the mean. Under the theorems' step sizes, losses are divided
// by a bound L before the plus function. τ is reported in the losses' own
// units.
//
// # Model files
//
// A [ModelFile] is a trained model and everything needed to apply it to
// new data. It holds the model's kind and shapes (package batch's
// registry: batch.Kinds, batch.NumParams). It holds the parameters in the
// precision they were trained in, τ, α and the method. It holds the class
// texts, the feature names and the features' preprocessing
// (dataset.Preprocessing). It holds the resolved training [Params] and the
// writing program's [Provenance] of the training data. [SaveModel] writes
// it and [LoadModel] reads it back. Version 1 ([ModelFileVersion]) is laid
// out as
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
// absent), "precision", "num_params", "tau", "alpha" and "method". Then
// come "classes", "features", "preprocessing" ("divide", "mean", "scale",
// "target_mean", "target_scale") and "params" (the resolved Params).
// Last is "source": the Provenance's fields and the writing program's own
// keys (Extra). No other fields are accepted.
//
// Any JSON tool reads the header; it starts at byte 16. Floating-point
// values that JSON cannot hold are written as the strings "NaN", "+Inf"
// and "-Inf" (τ of a baseline, an unbounded τ interval). A text (a class,
// a feature name, the source's "kind", "name" and "target") that is valid
// UTF-8 is a JSON string. Other bytes, such as a Latin-1 label, are
// written as the object {"base64": "…"} in standard base64. Only such
// bytes are: base64 of valid UTF-8 is refused. So every text comes back
// byte for byte. The parameters follow the layout of the batch model of
// that kind (batch.NewLogistic and so on document it).
//
// LoadModel rejects:
//
//   - a file that is not a model file (wrong magic; a compressed file is
//     named as such): [ErrModelFormat];
//   - a file of another version: [ErrModelVersion];
//   - a truncated file: [ErrModelTrunc];
//   - a file whose checksum does not match its content, checked before the
//     header is interpreted: [ErrModelChecksum];
//   - an inconsistent header: [ErrModelInvalid]. That is an unknown model,
//     shapes that do not match the number of parameters, or non-finite
//     parameters. It is parameters whose Euclidean norm exceeds 1e150
//     (f64) or 1e18 (f32). It is class texts that are empty, repeated or
//     do not match k.
//
// Test the errors with errors.Is. LoadModel reads and allocates no more
// than the bytes actually there, whatever a header claims.
package cvar
