package bench

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Two torch runs of the same models, as torch_epoch.py prints them.
const torchLines = `{"model": "logistic", "impl": "torch", "variant": "autograd", "threads": 1, "s_per_epoch": 0.108, "cpu_s": 0.1, "timed": "best of 2 epochs", "steps_per_epoch": 118, "epochs_trained": 3, "train_cvar": 0.7799, "train_mean_loss": 0.62, "tau": 0.86, "torch": "1.13.0a0", "python": "3.11.2", "blas": ["/usr/lib/x86_64-linux-gnu/blas/libblas.so.3.11.0"]}
{"model": "softmax", "impl": "torch", "variant": "autograd", "threads": 1, "s_per_epoch": 0.5, "cpu_s": 0.45, "timed": "best of 2 epochs", "steps_per_epoch": 118, "epochs_trained": 3, "train_cvar": 1.95, "train_mean_loss": 1.5, "tau": 1.9, "torch": "1.13.0a0", "python": "3.11.2", "blas": []}
{"model": "mlp", "impl": "torch", "variant": "autograd", "threads": 1, "s_per_epoch": 0.4, "cpu_s": 0.4, "timed": "best of 2 epochs", "steps_per_epoch": 118, "epochs_trained": 3, "train_cvar": 2.15, "train_mean_loss": 2.0, "tau": 2.2, "torch": "1.13.0a0", "python": "3.11.2"}

{"model": "softmax", "impl": "torch", "variant": "autograd", "threads": 1, "s_per_epoch": 0.45, "cpu_s": 0.45, "timed": "best of 2 epochs", "steps_per_epoch": 118, "epochs_trained": 3, "train_cvar": 1.96, "train_mean_loss": 1.5, "tau": 1.9, "torch": "1.13.0a0", "python": "3.11.2", "blas": []}
{"model": "resnet", "impl": "torch", "variant": "autograd", "threads": 1, "s_per_epoch": 9, "torch": "1.13.0a0", "python": "3.11.2"}
`

// Two cvarbench reports, trimmed to what matters and a field the parser
// does not know; rows of other methods and precisions must be ignored.
const cvarReports = `{
  "format": "cvarbench/1",
  "machine": {"cpu": "AMD EPYC"},
  "epochs": [
    {"model": "logistic", "method": "alg3", "prec": "f32", "impl": "avx2", "threads": 1, "seconds_per_epoch": 0.0205, "cpu_share": 0.99},
    {"model": "softmax", "method": "alg3", "prec": "f32", "impl": "avx2", "threads": 1, "seconds_per_epoch": 0.06, "cpu_seconds": 0.058, "cpu_share": 0.9},
    {"model": "softmax", "method": "vanilla", "prec": "f32", "impl": "avx2", "threads": 1, "seconds_per_epoch": 0.001},
    {"model": "softmax", "method": "alg3", "prec": "f64", "impl": "avx2", "threads": 1, "seconds_per_epoch": 0.002},
    {"model": "mlp", "method": "alg3", "prec": "f32", "impl": "avx2", "threads": 1, "seconds_per_epoch": 0.25, "cpu_share": 1}
  ]
}
{"format": "cvarbench/1", "epochs": [
    {"model": "softmax", "method": "alg3", "prec": "f32", "impl": "avx2", "threads": 1, "seconds_per_epoch": 0.05, "cpu_seconds": 0.049, "cpu_share": 0.98},
    {"model": "softmax", "method": "alg3", "prec": "f32", "impl": "avx2", "threads": 2, "seconds_per_epoch": 0.03}
]}
`

