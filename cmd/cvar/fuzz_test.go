package main

import (
	"bytes"
	"errors"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
)

// FuzzTrainFlags feeds arbitrary command lines (arguments separated by
// NUL) to train's flag parsing, without training: it must not panic, and
// either fail with a usage error (exit status 2) or return options that
// are valid, with counts within the library's limits.
func FuzzTrainFlags(f *testing.F) {
	for _, s := range []string{
		"",
		"-h",
		"-alpha\x000.05\x00-method\x00alg1",
		"-threads\x00100000",
		"-threads\x00-1",
		"-hidden\x000\x00-model\x00mlp",
		"-lr\x00NaN",
		"-eps\x00-Inf",
		"-box\x00-1,1\x00-radius\x003",
		"-method\x00alg4\x00-box\x000,1",
		"-stream\x00-method\x00alg3",
		"-max-memory\x001.5GiB",
		"-max-memory\x00-1",
		"-max-line\x001MiB",
		"-max-line\x00lots",
		"-limit\x00-3",
		"-n\x001",
		"-seed\x0018446744073709551615",
		"stray",
		"-data\x00x.csv\x00-test\x00y.csv",
		"-epochs\x001844674407370955162\x00-batch\x0010",
		"-steps\x009007199254740993",
		"-classes\x009223372036854775807",
		"-tune\x00-tune-eps\x000",
		"-tune\x00-tune-lrs\x000.1,0.2,0.3\x00-tune-wds\x000,0,0,0",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var args []string
		if in != "" {
			args = strings.Split(in, "\x00")
		}
		var out, errOut bytes.Buffer
		fl, opt, err := parseTrain(&env{stdout: &out, stderr: &errOut}, args)
		if err != nil {
			var ue *usageError
			if !errors.As(err, &ue) && !errors.Is(err, errHelp) {
				t.Fatalf("%q: %v is not a usage error", args, err)
			}
			var line bytes.Buffer
			code := exitStatus(&line, "cvar train", err)
			switch {
			case errors.Is(err, errHelp):
				if code != 0 || line.Len() != 0 {
					t.Fatalf("%q: help gives exit %d, stderr %q", args, code, line.String())
				}
			case code != 2 || strings.Count(line.String(), "\n") != 1:
				t.Fatalf("%q: exit %d, stderr %q; want 2 and one line", args, code, line.String())
			}
			return
		}
		bad := func(what string, v any) { t.Fatalf("%q: accepted with %s = %v", args, what, v) }
		switch {
		case !(opt.Alpha > 0 && opt.Alpha <= 1):
			bad("alpha", opt.Alpha)
		case !finiteNonNeg(opt.LR) || !finiteNonNeg(opt.Eps) || !finiteNonNeg(opt.WeightDecay):
			bad("lr, eps, wd", []float64{opt.LR, opt.Eps, opt.WeightDecay})
		case opt.Epochs < 0 || opt.Steps < 0 || opt.Batch < 0 || uint64(opt.Epochs) > cvar.MaxSteps || uint64(opt.Steps) > cvar.MaxSteps:
			bad("epochs, steps, batch", []int{opt.Epochs, opt.Steps, opt.Batch})
		case fl.data.classes > batch.MaxDim:
			bad("classes", fl.data.classes)
		case slices.Contains(fl.TuneLRs.Values, 0) || slices.Contains(fl.TuneEps.Values, 0):
			bad("a zero in the -tune grid", [][]float64{fl.TuneLRs.Values, fl.TuneEps.Values})
		case opt.Threads < 0 || opt.Threads > runtime.GOMAXPROCS(0):
			bad("threads", opt.Threads)
		case fl.Hidden < 1:
			bad("hidden", fl.Hidden)
		case fl.data.limit < 0 || fl.data.n < 2 || fl.data.d < 1 || fl.data.classes < 2 || fl.data.maxMemory < 0:
			bad("data flags", *fl.data)
		case fl.data.test != "" && fl.data.data == "":
			bad("test without data", fl.data.test)
		case fl.stream && opt.Method.String() != "alg1" && opt.Method.String() != "alg4":
			bad("stream with method", opt.Method)
		}
	})
}

func finiteNonNeg(v float64) bool { return v >= 0 && !math.IsInf(v, 0) }
