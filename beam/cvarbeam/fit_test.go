package cvarbeam

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/internal/rounds"
)

// fitPart is the fit of rows of one feature, x and target x, as fitFn
// stores it for a split of the given key.
func fitPart(t *testing.T, key int64, xs ...float64) rounds.Fit {
	t.Helper()
	var f cvar.Fit[float64]
	for _, x := range xs {
		if err := f.AddSparse([]uint32{0}, []float64{x}, x); err != nil {
			t.Fatal(err)
		}
	}
	return rounds.Fit{N: int64(len(xs)), Fit: &f, Key: key}
}

// TestResolveIsTheLibrarys: modelOf takes the kind, the classes and the
// preprocessing from cvar.Fit.Resolve, and refuses a linear model of text
// classes.
func TestResolveIsTheLibrarys(t *testing.T) {
	m := fitPart(t, 0, 1, 2, 1, 2, 2)
	cfg := &TrainOptions{Input: Input{Glob: "x.libsvm"}, Scale: cvar.ScaleMaxAbs, Hidden: batch.DefaultHidden}
	pr, err := modelOf(cfg, nil, rowSpec{Format: "libsvm"}, &m)
	if err != nil {
		t.Fatal(err)
	}
	mf := pr.model
	if mf.Kind != batch.KindLogistic || mf.K != 2 || !slices.Equal(pr.spec.Classes, []string{"1", "2"}) || mf.D != 1 || !slices.Equal(mf.Preprocessing.Scale, []float64{2}) {
		t.Errorf("resolved %s of %d classes %v, %d features, scale %v", mf.Kind, mf.K, pr.spec.Classes, mf.D, mf.Preprocessing.Scale)
	}
	m.Labels.Add("cat")
	m.Labels.Add("dog")
	cfg.Kind = batch.KindLinear
	if _, err := modelOf(cfg, nil, rowSpec{Format: "libsvm"}, &m); err == nil || !strings.Contains(err.Error(), "needs numeric targets") {
		t.Errorf("a linear model of class texts: %v", err)
	}
	cfg.Kind, cfg.Scale = "", cvar.ScaleUnit
	if pr, err := modelOf(cfg, nil, rowSpec{Format: "libsvm"}, &m); err != nil || pr.model.Preprocessing.Divide != 255 {
		t.Errorf("-scale unit: %v", err)
	}
}

// The held-out rows count for the task and the classes, as cvar train
// counts them: a class that only held-out rows have is a class of the
// model, and a held-out real target makes the task regression.
func TestHeldRowsDecideClasses(t *testing.T) {
	dir := t.TempDir()
	rs := rowSpec{Format: "csv", Hold: 0.5, Seed: 3}
	for _, c := range []struct {
		held, want string
	}{{"2", "softmax 0 1 2"}, {"2.5", "linear"}} {
		var b strings.Builder
		b.WriteString("x,y\n")
		sp := Part{Path: filepath.Join(dir, "part.csv"), End: -1}
		for line := 2; line < 42; line++ {
			y := strconv.Itoa(line % 2)
			if rs.held(sp, line) && line > 30 {
				y = c.held
			}
			fmt.Fprintf(&b, "%d,%s\n", line, y)
		}
		if err := os.WriteFile(sp.Path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		if err := (&fitFn{Spec: rs, Dir: out}).ProcessElement(context.Background(), sp); err != nil {
			t.Fatal(err)
		}
		var m rounds.Fit
		if _, err := readResult(context.Background(), fmt.Sprintf("%s/fit-%d", out, sp.key()), &m); err != nil {
			t.Fatal(err)
		}
		cfg := &TrainOptions{Input: Input{Glob: sp.Path}, Hidden: batch.DefaultHidden}
		pr, err := modelOf(cfg, nil, rs, &m)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(append([]string{pr.model.Kind}, pr.model.Classes...), " ")
		if got != c.want {
			t.Errorf("held-out targets %s: %q, want %q", c.held, got, c.want)
		}
	}
}
