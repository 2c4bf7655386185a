// Package cvarbeam runs cvar's evaluation, training and tuning as Apache
// Beam pipelines, for data that outgrow one machine. It writes the same
// model files and computes the same metrics as cvar. Pipelines run on
// Prism (Beam's Go runner, in-process) or on the runner of Beam's
// --runner flag: Flink, Spark or Dataflow (see Runner).
//
// # Transforms
//
// Losses, TailMetrics and TrainRound are composite transforms for a
// pipeline of one's own. Evaluate, Train and Tune build and run whole
// pipelines from them over a glob of files. The model file and a round's
// state travel by path in a folder the workers reach, never inside the
// job graph.
//
// # Reading
//
// A glob names CSV or LIBSVM files, gzip or bzip2 allowed. Each file, or
// each part of about Input.SplitSize bytes of an uncompressed one, is one
// element (a Part), read by the library's stream readers. The parts, and
// Tune's settings, are redistributed (beam.Reshuffle) before the step
// that reads them. So a runner with W workers runs W bundles at once;
// Runner.OnBundles shows them. A row that does not parse fails the
// pipeline with the reader's error, naming the file and the line.
//
// # Exact evaluation
//
// Evaluate computes the mean loss, the accuracy, and CVaR_α and VaR_α
// exactly as cvar.Evaluate on all the rows at once. Only the
// K = ⌊α_max·n⌋ + 1 largest losses decide the tails (TailMetrics).
//
// # Training by averaging
//
// Train first fits the preprocessing: each part's cvar.Fit, merged in the
// parts' order, resolves the model kind, the classes and the scaling as
// cvar train decides them. Then it trains in rounds, each one pipeline
// run (TrainRound). Every part runs cvar.Train from the round's (θ, τ)
// for the round's local steps, with its share of the global minibatch.
// The next (θ, τ) is the parts' average, weighted by the samples each
// drew and summed in the parts' order, so a seed gives the same model
// file on every runner. An epoch is one machine's ⌈n/b⌉ steps, cut into
// RoundsPerEpoch rounds. With one local step a round this is one
// machine's step on the global minibatch; with more it is local SGD,
// sound for a loss convex in θ. Held-out rows (Hold, chosen by a hash of
// the seed, the file's name and the row's place) are never trained on.
//
// # Tuning
//
// Tune makes each setting of the grid (cvar.Grid.Trials) a work item. A
// worker reads the training and held-out rows into memory, trains the
// setting with cvar.Train and evaluates it on the held-out rows. It is
// for data that fit one worker; the settings run in parallel.
package cvarbeam
