package onnx

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
	"github.com/cvarlearn/cvar/internal/modelkind"
	pb "github.com/cvarlearn/cvar/onnx/internal/onnxpb"
)

// exportCase is a model to train, export and run.
type exportCase struct {
	kind   string
	k      int  // classes; 0 for regression
	sparse bool // trained on sparse data, scaled without centring
	divide bool // 8-bit features divided by 255 before the z-score
}

var exportCases = []exportCase{
	{kind: batch.KindLogistic, k: 2},
	{kind: batch.KindSoftmax, k: 3},
	{kind: batch.KindMLP, k: 3},
	{kind: batch.KindLinear},
	{kind: batch.KindLAD},
	{kind: batch.KindSoftmax, k: 4, divide: true},
	{kind: batch.KindMLP, k: 3, divide: true},
	{kind: batch.KindLogistic, k: 2, sparse: true},
	{kind: batch.KindSoftmax, k: 3, sparse: true},
	{kind: batch.KindMLP, k: 3, sparse: true},
	{kind: batch.KindLinear, sparse: true},
}

func (c exportCase) String() string {
	s := c.kind
	if c.sparse {
		s += "-sparse"
	}
	if c.divide {
		s += "-divide"
	}
	return s
}

const nTrain, nTest, dim = 300, 100, 7

