package trainflag

import (
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar"
)

func parse(t *testing.T, p Program, args ...string) (*Flags, error) {
	t.Helper()
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := Add(fs, p)
	return f, fs.Parse(args)
}

var both = Program{Methods: []string{"alg1", "alg3", "vanilla"}, Method: "alg3", Selects: []string{"cvar", "loss"}, Step: true, Grid: true}

// TestOptions: the flags make the library options they name.
func TestOptions(t *testing.T) {
	f, err := parse(t, both, "-method", "ALG1", "-alpha", "0.05", "-lr", "0.2", "-wd", "1e-3", "-epochs", "3", "-seed", "9", "-smooth", "quadratic", "-select", "loss", "-tune-lrs", "0.1,0.3")
	if err != nil {
		t.Fatal(err)
	}
	opt, err := f.Options()
	want := cvar.Options{Method: cvar.Alg1, Alpha: 0.05, LR: 0.2, WeightDecay: 1e-3, Epochs: 3, Seed: 9, Smoothing: cvar.Quadratic, Rule: cvar.PracticalStep}
	if err != nil || opt.Method != want.Method || opt.Alpha != want.Alpha || opt.LR != want.LR || opt.WeightDecay != want.WeightDecay ||
		opt.Epochs != want.Epochs || opt.Seed != want.Seed || opt.Smoothing != want.Smoothing || opt.Rule != want.Rule {
		t.Errorf("options %+v, %v", opt, err)
	}
	if g := f.Grid(); len(g.LR) != 2 || g.LR[1] != 0.3 || f.Selection() != cvar.SelectLoss {
		t.Errorf("grid %+v, selection %v", g, f.Selection())
	}
	if f, _ := parse(t, both, "-lr", "theorem"); f.LR.Rule() != cvar.TheoremStep {
		t.Error("-lr theorem is not the theorem's rule")
	}
}

// TestRefused: bad values name their flag.
func TestRefused(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-alpha", "2"}, "alpha 2 is outside"},
		{[]string{"-method", "alg2"}, "unknown value"},
		{[]string{"-tune-lrs", "0,-1"}, "-tune-lrs"},
		{[]string{"-lr", "-1"}, "want a positive step size"},
	} {
		if _, err := parse(t, both, c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{{[]string{"-eps", "-1"}, "-eps -1"}, {[]string{"-batch", "-2"}, "-batch -2"}, {[]string{"-hidden", "0"}, "-hidden 0"}} {
		f, err := parse(t, both, c.args...)
		if err == nil {
			_, err = f.Options()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
	if _, err := parse(t, Program{Methods: []string{"alg3"}, Method: "alg3", Selects: []string{"cvar"}}, "-lr", "0.1"); err == nil {
		t.Error("-lr was registered without Step")
	}
}

// TestScale: -scale is read by cvar.Scaling's parsing, auto is unit for
// IDX images, and -scale-target says whether the target is standardised.
func TestScale(t *testing.T) {
	parse := func(args ...string) (*Scale, error) {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		s := AddScale(fs)
		return s, fs.Parse(args)
	}
	s, err := parse()
	if err != nil || s.For("csv") != cvar.ScaleAuto || s.For("idx") != cvar.ScaleUnit || !s.Target() {
		t.Errorf("defaults: %v, %v, target %v (%v)", s.For("csv"), s.For("idx"), s.Target(), err)
	}
	s, err = parse("-scale", "MaxAbs", "-scale-target", "none")
	if err != nil || s.For("idx") != cvar.ScaleMaxAbs || s.Target() {
		t.Errorf("-scale MaxAbs -scale-target none: %v, target %v (%v)", s.For("idx"), s.Target(), err)
	}
	for _, args := range [][]string{{"-scale", "cube"}, {"-scale-target", "maxabs"}} {
		if _, err := parse(args...); err == nil || !strings.Contains(err.Error(), "unknown") {
			t.Errorf("%v: %v, want an unknown value", args, err)
		}
	}
}