func TestParseTorchRows(t *testing.T) {
	rows, err := ParseTorchRows(strings.NewReader(torchLines))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 5 {
		t.Fatalf("%d rows, want 5", len(rows))
	}
	r := rows[0]
	if r.Model != "logistic" || r.Variant != "autograd" || r.Threads != 1 || r.SecondsEpoch != 0.108 || r.EpochsTrained != 3 ||
		r.TrainCVaR != 0.7799 || r.Torch != "1.13.0a0" || len(r.BLAS) != 1 {
		t.Errorf("row 1 = %+v", r)
	}
	for _, bad := range []string{
		`{"model": "softmax", "threads": 1, "s_per_epoch": 0.5, "speed": 3}`, // unknown field
		`{"model": "softmax", "threads": 1, "s_per_epoch": 0}`,
		`{"model": "", "threads": 1, "s_per_epoch": 0.5}`,
		`{"model": "softmax", "s_per_epoch": 0.5}`,
		`{"model": "softmax", "threads": 1, "s_per_epoch": 0.5`,
		`torch_epoch.py: error`,
	} {
		if _, err := ParseTorchRows(strings.NewReader(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestParseCvarbench(t *testing.T) {
	rows, err := ParseCvarbench(strings.NewReader(cvarReports))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 7 || rows[6].Threads != 2 || rows[0].SecondsEpoch != 0.0205 {
		t.Fatalf("rows = %+v", rows)
	}
	for _, bad := range []string{`{"format": "other/1", "epochs": []}`, `{"format": "cvarbench/1", "epochs": [`, `[]`} {
		if _, err := ParseCvarbench(strings.NewReader(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestCompareTorch(t *testing.T) {
	cv, err := ParseCvarbench(strings.NewReader(cvarReports))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := ParseTorchRows(strings.NewReader(torchLines))
	if err != nil {
		t.Fatal(err)
	}
	rows := CompareTorch(cv, tr, map[string]float64{"softmax": 1.954, "mlp": 2.151})
	// resnet has no cvar side; softmax's threads=2 row no torch side.
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3: %+v", len(rows), rows)
	}
	for i, m := range []string{"logistic", "softmax", "mlp"} {
		if rows[i].Model != m {
			t.Errorf("row %d is %s, want %s", i, rows[i].Model, m)
		}
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }
	sm := rows[1]
	// The least of each side over the runs: cvar 0.05 (not the vanilla or
	// f64 rows), torch 0.45 with that run's CVaR.
	if !near(sm.Cvar, 0.05) || !near(sm.Torch, 0.45) || !near(sm.Ratio, 9) || sm.Runs != [2]int{2, 2} ||
		sm.Target != 5 || sm.TorchCVaR != 1.96 || sm.CvarCVaR != 1.954 || sm.CvarShare != 0.98 ||
		sm.CvarCPUs != 0.049 || sm.TorchCPUs != 0.45 || !near(sm.CPURatio, 0.45/0.049) {
		t.Errorf("softmax = %+v", sm)
	}
	if lg := rows[0]; !math.IsNaN(lg.CvarCVaR) || lg.Target != 0 || !near(lg.Ratio, 0.108/0.0205) {
		t.Errorf("logistic = %+v", lg)
	}
	if ml := rows[2]; !near(ml.Ratio, 1.6) || ml.Target != 2 {
		t.Errorf("mlp = %+v", ml)
	}

	var buf bytes.Buffer
	if err := WriteTorchTable(&buf, rows); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"| model", "torch / cvar",
		"| softmax  | 1       | autograd      | 0.0500       | 0.4500        | 9.00×        | ≥ 5× (met)",
		"| 1.60×        | ≥ 2× (not met)",
		"| 5.27×        | -",
		"| 0.0490 / 0.4500", "| 9.18×", "| ? / 0.4000", "| ? / 0.1000",
		"| ?      ", "1.9540", "1.9600", "| 98 % / 100 %", "| 2 / 2",
		"torch 1.13.0a0 (Python 3.11.2, BLAS /usr/lib/x86_64-linux-gnu/blas/libblas.so.3.11.0)",
		"torch 1.13.0a0 (Python 3.11.2, BLAS not seen)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

// torchPython returns a Python that imports torch, or "" (with the reason).
func torchPython() (string, string) {
	cands := []string{"python3", "/usr/bin/python3"}
	if p := os.Getenv("PYTHON"); p != "" {
		cands = []string{p}
	}
	for _, c := range cands {
		if _, err := exec.LookPath(c); err != nil {
			continue
		}
		if exec.Command(c, "-c", "import torch").Run() == nil {
			return c, ""
		}
	}
	return "", "no Python with PyTorch (python3-torch); the comparison with PyTorch is optional"
}

// writeIDX writes a gzipped IDX file of unsigned bytes.
func writeIDX(t *testing.T, path string, dims []int, body []byte) {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	hdr := []byte{0, 0, 8, byte(len(dims))}
	for _, d := range dims {
		hdr = binary.BigEndian.AppendUint32(hdr, uint32(d))
	}
	zw.Write(hdr)
	zw.Write(body)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestTorchEpochScript runs torch_epoch.py on a small MNIST-shaped data set
// written as IDX files, where PyTorch is installed, and checks that its
// output parses and that cvar, trained the same number of steps on the same
// rows, reaches about the same training CVaR for the convex models (both
// start from zero; only the sampled rows differ).
func TestTorchEpochScript(t *testing.T) {
	py, why := torchPython()
	if py == "" {
		t.Skip(why)
	}
	if testing.Short() {
		t.Skip("runs PyTorch")
	}
	const n = 4096
	syn, err := SyntheticMNIST[float32](n, MNISTDim, 3)
	if err != nil {
		t.Fatal(err)
	}
	img := make([]byte, n*MNISTDim)
	lab := make([]byte, n)
	x := make([]float32, n*MNISTDim) // what the script reads
	for i := range img {
		img[i] = byte(math.Round(float64(syn.Ten.X[i]) * 255))
		x[i] = float32(img[i]) / 255
	}
	for i := range lab {
		lab[i] = byte(syn.Ten.Labels[i])
	}
	p, err := newProblem("quantised", x, syn.Ten.Labels, n, MNISTDim)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeIDX(t, filepath.Join(dir, "train-images-idx3-ubyte.gz"), []int{n, 28, 28}, img)
	writeIDX(t, filepath.Join(dir, "train-labels-idx1-ubyte.gz"), []int{n}, lab)
	cmd := exec.Command(py, filepath.Join("..", "..", "bench", "torch_epoch.py"), "--mnist", dir, "--epochs", "2", "--warm", "1")
	cmd.Env = append(os.Environ(), "OMP_NUM_THREADS=1", "OPENBLAS_NUM_THREADS=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("torch_epoch.py: %v\n%s", err, stderr.String())
	}
	rows, err := ParseTorchRows(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3:\n%s", len(rows), out)
	}
	for i, r := range rows {
		if r.Model != Models()[i] || r.StepsPerEpoch != StepsPerEpoch(n) || r.EpochsTrained != 3 || r.Threads != 1 ||
			!(r.TrainCVaR >= r.TrainMean) || !(r.TrainMean > 0) || r.Torch == "" {
			t.Errorf("row %d: %+v", i, r)
		}
		if r.Model == "mlp" {
			continue // different initial weights
		}
		c, _, err := TrainRisk(p, EpochOptions{Model: r.Model, Method: Methods()[0], Threads: 1}, r.EpochsTrained)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(c-r.TrainCVaR) > 0.05*c {
			t.Errorf("%s: training CVaR %.4f in torch, %.4f in cvar", r.Model, r.TrainCVaR, c)
		}
	}
}
