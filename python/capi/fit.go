package main

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
	"github.com/cvarlearn/cvar/internal/modelkind"
)

// defaultRadius is the radius of the ball K that alg1–3 train in, as in
// cvar train. It applies when the step size comes from their theorem and
// no K is given.
const defaultRadius = 10

// fitConfig is what Python's estimators pass to a fit. It holds the data's
// task, classes and feature names. It holds every training option of cvar
// train, by the same names.
type fitConfig struct {
	Task        string    `json:"task"` // "classification" or "regression"
	Classes     []string  `json:"classes"`
	Features    []string  `json:"features"`
	Model       string    `json:"model"`
	Hidden      int       `json:"hidden"`
	Method      string    `json:"method"`
	Alpha       float64   `json:"alpha"`
	Objective   string    `json:"objective"`
	Blend       float64   `json:"blend"`
	Trim        float64   `json:"trim"`
	Rho         float64   `json:"rho"`
	GroupLR     float64   `json:"group_lr"`
	Smoothing   string    `json:"smoothing"`
	Eps         float64   `json:"eps"`
	LR          float64   `json:"lr"`
	LRTheorem   bool      `json:"lr_theorem"`
	WeightDecay float64   `json:"weight_decay"`
	Epochs      int       `json:"epochs"`
	Steps       int       `json:"steps"`
	Batch       int       `json:"batch"`
	Seed        uint64    `json:"seed"`
	Threads     int       `json:"threads"`
	Precision   string    `json:"precision"`
	Storage     string    `json:"storage"`
	Scale       string    `json:"scale"`
	ScaleTarget string    `json:"scale_target"`
	Radius      float64   `json:"radius"`
	Box         []float64 `json:"box"`
}

func parseConfig(s string) (*fitConfig, error) {
	cfg := &fitConfig{Method: "alg3", Precision: cvar.F64, Storage: "auto", Scale: "auto", ScaleTarget: "zscore", Hidden: batch.DefaultHidden, Seed: 1}
	if err := json.Unmarshal([]byte(s), cfg); err != nil {
		return nil, fmt.Errorf("cvar: bad fit configuration: %v", err)
	}
	return cfg, nil
}

// options are the library's options of cfg, as cvar train makes them of
// its flags; the library checks the values.
func (cfg *fitConfig) options() (cvar.Options, error) {
	var method cvar.Method
	if err := method.UnmarshalText([]byte(cfg.Method)); err != nil {
		return cvar.Options{}, err
	}
	smooth := cvar.Softplus
	if cfg.Smoothing != "" {
		if err := smooth.UnmarshalText([]byte(cfg.Smoothing)); err != nil {
			return cvar.Options{}, err
		}
	}
	var objective cvar.Objective
	if err := objective.UnmarshalText([]byte(cfg.Objective)); err != nil {
		return cvar.Options{}, err
	}
	opt := cvar.Options{
		Method: method, Alpha: cfg.Alpha, Smoothing: smooth, Eps: cfg.Eps, LR: cfg.LR,
		WeightDecay: cfg.WeightDecay, Epochs: cfg.Epochs, Steps: cfg.Steps, Batch: cfg.Batch, Seed: cfg.Seed, Threads: cfg.Threads,
		Objective: objective, Blend: cfg.Blend, Trim: cfg.Trim, Rho: cfg.Rho, GroupLR: cfg.GroupLR,
	}
	if cfg.LRTheorem {
		opt.Rule = cvar.TheoremStep
	}
	if err := opt.SettleObjective(); err != nil {
		return opt, err
	}
	for name, v := range map[string]int{"epochs": cfg.Epochs, "steps": cfg.Steps, "batch": cfg.Batch, "threads": cfg.Threads} {
		if v < 0 {
			return opt, fmt.Errorf("cvar: %s %d must be ≥ 0", name, v)
		}
	}
	switch {
	case cfg.Radius < 0 || math.IsNaN(cfg.Radius) || math.IsInf(cfg.Radius, 0):
		return opt, fmt.Errorf("cvar: radius %v must be finite and ≥ 0", cfg.Radius)
	case cfg.Radius > 0 && cfg.Box != nil:
		return opt, fmt.Errorf("cvar: give radius or box, not both")
	case cfg.Box != nil && len(cfg.Box) != 2:
		return opt, fmt.Errorf("cvar: box has %d bounds; expected (lo, hi)", len(cfg.Box))
	case cfg.Radius > 0:
		opt.Domain = cvar.Ball(cfg.Radius)
	case cfg.Box != nil:
		opt.Domain = cvar.Box(cfg.Box[0], cfg.Box[1])
	case cfg.LRTheorem && cfg.LR == 0 && (method == cvar.Alg1 || method == cvar.Alg2 || method == cvar.Alg3):
		opt.Domain = cvar.Ball(defaultRadius)
	}
	return opt, nil
}

