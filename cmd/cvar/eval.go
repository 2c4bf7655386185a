package main

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"unsafe"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/internal/modelio"
	"github.com/cvarlearn/cvar/internal/modelkind"
	"github.com/cvarlearn/cvar/internal/report"
	"github.com/cvarlearn/cvar/internal/worstby"
)

const evalSynopsis = `cvar eval -in MODEL [flags]

Evaluates a model file on -data (default: a fresh sample of the built-in data
the model was trained on), preprocessed as the model file says: CVaR and VaR
at each of -alphas, accuracy for classifiers and the mean loss, each with a
percentile bootstrap 95 % confidence interval from -bootstrap resamples of the
rows (seeded). Labels must be among the model's classes. A score or loss
that is not finite (features far larger than the model was trained on) stops
eval with an error naming the row.

With -group (a CSV column; subgroup for the built-in data) or -group-file
(one group label a line), it also reports the same metrics for each group,
each group's intervals resampled within the group, and names the worst group
by -worst-by.`

func cmdEval(e *env, args []string) error {
	fs := newFlagSet("cvar eval")
	in := fs.String("in", "", "model `file` written by cvar train -o")
	df := addDataFlags(fs, dataForModel)
	alphas := alphaList(0.05, 0.1)
	fs.Var(alphas, "alphas", "comma-separated `list` of tail fractions α ∈ (0, 1]")
	boot := fs.Int("bootstrap", 1000, "bootstrap resamples for the confidence intervals, at most 100000 (0: none)")
	seed := fs.Uint64("seed", 1, "random seed of the bootstrap")
	jsonOut := fs.Bool("json", false, "print the results as JSON")
	worstBy := fs.String("worst-by", "mean_loss", "`metric` that names the worst group: mean_loss, accuracy, cvar (at the first of -alphas) or cvar_α for one of -alphas")
	threads := fs.Int("threads", 0, "worker threads (0: all cores; more than the cores are clamped to them)")
	if err := parseFlags(e, fs, evalSynopsis, args); err != nil {
		return err
	}
	if *in == "" {
		return usagef("-in is required: the model file to evaluate")
	}
	if *boot < 0 || *boot > maxBootstrap {
		return usagef("-bootstrap %d is outside 0..%d", *boot, maxBootstrap)
	}
	worst, err := worstby.Check(*worstBy, alphas.Values)
	if err != nil {
		return usagef("-worst-by: %s", strings.TrimPrefix(err.Error(), "cvar: "))
	}
	if worst != "mean_loss" && df.group == "" && df.groupFile == "" {
		return usagef("-worst-by %s names the worst group: give -group or -group-file", *worstBy)
	}
	if *threads, err = threadsFlag(*threads); err != nil {
		return err
	}
	if err := df.check(); err != nil {
		return err
	}
	m, err := modelio.Read(*in)
	if err != nil {
		return err
	}
	cfg := evalConfig{alphas: alphas.Values, boot: *boot, seed: *seed, threads: *threads, json: *jsonOut, in: *in, worstBy: worst}
	if m.Precision == cvar.F32 {
		return evalRun[float32](e, df, m, cfg)
	}
	return evalRun[float64](e, df, m, cfg)
}

type evalConfig struct {
	alphas  []float64
	boot    int
	seed    uint64
	threads int
	json    bool
	in      string
	worstBy string // worstby.Check's
}

func evalRun[T batch.Float](e *env, df *dataFlags, m *cvar.ModelFile, cfg evalConfig) error {
	ds, err := loadForModel[T](df, m)
	if err != nil {
		return err
	}
	data, err := modelBatch(df, m, ds)
	if err != nil {
		return err
	}
	if err := checkBootstrap[T](cfg, ds.N, df.maxMemory); err != nil {
		return err
	}
	model, theta, err := cvar.BuildModel[T](m)
	if err != nil {
		return err
	}
	ev, err := cvar.NewEvaluator(model, cfg.threads)
	if err != nil {
		return err
	}
	defer ev.Close()
	losses, err := ev.Losses(theta, data)
	if err != nil {
		return err
	}
	k := model.NumOutputs()
	if err := checkScores[T](df, ds.Name, ds.N, k); err != nil {
		return err
	}
	scores, err := ev.Scores(theta, data)
	if err != nil {
		return err
	}
	if err := checkFinite(cfg.in, ds.Name, scores, k, losses); err != nil {
		return err
	}
	var correct []bool
	if data.IsClassification() {
		correct = make([]bool, data.N)
		for i := range correct {
			correct[i] = modelkind.Class(scores[i*k:(i+1)*k]) == int(data.Labels[i])
		}
	}
	bar := newProgress(e, "bootstrap", cfg.boot*(1+ds.NumGroups()))
	bo := cvar.BootstrapOptions{Resamples: cfg.boot, Seed: cfg.seed, Threads: cfg.threads, OnResample: func() { bar.add(1) }}
	var (
		bm *cvar.BootstrapMetrics
		ge *cvar.GroupEvaluation
	)
	if ds.Groups != nil {
		if ge, err = cvar.BootstrapGroups(losses, correct, ds.Groups, ds.GroupNames, cfg.alphas, cvar.GroupOptions{Bootstrap: bo, WorstBy: cfg.worstBy}); err == nil {
			bm = &ge.All.BootstrapMetrics
		}
	} else {
		bm, err = cvar.Bootstrap(losses, correct, cfg.alphas, bo)
	}
	bar.finish()
	if err != nil {
		return err
	}
	rep := report.NewEval(m, ds.Name, ds.N, cfg.boot, bm)
	rep.Groups = ge
	if cfg.json {
		return rep.WriteJSON(e.stdout)
	}
	return rep.WriteText(e.stdout)
}

// checkBootstrap fails when the bootstrap's resamples would need more than
// -max-memory. A resample holds a number per statistic: CVaR and VaR at
// each -alphas, the mean loss, the accuracy. Each worker holds a copy of
// the n losses and outcomes.
func checkBootstrap[T batch.Float](cfg evalConfig, n int, limit byteSize) error {
	if cfg.boot == 0 {
		return nil
	}
	threads := cfg.threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	samples, _ := product(math.MaxInt64, 2*len(cfg.alphas)+2, cfg.boot, 8)
	copies, _ := product(math.MaxInt64, threads, n, int(unsafe.Sizeof(T(0)))+1)
	need := int64(math.MaxInt64)
	if samples <= math.MaxInt64/2 && copies <= math.MaxInt64/2 {
		need = int64(samples + copies)
	}
	what := fmt.Sprintf("-bootstrap %d resamples of %d statistics (-alphas) and %d rows", cfg.boot, 2*len(cfg.alphas)+2, n)
	return checkMemory(what, need, limit)
}
