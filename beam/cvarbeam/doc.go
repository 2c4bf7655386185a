// Package cvarbeam runs cvar's evaluation, training and tuning as Apache
// Beam pipelines, for data that outgrow one machine. It writes the same
// model files and computes the same metrics as cvar.
//
// Losses, TailMetrics and TrainRound are composite transforms for a
// pipeline of one's own. Evaluate, Train and Tune build and run whole
// pipelines from them over a glob of CSV or LIBSVM files, gzip or bzip2
// allowed. Each file, or each part of one (Input.SplitSize), is a Part.
// The parts, and Tune's settings, are redistributed (beam.Reshuffle)
// before the step that reads them. So a runner with W workers runs W
// bundles at once (Runner.OnBundles). The model file and a round's state
// travel by path in a folder the workers reach, never in the job graph.
//
// Evaluate's metrics are cvar.Evaluate's on all the rows at once. Train
// averages the parts' local runs in rounds, in the parts' order, so a
// seed gives the same model file on every runner. Tune trains each
// setting of the grid on one worker. The module's README describes the
// runners, the algorithms and their measurements.
package cvarbeam
