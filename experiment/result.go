package experiment

import (
	"encoding/json"
	"math"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/internal/errtext"
	"github.com/cvarlearn/cvar/internal/jsonfloat"
)

// Result is the comparison on one data set.
type Result struct {
	// Name is the data set's name, as given to Run.
	Name string
	// Rows holds a row per method and α: Vanilla-SGD, then
	// CVaR-on-Minibatch and CVaR-SGD at each of Options.Alphas.
	Rows []Row
	// Runs is the number of training runs.
	Runs int
	// Diverged lists the runs that diverged, by seed, method and setting.
	Diverged []Diverged

	cfg  Options
	arms []arm
	best []*run // the selected runs, [seed][arm]; nil where every run diverged
}

// Row is one method's results on one data set, summarised over the seeds.
// Its JSON form has the keys dataset, method, title, alpha, raw, selected,
// failed_runs, below (CVaR-SGD only), diverged and normalised_to. Each
// metric's mean and std are under its name.
type Row struct {
	Dataset string
	// Method is vanilla, minibatch or alg3. Title is the paper's name for
	// it, with the objective. It has α when the CVaR methods run at
	// several. Objective is CVaR-SGD's when not CVaR_α
	// (Options.Objectives), else empty.
	Method, Title, Objective string
	// Alpha is the tail fraction the method minimises. For Vanilla-SGD it
	// is the first of Options.Alphas.
	Alpha float64
	// Metrics and Raw map the metric names to their mean and standard
	// deviation over the seeds. The names are cvar_<α> at each reported α,
	// accuracy and mean_loss. The values are the selected runs' validation
	// values. In Metrics CVaR and mean loss are divided by Vanilla-SGD's
	// on the same seed. In Raw they are as measured.
	Metrics, Raw map[string]MeanStd
	// Selected is the setting selected on each seed. A seed whose runs
	// all diverged has none.
	Selected []Selected
	// Failed is the number of the method's runs that diverged, which
	// Diverged lists.
	Failed   int
	Diverged []Diverged
	// Below says, for CVaR-SGD, whether its mean raw CVaRs at every
	// reported α are below those of each baseline ("vanilla",
	// "minibatch"). It is nil for the other methods.
	Below map[string]bool
}

// MeanStd is the mean and sample standard deviation (0 for one value) of
// a metric's finite values. Both are NaN when there is none. In JSON a
// NaN is null.
type MeanStd struct {
	Mean, Std float64
}

// MarshalJSON writes {"mean": …, "std": …}.
func (m MeanStd) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Mean jsonfloat.Lossy `json:"mean"`
		Std  jsonfloat.Lossy `json:"std"`
	}{jsonfloat.Lossy(m.Mean), jsonfloat.Lossy(m.Std)})
}

// Selected is the setting selected on a seed.
type Selected struct {
	Seed int     `json:"seed"`
	LR   float64 `json:"lr"`
	WD   float64 `json:"wd"`
}

// Diverged is a run that diverged: its seed, method, setting and error.
type Diverged struct {
	Seed   int
	Method string // vanilla, minibatch or alg3
	LR, WD float64
	Err    error
}

// MarshalJSON writes the seed, lr, wd and the error's message. The message
// takes one line, without the library's package prefixes.
func (d Diverged) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Seed  int     `json:"seed"`
		LR    float64 `json:"lr"`
		WD    float64 `json:"wd"`
		Error string  `json:"error"`
	}{d.Seed, d.LR, d.WD, errtext.Plain(d.Err)})
}

// MarshalJSON puts each metric's {mean, std} at the top level of the row.
// Lists are lists when empty too ([], not null).
func (r Row) MarshalJSON() ([]byte, error) {
	diverged, sel := r.Diverged, r.Selected
	if diverged == nil {
		diverged = []Diverged{}
	}
	if sel == nil {
		sel = []Selected{}
	}
	obj := map[string]any{
		"dataset": r.Dataset, "method": r.Method, "title": r.Title, "alpha": r.Alpha,
		"raw": r.Raw, "selected": sel, "failed_runs": r.Failed, "diverged": diverged,
		"normalised_to": "vanilla",
	}
	if r.Below != nil {
		obj["below"] = r.Below
	}
	if r.Objective != "" {
		obj["objective"] = r.Objective
	}
	for k, v := range r.Metrics {
		obj[k] = v
	}
	return json.Marshal(obj)
}

// diverged is the record of run j, which diverged.
func (res *Result) diverged(j *run) Diverged {
	return Diverged{Seed: j.seed + 1, Method: methods[res.arms[j.arm].method].name, LR: j.lr, WD: j.wd, Err: j.err}
}