// task is the dataset task of cfg.
func (cfg *fitConfig) task() (dataset.Task, error) {
	switch cfg.Task {
	case "classification":
		return dataset.Classification, nil
	case "regression":
		return dataset.Regression, nil
	}
	return 0, fmt.Errorf("cvar: unknown task %q", cfg.Task)
}

// kind resolves the model kind as cvar train does. Auto follows from the
// task and the classes (modelkind.For). An explicit kind is checked
// against them.
func (cfg *fitConfig) kind(task dataset.Task, k int) (string, error) {
	if cfg.Model == "" || cfg.Model == "auto" {
		return modelkind.For(task, k), nil
	}
	if t := modelkind.Task(cfg.Model); t == dataset.TaskAuto {
		return "", fmt.Errorf("cvar: unknown model %q (want auto, %s)", cfg.Model, joinKinds())
	} else if t != task {
		return "", fmt.Errorf("cvar: the %s model fits %v, not %v", cfg.Model, t, task)
	}
	if cfg.Model == batch.KindLogistic && k != 2 {
		return "", fmt.Errorf("cvar: y has %d classes; logistic regression is binary (use model='softmax' or 'mlp')", k)
	}
	return cfg.Model, nil
}

func joinKinds() string {
	s := ""
	for i, k := range batch.Kinds() {
		if i > 0 {
			s += ", "
		}
		s += k
	}
	return s
}

// storage resolves cfg.Storage for data held sparse or not. Auto and the
// precision's name are dense. The compact storages f16, bf16 and u8 hold
// a float32 model's dense features. dataset.BatchAs converts and checks
// them.
func (cfg *fitConfig) storage(sparse bool) (string, error) {
	switch s := cfg.Storage; {
	case s == "" || s == "auto":
		return dataset.StorageDense, nil
	case s == cvar.F32 || s == cvar.F64:
		if s != cfg.Precision {
			return "", fmt.Errorf("cvar: storage %s with precision %s: a %s model reads %s features; use storage %s (or auto)", s, cfg.Precision, cfg.Precision, cfg.Precision, cfg.Precision)
		}
		return dataset.StorageDense, nil
	case s != dataset.StorageF16 && s != dataset.StorageBF16 && s != dataset.StorageU8:
		return "", fmt.Errorf("cvar: unknown storage %q (want auto, f32, f64, f16, bf16 or u8)", s)
	case cfg.Precision != cvar.F32:
		return "", fmt.Errorf("cvar: storage %s is for float32 models: use precision f32", s)
	case sparse:
		return "", fmt.Errorf("cvar: storage %s: the data is sparse (CSR); compact storage holds dense features", s)
	default:
		return s, nil
	}
}

// fitData are the arrays of one fit. They are the features, and the
// targets (regression) or class indices (classification). They are the
// group of each row, or nil.
type fitData struct {
	x      *matrix
	y      []float64
	labels []int32
	groups []int32
}

