package bench

// The comparison with PyTorch. The script bench/torch_epoch.py trains in
// PyTorch the epoch that cvarbench times for Alg 3. The script
// bench/torch_compare.sh runs both. The command internal/bench/torchcmp
// puts their figures side by side with the functions here.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/internal/kernel"
)

// TorchRow is one JSON line of bench/torch_epoch.py. It holds one model's
// best epoch in PyTorch and the training risk after its run.
type TorchRow struct {
	Model         string  `json:"model"`
	Impl          string  `json:"impl"`    // "torch"
	Variant       string  `json:"variant"` // "autograd" or "manual"
	Threads       int     `json:"threads"`
	SecondsEpoch  float64 `json:"s_per_epoch"`
	CPUSeconds    float64 `json:"cpu_s"`
	Timed         string  `json:"timed"`
	StepsPerEpoch int     `json:"steps_per_epoch"`
	EpochsTrained int     `json:"epochs_trained"`
	TrainCVaR     float64 `json:"train_cvar"`
	TrainMean     float64 `json:"train_mean_loss"`
	Tau           float64 `json:"tau"`
	Torch         string  `json:"torch"`
	Python        string  `json:"python"`
	// BLAS lists the BLAS libraries the process had loaded. Debian's
	// torch calls libblas.so.3. That is the reference BLAS unless another
	// provider is installed.
	BLAS []string `json:"blas"`
}

// ParseTorchRows reads torch_epoch.py's output: JSON lines. Blank lines
// are skipped. Several runs may be concatenated.
func ParseTorchRows(r io.Reader) ([]TorchRow, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var out []TorchRow
	for {
		var row TorchRow
		err := dec.Decode(&row)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("bench: torch output, row %d: %w", len(out)+1, err)
		}
		if row.Model == "" || !(row.SecondsEpoch > 0) || row.Threads <= 0 {
			return nil, fmt.Errorf("bench: torch output, row %d: no model, thread count or positive s_per_epoch", len(out)+1)
		}
		if row.Variant == "" {
			row.Variant = "autograd"
		}
		out = append(out, row)
	}
	return out, nil
}

// ParseCvarbench reads the epoch rows of one or more concatenated
// `cvarbench -json` reports.
func ParseCvarbench(r io.Reader) ([]EpochRow, error) {
	dec := json.NewDecoder(r)
	var out []EpochRow
	for n := 1; ; n++ {
		var rep struct {
			Format string     `json:"format"`
			Epochs []EpochRow `json:"epochs"`
		}
		err := dec.Decode(&rep)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("bench: cvarbench report %d: %w", n, err)
		}
		if !strings.HasPrefix(rep.Format, "cvarbench/") {
			return nil, fmt.Errorf("bench: cvarbench report %d: format %q, want cvarbench/…", n, rep.Format)
		}
		out = append(out, rep.Epochs...)
	}
	return out, nil
}

// TorchTarget is a model's speed target for cvar against PyTorch on one
// thread. It is torch's seconds per epoch over cvar's, or 0 where the
// model has none.
func TorchTarget(model string) float64 {
	switch model {
	case "softmax":
		return 5
	case "mlp":
		return 2
	}
	return 0
}

// TorchComparison is one model in one thread count. It holds the best
// epoch of each implementation over the runs given. It holds the training
// CVaR after each one's run (NaN where not known).
type TorchComparison struct {
	Model, Variant      string
	Threads             int
	Cvar, Torch         float64 // seconds per epoch, the least over the runs
	Runs                [2]int  // how many runs of cvar and of torch
	Ratio               float64 // Torch / Cvar: how many times faster cvar is
	Target              float64 // TorchTarget's ratio, 0 where none
	CvarCVaR, TorchCVaR float64
	CvarShare, TorchCPU float64 // cvar's CPU share, torch's CPU s / wall s in the best epoch
	// CvarCPUs and TorchCPUs are the least CPU seconds of a timed epoch
	// over the runs. They are 0 where a side did not say. CPURatio is
	// their ratio. On a busy machine CPU time is less inflated than wall
	// time.
	CvarCPUs, TorchCPUs, CPURatio float64
	TorchVersion, Python          string
	BLAS                          []string
}

// CompareTorch pairs cvar's Alg 3 float32 epochs with torch's rows of the
// same model and thread count. It takes the least time of each over
// repeated runs. cvarCVaR gives cvar's training CVaR by model (missing:
// NaN). Models with only one side are left out. Rows come in the order of
// Models, then by thread count and variant.
func CompareTorch(cv []EpochRow, tr []TorchRow, cvarCVaR map[string]float64) []TorchComparison {
	type key struct {
		model, variant string
		threads        int
	}
	best := map[key]*TorchComparison{}
	for _, t := range tr {
		k := key{t.Model, t.Variant, t.Threads}
		c := best[k]
		if c == nil {
			c = &TorchComparison{Model: t.Model, Variant: t.Variant, Threads: t.Threads, Cvar: math.Inf(1), Torch: math.Inf(1),
				CvarCVaR: math.NaN(), TorchCVaR: math.NaN(), Target: TorchTarget(t.Model)}
			if v, ok := cvarCVaR[t.Model]; ok {
				c.CvarCVaR = v
			}
			best[k] = c
		}
		c.Runs[1]++
		if t.CPUSeconds > 0 && (c.TorchCPUs == 0 || t.CPUSeconds < c.TorchCPUs) {
			c.TorchCPUs = t.CPUSeconds
		}
		if t.SecondsEpoch < c.Torch {
			c.Torch, c.TorchCVaR, c.TorchVersion, c.Python, c.BLAS = t.SecondsEpoch, t.TrainCVaR, t.Torch, t.Python, t.BLAS
			c.TorchCPU = t.CPUSeconds / t.SecondsEpoch
		}
	}
	var out []TorchComparison
	for _, c := range best {
		for _, e := range cv {
			if e.Model != c.Model || e.Threads != c.Threads || e.Method != cvar.Alg3.String() || e.Prec != "f32" || !(e.SecondsEpoch > 0) {
				continue
			}
			c.Runs[0]++
			if e.CPUSeconds > 0 && (c.CvarCPUs == 0 || e.CPUSeconds < c.CvarCPUs) {
				c.CvarCPUs = e.CPUSeconds
			}
			if e.SecondsEpoch < c.Cvar {
				c.Cvar, c.CvarShare = e.SecondsEpoch, e.CPUShare
			}
		}
		if c.Runs[0] == 0 {
			continue
		}
		c.Ratio = c.Torch / c.Cvar
		if c.CvarCPUs > 0 && c.TorchCPUs > 0 {
			c.CPURatio = c.TorchCPUs / c.CvarCPUs
		}
		out = append(out, *c)
	}
	order := func(m string) int {
		if i := slices.Index(Models(), m); i >= 0 {
			return i
		}
		return len(Models())
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if order(a.Model) != order(b.Model) {
			return order(a.Model) < order(b.Model)
		}
		if a.Model != b.Model {
			return a.Model < b.Model
		}
		if a.Threads != b.Threads {
			return a.Threads < b.Threads
		}
		return a.Variant < b.Variant
	})
	return out
}

