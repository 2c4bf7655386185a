// Package batch holds training data in memory. It computes the per-sample
// losses and CVaR-weighted minibatch gradients of cvar's models. The work is
// spread over a fixed set of worker goroutines and computed by package
// kernel.
//
// Package cvar's algorithms are written on top of this package. A user of
// cvar.Train needs only its data and model constructors.
//
// # Data
//
// A [Data] is n samples of d features with their targets. Targets are class
// labels in [0, k) for classification, or real values for regression
// (k = 0). [NewData] wraps dense row-major features. [NewSparseData] wraps
// features in CSR form: the non-zeros of each row. [NewDataU8], [NewDataF16]
// and [NewDataBF16] wrap dense features held compact. They hold bytes times
// a scale, IEEE halves or bfloat16s, which the kernels convert as they load.
// None of them copies the features. Each checks the shapes, that every value
// is finite and every label in range, once. So training never meets bad
// input. Package dataset reads files into a dataset.Dataset. Its Batch
// method gives a Data.
//
// # Models
//
// A [Model] is a parametric model with a per-sample loss. Its parameters θ
// lie in one flat slice, whose layout the model documents:
//
//   - [NewLogistic]: binary logistic regression (k = 2);
//   - [NewSoftmax]: multinomial logistic regression (k ≥ 2);
//   - [NewLeastSquares] and [NewLeastAbsolute]: linear regression with the
//     squared and the absolute loss;
//   - [NewMLP]: a network with one hidden layer of ReLU units, d → h → k.
//
// [NewModel] makes one by kind name ([Kinds], [KindLogistic], …).
// [NumParams] gives its size without making it. Every model reads dense,
// compact and sparse data. A model computes with the default kernels,
// kernel.Default(). [ModelWithKernel] returns a copy that computes with
// another implementation, for tests and benchmarks.
//
// # Gradients
//
// An [Engine] runs one model over a minibatch. [Engine.Gradient] computes
// the gradient of the losses weighted as a [Weighting] says. Its [Objective]
// is the mean loss, or the CVaR objective with the plain or a smoothed plus
// function. It may also be the exact CVaR of the minibatch. [Engine.Losses]
// and [Engine.Scores] evaluate every row. The minibatch is cut into chunks
// that the engine's goroutines share out. The chunks' gradients are summed
// in an order fixed by the number of chunks. So results do not depend on the
// number of threads. A [Sampler] draws the row indices of successive
// minibatches. It draws with replacement, shuffled each epoch, or in order
// ([Sampling]).
package batch
