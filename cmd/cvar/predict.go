package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/internal/jsonfloat"
	"github.com/cvarlearn/cvar/internal/modelio"
	"github.com/cvarlearn/cvar/internal/modelkind"
)

const predictSynopsis = `cvar predict -in MODEL [flags]

Applies a model file to -data (default: a fresh sample of the built-in data
the model was trained on), preprocessed as the model file says, and writes
one CSV row per sample to stdout or -o:

  classifiers: row, class (the label text), the scores (score for logistic
               regression, the margin, > 0 for the second class; score_<class>
               for softmax and mlp, the logits), and label and loss when the
               data has labels;
  regression:  row, value, and target and loss when the data has targets.

A CSV file may leave out the target column (as many columns as the model has
features); labels that are present must be among the model's classes. -json
writes a JSON array instead. A score or loss that is not finite (features
far larger than the model was trained on) stops predict with an error naming
the row.`

func cmdPredict(e *env, args []string) error {
	fs := newFlagSet("cvar predict")
	in := fs.String("in", "", "model `file` written by cvar train -o")
	df := addDataFlags(fs, dataForModel)
	out := fs.String("o", "", "write the predictions to this `file` (default: stdout)")
	force := fs.Bool("force", false, "replace the -o file if it exists (never -in or -data)")
	jsonOut := fs.Bool("json", false, "write a JSON array instead of CSV")
	threads := fs.Int("threads", 0, "worker threads (0: all cores; more than the cores are clamped to them)")
	if err := parseFlags(e, fs, predictSynopsis, args); err != nil {
		return err
	}
	if *in == "" {
		return usagef("-in is required: the model file to apply")
	}
	if err := df.check(); err != nil {
		return err
	}
	var err error
	if *threads, err = threadsFlag(*threads); err != nil {
		return err
	}
	cfg := predictConfig{in: *in, out: *out, force: *force, json: *jsonOut, threads: *threads, inputs: append(df.inputs(), input{Flag: "-in", Path: *in})}
	if err := checkNew(cfg.out, cfg.force, cfg.inputs); err != nil {
		return err
	}
	m, err := modelio.Read(cfg.in)
	if err != nil {
		return err
	}
	if m.Precision == cvar.F32 {
		return predictRun[float32](e, df, m, cfg)
	}
	return predictRun[float64](e, df, m, cfg)
}

// predictConfig is what predict was asked for besides the data. It holds
// the model file, the output and the files it must not replace.
type predictConfig struct {
	in, out     string
	force, json bool
	threads     int
	inputs      []input
}

// prediction is one row of predict's output.
type prediction struct {
	Row    int               `json:"row"`
	Class  string            `json:"class,omitempty"`
	Scores []jsonfloat.Lossy `json:"scores,omitempty"`
	Value  *jsonfloat.Lossy  `json:"value,omitempty"`
	Label  *string           `json:"label,omitempty"`
	Target *jsonfloat.Lossy  `json:"target,omitempty"`
	Loss   *jsonfloat.Lossy  `json:"loss,omitempty"`
	scores []float64         // for CSV
}

func predictRun[T batch.Float](e *env, df *dataFlags, m *cvar.ModelFile, cfg predictConfig) error {
	ds, labelled, err := loadModelData[T](df, m)
	if err != nil {
		return err
	}
	model, theta, err := cvar.BuildModel[T](m)
	if err != nil {
		return err
	}
	data, err := modelBatch(df, m, ds)
	if err != nil {
		return err
	}
	ev, err := cvar.NewEvaluator(model, cfg.threads)
	if err != nil {
		return err
	}
	defer ev.Close()
	var losses []T
	if labelled {
		if losses, err = ev.Losses(theta, data); err != nil {
			return err
		}
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
	// Each row's prediction is made as it is written. So the output holds
	// one row at a time, not an object per row of the data.
	row := func(i int) prediction {
		p := prediction{Row: i + 1}
		row := scores[i*k : (i+1)*k]
		if m.K > 0 {
			p.Class = m.Classes[modelkind.Class(row)]
			p.scores = make([]float64, k)
			p.Scores = make([]jsonfloat.Lossy, k)
			for j, v := range row {
				p.scores[j], p.Scores[j] = float64(v), jsonfloat.Lossy(v)
			}
			if labelled {
				p.Label = &m.Classes[ds.Labels[i]]
			}
		} else {
			v := jsonfloat.Lossy(row[0])
			p.Value = &v
			if labelled {
				t := jsonfloat.Lossy(ds.Y[i])
				p.Target = &t
			}
		}
		if labelled {
			l := jsonfloat.Lossy(losses[i])
			p.Loss = &l
		}
		return p
	}
	write := func(w io.Writer) error {
		if cfg.json {
			return writeJSONRows(w, ds.N, row)
		}
		return writePredictionsCSV(w, m, ds.N, row, labelled)
	}
	if cfg.out == "" {
		bw := bufio.NewWriter(e.stdout)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	}
	return writeNew(cfg.out, cfg.force, cfg.inputs, write)
}

// writeJSONRows writes n rows, made by row one at a time, as writeJSON
// writes a slice of them.
func writeJSONRows(w io.Writer, n int, row func(i int) prediction) error {
	if n == 0 {
		return writeJSON(w, []prediction{})
	}
	if _, err := io.WriteString(w, "[\n"); err != nil {
		return err
	}
	for i := range n {
		b, err := json.MarshalIndent(row(i), "  ", "  ")
		if err != nil {
			return err
		}
		end := ",\n"
		if i == n-1 {
			end = "\n"
		}
		if _, err := fmt.Fprintf(w, "  %s%s", b, end); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, "]\n")
	return err
}

func writePredictionsCSV(w io.Writer, m *cvar.ModelFile, n int, row func(i int) prediction, labelled bool) error {
	cw := csv.NewWriter(w)
	head := []string{"row"}
	switch {
	case m.K == 0:
		head = append(head, "value")
		if labelled {
			head = append(head, "target")
		}
	case m.Kind == batch.KindLogistic:
		head = append(head, "class", "score")
	default:
		head = append(head, "class")
		for _, c := range m.Classes {
			head = append(head, "score_"+c)
		}
	}
	if labelled {
		if m.K > 0 {
			head = append(head, "label")
		}
		head = append(head, "loss")
	}
	cw.Write(head)
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	rec := make([]string, 0, len(head))
	for i := range n {
		p := row(i)
		rec = append(rec[:0], strconv.Itoa(p.Row))
		if m.K == 0 {
			rec = append(rec, f(float64(*p.Value)))
			if labelled {
				rec = append(rec, f(float64(*p.Target)))
			}
		} else {
			rec = append(rec, p.Class)
			for _, s := range p.scores {
				rec = append(rec, f(s))
			}
			if labelled {
				rec = append(rec, *p.Label)
			}
		}
		if labelled {
			rec = append(rec, f(float64(*p.Loss)))
		}
		cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}