// WriteTorchTable writes the comparison as a Markdown table.
func WriteTorchTable(w io.Writer, rows []TorchComparison) error {
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	fmt.Fprintln(tw, "| model\t| threads\t| torch variant\t| cvar s/epoch\t| torch s/epoch\t| torch / cvar\t| target\t| CPU s cvar / torch\t| CPU ratio\t| train CVaR₀.₁ cvar\t| torch\t| CPU share cvar / torch\t| runs\t|")
	fmt.Fprintln(tw, "|---\t|---\t|---\t|---\t|---\t|---\t|---\t|---\t|---\t|---\t|---\t|---\t|---\t|")
	for _, r := range rows {
		target := "-"
		if r.Target > 0 {
			verdict := "met"
			if r.Ratio < r.Target {
				verdict = "not met"
			}
			target = fmt.Sprintf("≥ %g× (%s)", r.Target, verdict)
		}
		fmt.Fprintf(tw, "| %s\t| %d\t| %s\t| %.4f\t| %.4f\t| %.2f×\t| %s\t| %s / %s\t| %s\t| %s\t| %s\t| %s / %s\t| %d / %d\t|\n",
			r.Model, r.Threads, r.Variant, r.Cvar, r.Torch, r.Ratio, target, seconds(r.CvarCPUs), seconds(r.TorchCPUs), times(r.CPURatio),
			risk(r.CvarCVaR), risk(r.TorchCVaR),
			percent(r.CvarShare), percent(r.TorchCPU/float64(r.Threads)), r.Runs[0], r.Runs[1])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var versions []string
	for _, r := range rows {
		blas := "BLAS not seen"
		if len(r.BLAS) > 0 {
			blas = "BLAS " + strings.Join(r.BLAS, ", ")
		}
		v := fmt.Sprintf("torch %s (Python %s, %s)", r.TorchVersion, r.Python, blas)
		if !contains(versions, v) {
			versions = append(versions, v)
		}
	}
	if len(versions) > 0 {
		_, err := fmt.Fprintf(w, "\n%s; s/epoch: the least over the runs (cvar / torch); torch / cvar > 1: cvar is faster; CPU s: the least CPU time of an epoch, less inflated than wall time on a busy machine; CPU share: CPU time over wall time × threads in the best epoch (well under 100 %%: the run did not get its cores).\n", strings.Join(versions, ", "))
		return err
	}
	return nil
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func seconds(v float64) string {
	if !(v > 0) {
		return "?"
	}
	return fmt.Sprintf("%.4f", v)
}

func times(v float64) string {
	if !(v > 0) {
		return "?"
	}
	return fmt.Sprintf("%.2f×", v)
}

func percent(v float64) string {
	if !(v > 0) {
		return "?"
	}
	return fmt.Sprintf("%.0f %%", 100*v)
}

func risk(v float64) string {
	if math.IsNaN(v) {
		return "?"
	}
	return fmt.Sprintf("%.4f", v)
}

// TrainRisk trains cfg on p for epochs epochs, as TimeEpochs does. It
// returns the training CVaR_α (α of the epoch suite, 0.1) at the result.
// It also returns the mean of the losses of every row. The script
// torch_epoch.py prints the same figures after the same number of epochs.
func TrainRisk[T kernel.Float](p *Problem[T], cfg EpochOptions, epochs int) (cvarAlpha, mean float64, err error) {
	res, err := train(p, cfg, epochs*StepsPerEpoch(p.N), nil)
	if err != nil {
		return 0, 0, err
	}
	model, err := NewModel[T](cfg.Model, p.D, cfg.Impl)
	if err != nil {
		return 0, 0, err
	}
	data := p.Ten
	if cfg.Model == "logistic" {
		data = p.Two
	}
	ev, err := cvar.NewEvaluator(model, cfg.Threads)
	if err != nil {
		return 0, 0, err
	}
	defer ev.Close()
	losses, err := ev.Losses(res.Theta, data)
	if err != nil {
		return 0, 0, err
	}
	if cvarAlpha, err = cvar.CVaR(losses, res.Params.Alpha); err != nil {
		return 0, 0, err
	}
	for _, l := range losses {
		mean += float64(l)
	}
	return cvarAlpha, mean / float64(len(losses)), nil
}
