// Package cvarbeam runs cvar's evaluation, training and tuning as Apache
// Beam pipelines, for data that outgrow one machine: the same model files,
// the same metrics, on Prism (Beam's Go runner, in-process) or on Flink,
// Spark or Dataflow, whichever Beam's --runner flag names (see Runner).
//
// # Reading
//
// A glob names the data files, CSV or LIBSVM (told by their names as cvar
// tells them, dataset.FormatOfName and CommaOfName, unless a format is
// given), gzip or bzip2 allowed; each
// file, or each part of about Input.SplitSize bytes of an uncompressed
// one (the lines that start in it), is one element, read in parallel by
// the library's stream readers, a row at a time. The elements (and the
// grid settings of Tune) are redistributed (beam.Reshuffle) before the
// step that reads them, so that the runner does not fuse their creation
// with the reading: a runner with W workers runs W bundles of them at
// once, and Runner.OnBundles shows the bundles each step ran. A transform gathers rows
// into batches of the library's engine (EvalConfig.Batch rows, across the
// elements of a bundle; the last batch in FinishBundle), preprocesses them
// as the model file says and computes their losses with cvar.Evaluator. A
// row that does not parse fails the pipeline with the reader's one-line
// error, naming the file and the line in it.
//
// # Exact evaluation
//
// Evaluate computes the mean loss, the accuracy and, at each α, CVaR_α and
// VaR_α exactly as cvar.Evaluate on all the rows at once: VaR_α = ℓ(k+1) and
// CVaR_α = (ℓ(1) + … + ℓ(k) + (αn − k)·ℓ(k+1))/(αn) with k = ⌊αn⌋ (the
// library's robust count), so only the K = ⌊α_max·n⌋ + 1 largest losses
// matter. The pipeline computes the losses in chunks of a batch; a combine
// gives their count n, compensated sum, extremes and correct
// classifications; with n as a side input, each bundle keeps its K largest
// losses in a heap, and a combine merges those lists, keeping K. A tail of
// all n losses (α = 1) is the mean and the minimum. Memory: a worker holds
// one batch of rows (Batch × D values, or their non-zeros) and the model; a
// bundle of the top-K step and each accumulator of its combine hold K
// values; the summary combine O(1). Between the two steps the runner keeps
// the losses, 8 bytes a row (Prism in memory; Flink, Spark and Dataflow in
// their shuffle storage).
//
// # Training by averaging
//
// Train first fits the preprocessing in one pass: a combine of running
// moments (per feature, Chan's mergeable mean and sum of squares over the
// entries read, and the extremes; the target's moments; its distinct
// values while they look like class labels) gives the z-score of dense
// data and the max-abs scaling of sparse data, as cvar train's defaults,
// the task and the classes. For CSV files the same job first gathers the
// distinct target texts of all rows (a combine, at most MaxClasses): when
// one is not a number the targets are class texts, ordered byte-wise as
// the library's readers order them, and the rows are read as those
// classes.
//
// Then it trains in rounds, each round one pipeline run, a loop in the
// launching program. A round broadcasts (θ, τ, ε) as a side input; every
// element (a file or a part of one) reads its training rows and runs
// cvar.Train from θ and τ (Options.Init and InitTau) for the round's
// local steps, with a local minibatch of b·n_i/n of its n_i rows, so that
// the workers' minibatches together are the global minibatch b of one
// machine's run; it emits its last iterate (θ_i, τ_i) weighted by the
// samples it drew; a combine sums them in the order of the splits (so
// that a seed gives the same model file on every run and runner, however
// the runner bundles and merges), and (θ, τ) ← Σ w_i (θ_i, τ_i) / Σ
// w_i. An epoch is one machine's ⌈n/b⌉ steps, cut into RoundsPerEpoch
// rounds (by default as few as keep a round to MaxLocalSteps steps), so
// the average takes as many steps as one machine at the same epochs,
// each drawing b samples, with the same step size η (DefaultLR unless
// given). The first round's workers start τ at the VaR_α of their rows'
// losses at θ_0, where the library starts a run, and ε at EpsFraction of
// it; the averages of those hold for the run, as one run keeps its ε. A
// worker holds its element's training rows: the part size bounds that
// memory. The held-out rows (Hold, by a hash of the seed, the file's
// name and the row's place, the same on every pass and runner) are never
// trained on.
//
// Why averaging is sound: the objective F(θ, τ) = τ + E[(ℓ(θ; x) − τ)_+]/α
// is an expectation over the rows, and with one local step a round the
// average of the workers' steps from a common (θ, τ) is exactly one step
// of one machine on the global minibatch (stratified over the parts): the
// gradient is linear in the samples, and the weights are the samples
// drawn. With H local steps a round it is local SGD (model averaging, as
// Spark MLlib's SGD by rounds): for a loss convex in θ, F is jointly
// convex in (θ, τ), the averaged iterate lies in the convex hull of the
// workers' (θ_i, τ_i), so Jensen's inequality bounds F at the average by
// the average of the F_i, and averaging iterates of workers started at a
// common point converges as minibatch SGD does, up to a drift between the
// workers that grows with H and η (Stich, "Local SGD converges fast and
// communicates little", 2019; Woodworth et al., 2020). Carrying τ with θ
// keeps the pair that one machine's run carries: restarting τ each round
// at a VaR of θ would move it by a different rule than the steps do. So
// more rounds an epoch bring the average closer to one machine's run,
// at one pass over the data each. On the MLP none of this holds: the loss
// is not convex, hidden units are interchangeable, so two workers may
// reach the same function by permuted weights whose average is a poor
// model. Averaging is then sound only from a shared start (every worker
// starts each round from the same θ, and the first from the same seeded
// θ_0) and with rounds frequent enough that the workers stay in one
// basin: give RoundsPerEpoch several rounds an epoch.
//
// # Tuning
//
// Tune makes each setting of the grid a work item: a transform instance
// reads all the training and held-out rows into its memory, trains the
// setting with cvar.Train on one thread and evaluates it on the held-out
// rows; the smallest validation CVaR_α (or mean loss) wins, as cvar.Tune
// picks, and is measured again by Evaluate. It is for data that fit one
// worker; the settings run in parallel.
package cvarbeam