// fit trains a model on the data as cvar train trains on its training
// split, but on every row. The kind follows from the task and classes.
// cvar.Prepare fits the scaling. The targets are standardised and the
// parameters mapped back. The model file is cvar.NewModelFile's. With
// warm, it goes on from warm's parameters and τ. It then keeps warm's kind
// and scaling of the features, and takes the targets as they are. Nothing of Python's memory is kept.
func fit[T batch.Float](cfg *fitConfig, in *fitData, warm *cvar.ModelFile) (*cvar.ModelFile, error) {
	task, err := cfg.task()
	if err != nil {
		return nil, err
	}
	opt, err := cfg.options()
	if err != nil {
		return nil, err
	}
	var scaling cvar.Scaling
	if scaling.UnmarshalText([]byte(cfg.Scale)) != nil {
		return nil, fmt.Errorf("cvar: unknown scale %q (want auto, zscore, maxabs, unit or none)", cfg.Scale)
	}
	if cfg.ScaleTarget != "zscore" && cfg.ScaleTarget != "none" {
		return nil, fmt.Errorf("cvar: unknown scale_target %q (want zscore or none)", cfg.ScaleTarget)
	}
	full := features[T](in.x)
	full.Task, full.Features = task, cfg.Features
	if task == dataset.Classification {
		full.Labels, full.Classes = in.labels, cfg.Classes
		if len(cfg.Classes) == 1 {
			return nil, fmt.Errorf("cvar: y has one class, %q; classification needs at least two classes", cfg.Classes[0])
		}
	} else {
		full.Y = convert[T](in.y)
	}
	if in.groups != nil {
		opt.Groups = append([]int32(nil), in.groups...)
	}
	kind, hidden := "", cfg.Hidden
	var (
		train *dataset.Dataset[T]
		prep  dataset.Preprocessing
	)
	if warm != nil {
		if train, prep, err = continued(full, warm, &opt); err != nil {
			return nil, err
		}
		kind, hidden = warm.Kind, warm.Hidden
	} else {
		if kind, err = cfg.kind(task, full.K()); err != nil {
			return nil, err
		}
		p, err := cvar.Prepare(full, cvar.PrepareOptions{Scaling: scaling, ScaleTarget: cfg.ScaleTarget == "zscore", TrainFrac: 1, Seed: cfg.Seed})
		if err != nil {
			return nil, err
		}
		train, prep = p.Train, p.Preprocessing
	}
	return trainOn(cfg, opt, kind, hidden, train, prep)
}

// continued is full preprocessed with warm's scaling of the features, and
// opt set to start from warm's parameters and τ.
func continued[T batch.Float](full *dataset.Dataset[T], warm *cvar.ModelFile, opt *cvar.Options) (*dataset.Dataset[T], dataset.Preprocessing, error) {
	prep := warm.Preprocessing
	prep.TargetMean, prep.TargetScale = 0, 0 // warm's θ is in the target's units
	if full.D != warm.D {
		return nil, prep, fmt.Errorf("cvar: X has %d features; the model to continue from has %d", full.D, warm.D)
	}
	if !slices.Equal(full.Classes, warm.Classes) {
		return nil, prep, fmt.Errorf("cvar: y has classes %q; the model to continue from has %q", full.Classes, warm.Classes)
	}
	if err := full.Validate(); err != nil {
		return nil, prep, err
	}
	rows := make([]int, full.N)
	for i := range rows {
		rows[i] = i
	}
	train := full.Subset(rows)
	if err := dataset.PreprocessDataset(&prep, train); err != nil {
		return nil, prep, err
	}
	opt.Init = warm.Theta
	if tau := warm.Tau; !math.IsNaN(tau) && opt.Method != cvar.Vanilla && opt.Method != cvar.MinibatchCVaR {
		opt.InitTau = &tau
	}
	return train, prep, nil
}

// trainOn trains a kind model on train, preprocessed with prep, and
// returns its model file.
func trainOn[T batch.Float](cfg *fitConfig, opt cvar.Options, kind string, hidden int, train *dataset.Dataset[T], prep dataset.Preprocessing) (*cvar.ModelFile, error) {
	storage, err := cfg.storage(train.IsSparse())
	if err != nil {
		return nil, err
	}
	fitSet := train
	if ts, ok := prep.TargetScaler(); ok {
		c := *train
		c.Y = dataset.ScaleTargets(ts, train.Y)
		fitSet = &c
	}
	data, err := fitSet.BatchAs(storage)
	if err != nil {
		return nil, err
	}
	model, err := batch.NewModel[T](kind, train.D, train.K(), hidden)
	if err != nil {
		return nil, err
	}
	if err := model.Check(data); err != nil {
		return nil, err
	}
	res, err := cvar.Train(model, data, opt)
	if err != nil {
		return nil, err
	}
	factor, err := cvar.UnscaleTarget(model, res.Theta, &prep)
	if err != nil {
		return nil, fmt.Errorf("%w (use scale_target='none')", err)
	}
	res.Tau *= factor
	res.Params.Tau0 *= factor
	return cvar.NewModelFile(model, res, train, prep, cvar.Provenance{Kind: "python", N: train.N}), nil
}

// convert copies float64 values into T.
func convert[T batch.Float](v []float64) []T {
	out := make([]T, len(v))
	for i, x := range v {
		out[i] = T(x)
	}
	return out
}
