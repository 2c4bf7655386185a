// Package cvarbeam runs cvar's evaluation, training and tuning as Apache
// Beam pipelines, for data that outgrow one machine: the same model files,
// the same metrics, on Prism (Beam's Go runner, in-process) or on Flink,
// Spark or Dataflow, whichever Beam's --runner flag names (see Runner).
//
// # Transforms
//
// Losses, TailMetrics and TrainRound are composite transforms for a
// pipeline of one's own; Evaluate, Train and Tune build and run whole
// pipelines from them over a glob of files. The model file and a round's
// state travel by path in a folder the workers reach, never inside the
// job graph.
//
// # Reading
//
// A glob names the data files, CSV or LIBSVM (told by their names as cvar
// tells them, unless Input.Format is given), gzip or bzip2 allowed. Each
// file, or each part of about Input.SplitSize bytes of an uncompressed
// one, is one element (a Part), read by the library's stream readers. The
// parts (and the grid settings of Tune) are redistributed
// (beam.Reshuffle) before the step that reads them, so that a runner with
// W workers runs W bundles of them at once; Runner.OnBundles shows the
// bundles. A row that does not parse fails the pipeline with the
// reader's one-line error, naming the file and the line in it.
//
// # Exact evaluation
//
// Evaluate computes the mean loss, the accuracy and, at each α, CVaR_α and
// VaR_α exactly as cvar.Evaluate on all the rows at once: only the
// K = ⌊α_max·n⌋ + 1 largest losses decide the tails (TailMetrics). A
// worker holds one batch of rows and the model; between the steps the
// runner keeps the losses, 8 bytes a row.
//
// # Training by averaging
//
// Train fits the preprocessing in a first pass (each part's cvar.Fit,
// merged in the parts' order, resolves the model kind, the classes and the
// preprocessing as cvar train -stream does), then
// trains in rounds, each one pipeline run (TrainRound): every part runs
// cvar.Train from the round's (θ, τ) for the round's local steps with its
// share of the global minibatch, and the next (θ, τ) is the parts' average
// weighted by the samples each drew, summed in the order of the parts so
// that a seed gives the same model file on every runner. An epoch is one
// machine's ⌈n/b⌉ steps cut into RoundsPerEpoch rounds, with one machine's
// step size. With one local step a round this is exactly one machine's
// step on the global minibatch; with more it is local SGD, sound for a
// loss convex in θ. On the MLP give several rounds an epoch. Held-out rows
// (Hold, by a hash of the seed, the file's name and the row's place) are
// never trained on.
//
// # Tuning
//
// Tune makes each setting of the grid (cvar.Grid.Trials) a work item: a
// transform reads the training and held-out rows into its memory, trains
// the setting with cvar.Train and evaluates it on the held-out rows; the
// setting cvar.Tune's rule picks is measured again by Evaluate. It is for
// data that fit one worker; the settings run in parallel.
package cvarbeam