// trained is a model of case c trained by cvar.Train in precision T, with
// the raw features of held-out rows and the scores the library gives
// them, as cvar predict computes them (preprocessing, then
// Evaluator.Scores on dense or sparse data).
func trained[T batch.Float](t *testing.T, c exportCase) (m *cvar.ModelFile, raw, scores []T) {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, uint64(len(c.String()))))
	n := nTrain + nTest
	x := make([]T, n*dim)
	for i := range x {
		switch {
		case c.sparse && rng.Float64() < 0.7:
		case c.sparse:
			x[i] = T(rng.ExpFloat64() * 4)
		case c.divide:
			x[i] = T(rng.IntN(256))
		default:
			x[i] = T(rng.NormFloat64()*3 + 2)
		}
	}
	prep := preprocessingOf(x[:nTrain*dim], c)
	inputs := slices.Clone(x)
	if err := dataset.Preprocess(&prep, inputs, dim); err != nil {
		t.Fatal(err)
	}
	labels, y := targets(rng, inputs, c.k)
	model, err := batch.NewModel[T](c.kind, dim, c.k, 5)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cvar.Train(model, dataOf(t, inputs, 0, nTrain, labels, y, c), cvar.Options{Method: cvar.Alg3, Alpha: 0.2, Batch: 32, Epochs: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	m = &cvar.ModelFile{
		Kind: c.kind, D: dim, K: c.k, Precision: cvar.F64, Tau: res.Tau, Alpha: res.Params.Alpha, Method: cvar.Alg3,
		Preprocessing: prep, Params: res.Params, Source: cvar.Provenance{Kind: "synthetic", Name: "test", N: nTrain},
	}
	if c.kind == batch.KindMLP {
		m.Hidden = 5
	}
	if _, ok := any(T(0)).(float32); ok {
		m.Precision = cvar.F32
	}
	for _, v := range res.Theta {
		m.Theta = append(m.Theta, float64(v))
	}
	for j := range c.k {
		m.Classes = append(m.Classes, []string{"nein", "ja", "ça", "Δ"}[j])
	}
	ev, err := cvar.NewEvaluator(model, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer ev.Close()
	scores, err = ev.Scores(res.Theta, dataOf(t, inputs, nTrain, n, labels, y, c))
	if err != nil {
		t.Fatal(err)
	}
	return m, x[nTrain*dim:], scores
}

// preprocessingOf is the preprocessing cvar train fits on training rows x:
// max |x| without centring for sparse data, else the z-score, after a
// division by 255 where c asks for it.
func preprocessingOf[T batch.Float](x []T, c exportCase) dataset.Preprocessing {
	var p dataset.Preprocessing
	if c.divide {
		p.Divide = 255
	}
	p.Mean, p.Scale = make([]float64, dim), make([]float64, dim)
	n := float64(len(x) / dim)
	v := func(i int) float64 { return float64(x[i]) / max(p.Divide, 1) }
	for i := range x {
		if c.sparse {
			p.Scale[i%dim] = max(p.Scale[i%dim], math.Abs(v(i)))
		} else {
			p.Mean[i%dim] += v(i) / n
		}
	}
	for i := range x {
		if !c.sparse {
			e := v(i) - p.Mean[i%dim]
			p.Scale[i%dim] += e * e / n
		}
	}
	for j := range p.Scale {
		if !c.sparse {
			p.Scale[j] = math.Sqrt(p.Scale[j])
		}
		if p.Scale[j] == 0 {
			p.Scale[j] = 1
		}
	}
	return p
}

// targets are labels of k classes (the largest of random linear scores)
// or, for k = 0, regression targets around 50.
func targets[T batch.Float](rng *rand.Rand, x []T, k int) ([]int32, []T) {
	n := len(x) / dim
	w := make([]float64, max(k, 1)*dim)
	for j := range w {
		w[j] = rng.NormFloat64()
	}
	var labels []int32
	var y []T
	for i := range n {
		best, top := 0, math.Inf(-1)
		for c := range max(k, 1) {
			s := rng.NormFloat64() * 0.3
			for j := range dim {
				s += w[c*dim+j] * float64(x[i*dim+j])
			}
			if s > top {
				best, top = c, s
			}
		}
		if k == 0 {
			y = append(y, T(50+10*top))
		} else {
			labels = append(labels, int32(best))
		}
	}
	return labels, y
}

// dataOf is rows lo..hi of x with their targets, dense or sparse.
func dataOf[T batch.Float](t *testing.T, x []T, lo, hi int, labels []int32, y []T, c exportCase) *batch.Data[T] {
	t.Helper()
	rows := x[lo*dim : hi*dim]
	var lab []int32
	var ys []T
	if labels != nil {
		lab = labels[lo:hi]
	} else {
		ys = y[lo:hi]
	}
	var data *batch.Data[T]
	var err error
	if c.sparse {
		indptr := []int64{0}
		var cols []uint32
		var vals []T
		for i := range hi - lo {
			for j, v := range rows[i*dim : (i+1)*dim] {
				if v != 0 {
					cols, vals = append(cols, uint32(j)), append(vals, v)
				}
			}
			indptr = append(indptr, int64(len(cols)))
		}
		data, err = batch.NewSparseData(indptr, cols, vals, hi-lo, dim, ys, lab, c.k)
	} else {
		data, err = batch.NewData(slices.Clone(rows), hi-lo, dim, ys, lab, c.k)
	}
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestExportRuns(t *testing.T) {
	for _, c := range exportCases {
		t.Run(c.String()+"/f32", func(t *testing.T) { checkExport[float32](t, c, 1e-5) })
		t.Run(c.String()+"/f64", func(t *testing.T) { checkExport[float64](t, c, 1e-12) })
	}
}

// checkExport exports a model of case c, decodes it, checks its graph and
// metadata, and runs it on the held-out rows: its scores, probabilities,
// classes and values must be the library's, to tol relative.
func checkExport[T batch.Float](t *testing.T, c exportCase, tol float64) {
	m, raw, want := trained[T](t, c)
	var buf bytes.Buffer
	if err := Export(&buf, m, Options{ModelName: "test.cvar"}); err != nil {
		t.Fatal(err)
	}
	var mp pb.ModelProto
	if err := mp.Unmarshal(buf.Bytes()); err != nil {
		t.Fatal(err)
	}
	elem := pb.TensorProto_DOUBLE
	if m.Precision == cvar.F32 {
		elem = pb.TensorProto_FLOAT
	}
	checkHeader(t, &mp, m, elem)
	checkMetadata(t, &mp, m)
	x := &tensor{typ: elem, shape: []int{nTest, dim}}
	for _, v := range raw {
		x.f = append(x.f, float64(v))
	}
	vals, err := run(mp.Graph, x)
	if err != nil {
		t.Fatal(err)
	}
	k := max(1, c.k)
	if c.kind == batch.KindLogistic {
		k = 1
	}
	out := func(name string) *tensor {
		v := vals[name]
		if v == nil {
			t.Fatalf("no output %s", name)
		}
		return v
	}
	if c.k == 0 {
		checkClose(t, "value", out("value").f, want, tol)
		return
	}
	checkClose(t, "scores", out("scores").f, want, tol)
	probs, index, label := out("probabilities"), out("class_index"), out("label")
	for i := range nTest {
		row := want[i*k : (i+1)*k]
		p := probabilities(row)
		for j, v := range probs.f[i*c.k : (i+1)*c.k] {
			if math.Abs(v-p[j]) > tol*p[j] {
				t.Fatalf("row %d: probability %d is %v, want %v (softmax of the library's scores %v)", i, j, v, p[j], row)
			}
		}
		cls := modelkind.Class(row)
		if index.i[i] != int64(cls) || string(label.s[i]) != m.Classes[cls] {
			t.Fatalf("row %d: class %d %q, want %d %q (scores %v)", i, index.i[i], label.s[i], cls, m.Classes[cls], row)
		}
	}
}

// probabilities are the softmax of the scores, in float64; for one score
// m (logistic regression), σ(−m) and σ(m).
func probabilities[T batch.Float](row []T) []float64 {
	z := make([]float64, len(row))
	for j, v := range row {
		z[j] = float64(v)
	}
	if len(z) == 1 {
		z = []float64{-z[0] / 2, z[0] / 2}
	}
	top := slices.Max(z)
	var sum float64
	p := make([]float64, len(z))
	for j, v := range z {
		p[j] = math.Exp(v - top)
		sum += p[j]
	}
	for j := range p {
		p[j] /= sum
	}
	return p
}

// checkClose fails where got differs from want by more than tol times the
// largest |want|.
func checkClose[T batch.Float](t *testing.T, what string, got []float64, want []T, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	var scale float64
	for _, v := range want {
		scale = max(scale, math.Abs(float64(v)))
	}
	for i, v := range got {
		if math.Abs(v-float64(want[i])) > tol*scale {
			t.Fatalf("%s %d: %v, want %v (tolerance %g of %g)", what, i, v, want[i], tol, scale)
		}
	}
}

// checkHeader checks the versions, the input, the outputs and the operators
// of an exported model.
func checkHeader(t *testing.T, mp *pb.ModelProto, m *cvar.ModelFile, elem pb.TensorProto_DataType) {
	t.Helper()
	if *mp.IrVersion != IRVersion || len(mp.OpsetImport) != 1 || *mp.OpsetImport[0].Domain != "" || *mp.OpsetImport[0].Version != Opset {
		t.Fatalf("IR version %d, opsets %v; want %d and opset %d of the default domain", *mp.IrVersion, mp.OpsetImport, IRVersion, Opset)
	}
	in, outs, err := Signature(m)
	if err != nil {
		t.Fatal(err)
	}
	g := mp.Graph
	if len(g.Input) != 1 || !reflect.DeepEqual(tensorOf(g.Input[0]), in) || *g.Input[0].Type.TensorType.ElemType != int32(elem) {
		t.Fatalf("input %v, want %v of type %d", g.Input, in, elem)
	}
	if in.Name != "features" || !slices.Equal(in.Shape, []int64{-1, dim}) || *g.Input[0].Type.TensorType.Shape.Dim[0].DimParam != "N" {
		t.Fatalf("input %+v, want features [N, %d]", in, dim)
	}
	var names []string
	for i, o := range g.Output {
		names = append(names, *o.Name)
		if !reflect.DeepEqual(tensorOf(o), outs[i]) {
			t.Fatalf("output %d: %+v, Signature says %+v", i, tensorOf(o), outs[i])
		}
	}
	want := []string{"label", "probabilities", "class_index", "scores"}
	if m.K == 0 {
		want = []string{"value"}
	}
	if !slices.Equal(names, want) {
		t.Fatalf("outputs %v, want %v", names, want)
	}
	var ops []string
	for _, n := range g.Node {
		ops = append(ops, *n.OpType)
	}
	if slices.Contains(ops, "Sub") != m.Preprocessing.Centres() || slices.Contains(ops, "Mul") != (m.Preprocessing.Divide > 0 || m.Kind == batch.KindLogistic) {
		t.Fatalf("operators %v for preprocessing %+v", ops, m.Preprocessing)
	}
}

// checkMetadata checks the metadata_props against the model file.
func checkMetadata(t *testing.T, mp *pb.ModelProto, m *cvar.ModelFile) {
	t.Helper()
	meta := map[string]string{}
	for _, p := range mp.MetadataProps {
		if _, dup := meta[*p.Key]; dup {
			t.Fatalf("metadata key %s repeated", *p.Key)
		}
		meta[*p.Key] = *p.Value
	}
	var file bytes.Buffer
	if err := cvar.SaveModel(&file, m); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(file.Bytes())
	for key, want := range map[string]string{
		"cvar.kind": m.Kind, "cvar.precision": m.Precision, "cvar.d": fmt.Sprint(m.D), "cvar.k": fmt.Sprint(m.K),
		"cvar.method": "alg3", "cvar.model_name": "test.cvar", "cvar.model_sha256": hex.EncodeToString(sum[:]),
		"cvar.model_file_version": "1",
	} {
		if meta[key] != want {
			t.Errorf("metadata %s = %q, want %q", key, meta[key], want)
		}
	}
	var classes []string
	if err := json.Unmarshal([]byte(meta["cvar.classes"]), &classes); m.K > 0 && (err != nil || !slices.Equal(classes, m.Classes)) {
		t.Errorf("metadata cvar.classes = %s, want %q", meta["cvar.classes"], m.Classes)
	}
	var prep dataset.Preprocessing
	if err := json.Unmarshal([]byte(meta["cvar.preprocessing"]), &prep); err != nil || !reflect.DeepEqual(prep, m.Preprocessing) {
		t.Errorf("metadata cvar.preprocessing = %s, want %+v", meta["cvar.preprocessing"], m.Preprocessing)
	}
	var source cvar.Provenance
	if err := json.Unmarshal([]byte(meta["cvar.source"]), &source); err != nil || source.Kind != "synthetic" || source.N != nTrain {
		t.Errorf("metadata cvar.source = %s", meta["cvar.source"])
	}
	var params map[string]any
	if err := json.Unmarshal([]byte(meta["cvar.params"]), &params); err != nil || params["batch"] != 32.0 {
		t.Errorf("metadata cvar.params = %s, want the training's batch 32", meta["cvar.params"])
	}
}

func TestExportDeterministic(t *testing.T) {
	m, _, _ := trained[float32](t, exportCases[2])
	a, err := Marshal(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Marshal(m, Options{})
	if !bytes.Equal(a, b) {
		t.Fatal("two exports of one model differ")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestExportErrors(t *testing.T) {
	m, _, _ := trained[float64](t, exportCases[0])
	bad := *m
	bad.Theta = slices.Clone(m.Theta)
	bad.Theta[0] = math.NaN()
	var buf bytes.Buffer
	for _, c := range []struct {
		name string
		w    *bytes.Buffer
		m    *cvar.ModelFile
		is   error
	}{
		{"nil model", &buf, nil, cvar.ErrModelInvalid},
		{"NaN parameter", &buf, &bad, cvar.ErrModelInvalid},
		{"nil writer", nil, m, nil},
	} {
		var err error
		if c.w == nil {
			err = Export(nil, c.m, Options{})
		} else {
			err = Export(c.w, c.m, Options{})
		}
		if err == nil || c.is != nil && !errors.Is(err, c.is) {
			t.Errorf("%s: error %v, want one matching %v", c.name, err, c.is)
		}
		if buf.Len() != 0 {
			t.Errorf("%s: %d bytes written", c.name, buf.Len())
		}
	}
	if err := Export(failWriter{}, m, Options{}); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("failing writer: error %v", err)
	}
	if _, _, err := Signature(&bad); !errors.Is(err, cvar.ErrModelInvalid) {
		t.Errorf("Signature of an invalid model: error %v", err)
	}
}

func TestExportLatin1Classes(t *testing.T) {
	m, _, _ := trained[float64](t, exportCases[1])
	m.Classes = []string{"caf\xe9", "tea", "ça"}
	b, err := Marshal(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var mp pb.ModelProto
	if err := mp.Unmarshal(b); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, init := range mp.Graph.Initializer {
		if *init.Name == "classes" {
			for _, s := range init.StringData {
				got = append(got, string(s))
			}
		}
	}
	if want := []string{"café", "tea", "ça"}; !slices.Equal(got, want) {
		t.Errorf("classes %q, want %q", got, want)
	}
	m.Classes[1] = "café"
	if _, err := Marshal(m, Options{}); err == nil || !strings.Contains(err.Error(), `"caf\xe9" and "café"`) {
		t.Errorf("classes that coincide in UTF-8: error %v", err)
	}
}