// names are the tables' metrics, in the paper's order: CVaR at each
// reported α, accuracy, mean loss. titles are their headings.
func (cfg *Options) names() (names, titles []string) {
	for _, a := range cfg.reported() {
		names = append(names, "cvar_"+alphaKey(a))
		titles = append(titles, "CVaR_"+alphaKey(a))
	}
	return append(names, "accuracy", "mean_loss"), append(titles, "accuracy", "mean loss")
}

// values are a run's validation metrics in the order of names.
func (j *run) values(alphas []float64) []float64 {
	var out []float64
	for _, a := range alphas {
		c, _ := j.val.TailAt(a)
		out = append(out, c)
	}
	return append(out, j.val.Accuracy, j.val.MeanLoss)
}

// rows summarises the selected runs best ([seed][arm]) and the runs that
// diverged among all.
func (res *Result) rows(best, all []*run) []Row {
	cfg, nm := &res.cfg, len(res.arms)
	names, _ := cfg.names()
	var rows []Row
	for m, a := range res.arms {
		row := Row{Dataset: res.Name, Method: methods[a.method].name, Title: a.title(len(cfg.Alphas) > 1), Alpha: a.alpha,
			Metrics: map[string]MeanStd{}, Raw: map[string]MeanStd{}}
		if a.objective != cvar.ObjectiveDefault {
			row.Objective = a.objective.String()
		}
		raw := make([][]float64, len(names))
		norm := make([][]float64, len(names))
		for s := range cfg.Seeds {
			b, v := best[s*nm+m], best[s*nm]
			if b == nil {
				for i := range names {
					raw[i] = append(raw[i], math.NaN())
					norm[i] = append(norm[i], math.NaN())
				}
				continue
			}
			row.Selected = append(row.Selected, Selected{Seed: s + 1, LR: b.lr, WD: b.wd})
			var ref []float64
			if v != nil {
				ref = v.values(cfg.reported())
			}
			for i, x := range b.values(cfg.reported()) {
				raw[i] = append(raw[i], x)
				switch {
				case names[i] == "accuracy":
					norm[i] = append(norm[i], x)
				case ref == nil:
					norm[i] = append(norm[i], math.NaN())
				default:
					norm[i] = append(norm[i], x/ref[i])
				}
			}
		}
		for _, j := range all {
			if j.arm == m && j.err != nil {
				row.Failed++
				row.Diverged = append(row.Diverged, res.diverged(j))
			}
		}
		for i, name := range names {
			row.Raw[name] = summarise(raw[i])
			row.Metrics[name] = summarise(norm[i])
		}
		rows = append(rows, row)
	}
	markBelow(cfg.reported(), rows)
	return rows
}

// markBelow records, for each CVaR-SGD row, whether its mean validation
// CVaRs are below the baselines'. The CVaRs are raw, at every reported α.
// Each is compared with Vanilla-SGD's and CVaR-on-Minibatch's at the same
// α.
func markBelow(alphas []float64, rows []Row) {
	find := func(method string, alpha float64) *Row {
		for i := range rows {
			if rows[i].Method == method && (method == "vanilla" || rows[i].Alpha == alpha) {
				return &rows[i]
			}
		}
		return nil
	}
	for i := range rows {
		r := &rows[i]
		if r.Method != "alg3" {
			continue
		}
		r.Below = map[string]bool{}
		for _, ref := range []string{"vanilla", "minibatch"} {
			o := find(ref, r.Alpha)
			if o == nil {
				continue
			}
			below := true
			for _, a := range alphas {
				k := "cvar_" + alphaKey(a)
				below = below && r.Raw[k].Mean < o.Raw[k].Mean
			}
			r.Below[ref] = below
		}
	}
}

// summarise returns the mean and sample standard deviation (0 for one
// value) of the values that are not NaN. Both are NaN when there is none.
func summarise(xs []float64) MeanStd {
	var sum float64
	n := 0
	for _, x := range xs {
		if !math.IsNaN(x) {
			sum += x
			n++
		}
	}
	if n == 0 {
		return MeanStd{Mean: math.NaN(), Std: math.NaN()}
	}
	mean := sum / float64(n)
	var ss float64
	for _, x := range xs {
		if !math.IsNaN(x) {
			ss += (x - mean) * (x - mean)
		}
	}
	std := 0.0
	if n > 1 {
		std = math.Sqrt(ss / float64(n-1))
	}
	return MeanStd{Mean: mean, Std: std}
}
