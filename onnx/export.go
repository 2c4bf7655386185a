// Package onnx writes cvar model files as ONNX models. ONNX Runtime and
// other ONNX tools run them without cvar.
//
// The exported graph takes the raw features that cvar predict reads: one
// row a sample, before preprocessing. It returns what cvar predict returns.
// The graph holds the preprocessing of the model file and the model. A
// classifier's graph returns the class probabilities, the predicted class
// (its text and its index) and the scores. A regression model's graph
// returns the value in the target's units. The graph's element type is
// the model's precision: float32 for an f32 model, float64 for an f64 one.
// The ONNX model's metadata_props hold the model file's kind, precision,
// classes and preprocessing. They also hold its training parameters and
// provenance. The repository's docs/formats.md lists the inputs, outputs,
// operators and metadata keys.
//
// Go code generated from ONNX's onnx.proto encodes the ONNX messages. So
// the package needs no protobuf module and no cgo.
package onnx

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
	pb "github.com/cvarlearn/cvar/onnx/internal/onnxpb"
)

// The ONNX versions the exported models declare. They are operator set 13
// of the default domain (ai.onnx) and IR version 7, the pair of ONNX 1.8.
// ONNX Runtime 1.7 and every later release runs them.
const (
	Opset     = 13
	IRVersion = 7
)

// maxBytes bounds the encoded model. Protobuf messages are limited to
// 2 GiB, and so are ONNX models without external data.
const maxBytes = 1<<31 - 1

// Options are the choices of an export.
type Options struct {
	// ModelName names the model file the model came from, such as its
	// base name. When not empty it is recorded as the metadata
	// "cvar.model_name".
	ModelName string
}

// Export writes m to w as an ONNX model (see the package documentation).
// It checks m first (ModelFile.Validate). It writes nothing if m is
// inconsistent or too large for an ONNX file (2 GiB).
func Export(w io.Writer, m *cvar.ModelFile, opt Options) error {
	if w == nil {
		return errors.New("onnx: no writer for the model (nil io.Writer)")
	}
	b, err := Marshal(m, opt)
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("onnx: writing the model: %w", err)
	}
	return nil
}

// Marshal returns m as the bytes of an ONNX model; see Export.
func Marshal(m *cvar.ModelFile, opt Options) ([]byte, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	width := 8
	if m.Precision == cvar.F32 {
		width = 4
	}
	if len(m.Theta) > (maxBytes-1<<20)/width {
		return nil, fmt.Errorf("onnx: the model's %d parameters take more than the 2 GiB an ONNX file without external data can hold", len(m.Theta))
	}
	graph, err := build(m)
	if err != nil {
		return nil, err
	}
	meta, err := metadata(m, opt)
	if err != nil {
		return nil, err
	}
	model := &pb.ModelProto{
		IrVersion:       ptr(int64(IRVersion)),
		OpsetImport:     []*pb.OperatorSetIdProto{{Domain: ptr(""), Version: ptr(int64(Opset))}},
		ProducerName:    ptr("cvar"),
		ProducerVersion: ptr(version()),
		DocString:       ptr(describe(m)),
		Graph:           graph,
		MetadataProps:   meta,
	}
	b := model.Marshal()
	if len(b) > maxBytes {
		return nil, fmt.Errorf("onnx: the model takes %d bytes, more than the 2 GiB an ONNX file without external data can hold", len(b))
	}
	return b, nil
}

// build is the graph of m: preprocessing, model and outputs.
func build(m *cvar.ModelFile) (*pb.GraphProto, error) {
	classes, err := classTexts(m.Classes)
	if err != nil {
		return nil, err
	}
	g := &graph{elem: pb.TensorProto_DOUBLE}
	if m.Precision == cvar.F32 {
		g.elem = pb.TensorProto_FLOAT
	}
	x := g.preprocess("features", &m.Preprocessing, m.D)
	var outputs []*pb.ValueInfoProto
	if m.K == 0 {
		g.scores(m, x, "value")
		outputs = []*pb.ValueInfoProto{valueInfo("value", g.elem, 1)}
	} else {
		outputs = g.classify(m, classes, g.scores(m, x, "scores"))
	}
	return &pb.GraphProto{
		Name:        ptr("cvar_" + m.Kind),
		Node:        g.nodes,
		Initializer: g.inits,
		Input:       []*pb.ValueInfoProto{valueInfo("features", g.elem, int64(m.D))},
		Output:      outputs,
	}, nil
}

// classTexts are the class texts as ONNX strings, which are UTF-8. A text
// that is not valid UTF-8 (a Latin-1 label) is read as Latin-1, one
// character a byte. Texts that then coincide are an error.
func classTexts(classes []string) ([]string, error) {
	out := make([]string, len(classes))
	seen := make(map[string]int, len(classes))
	for i, c := range classes {
		out[i] = c
		if !utf8.ValidString(c) {
			r := make([]rune, len(c))
			for j := range len(c) {
				r[j] = rune(c[j])
			}
			out[i] = string(r)
		}
		if j, dup := seen[out[i]]; dup {
			return nil, fmt.Errorf("onnx: classes %q and %q are both %q in UTF-8, as ONNX holds texts", classes[j], c, out[i])
		}
		seen[out[i]] = i
	}
	return out, nil
}

// preprocess adds the nodes of p on rows of d raw features x. It applies
// p as dataset.Preprocess does: in float64, the result rounded to the
// model's precision. It returns the name of the model's input.
func (g *graph) preprocess(x string, p *dataset.Preprocessing, d int) string {
	if p.Divide <= 0 && p.Mean == nil {
		return x
	}
	const f64, f32 = pb.TensorProto_DOUBLE, pb.TensorProto_FLOAT
	if g.elem == f32 {
		x = g.cast("features_f64", x, f64)
	}
	if p.Divide > 0 {
		x = g.node("Mul", "divided", []string{x, g.floats("inv_divide", nil, []float64{1 / p.Divide}, f64)})
		if p.Mean != nil && g.elem == f32 {
			// Preprocess stores the quotient in the model's precision
			// before the z-score reads it.
			x = g.cast("divided_f64", g.cast("divided_f32", x, f32), f64)
		}
	}
	if p.Mean != nil {
		if p.Centres() {
			x = g.node("Sub", "centred", []string{x, g.floats("mean", []int64{int64(d)}, p.Mean, f64)})
		}
		x = g.node("Div", "standardised", []string{x, g.floats("scale", []int64{int64(d)}, p.Scale, f64)})
	}
	if g.elem == f32 {
		x = g.cast("inputs", x, f32)
	}
	return x
}

// scores adds m's model on inputs x as the node out, and returns out. The
// node gives the batch model's Scores: margins, logits or values.
func (g *graph) scores(m *cvar.ModelFile, x, out string) string {
	d, k, th := m.D, m.K, m.Theta
	switch m.Kind {
	case batch.KindSoftmax:
		return g.gemm(out, x, "W", "b", k, d, th[:k*d], th[k*d:])
	case batch.KindMLP:
		h := m.Hidden
		o := h * d
		hidden := g.gemm("hidden_in", x, "W1", "b1", h, d, th[:o], th[o:o+h])
		hidden = g.node("Relu", "hidden", []string{hidden})
		o += h
		return g.gemm(out, hidden, "W2", "b2", k, h, th[o:o+k*h], th[o+k*h:])
	}
	return g.gemm(out, x, "W", "b", 1, d, th[:d], th[d:])
}

// classify adds the outputs of a classifier to its scores. They are the
// class text (classes) and index the cvar command predicts, and the
// probabilities. The probabilities are the softmax of the logits. For
// logistic regression they are σ(−m) and σ(m) of the margin m. The graph
// computes them as the softmax of (−m/2, m/2). That keeps the smaller
// one's relative precision however large |m|.
func (g *graph) classify(m *cvar.ModelFile, classes []string, scores string) []*pb.ValueInfoProto {
	var index, probs string
	width := int64(m.K)
	if m.Kind == batch.KindLogistic {
		width = 1
		positive := g.node("Greater", "positive", []string{scores, g.floats("zero", nil, []float64{0}, 0)})
		index = g.cast("positive_i64", positive, pb.TensorProto_INT64)
		index = g.node("Reshape", "class_index", []string{index, g.int64s("flat", []int64{1}, []int64{-1})})
		half := g.node("Mul", "half_margin", []string{scores, g.floats("half", nil, []float64{0.5}, 0)})
		pair := g.node("Concat", "half_margins", []string{g.node("Neg", "neg_half_margin", []string{half}), half}, intAttr("axis", 1))
		probs = g.node("Softmax", "probabilities", []string{pair}, intAttr("axis", 1))
	} else {
		index = g.node("ArgMax", "class_index", []string{scores}, intAttr("axis", 1), intAttr("keepdims", 0))
		probs = g.node("Softmax", "probabilities", []string{scores}, intAttr("axis", 1))
	}
	label := g.node("Gather", "label", []string{g.strings("classes", classes), index}, intAttr("axis", 0))
	return []*pb.ValueInfoProto{
		valueInfo(label, pb.TensorProto_STRING),
		valueInfo(probs, g.elem, int64(m.K)),
		valueInfo(index, pb.TensorProto_INT64),
		valueInfo(scores, g.elem, width),
	}
}

// metadata is the model's metadata_props. The model file's kind, shapes,
// precision, method, α and τ are text. Its header's classes, features,
// preprocessing, params and source are JSON. The SHA-256 of the model file
// and opt.ModelName follow.
func metadata(m *cvar.ModelFile, opt Options) ([]*pb.StringStringEntryProto, error) {
	var file bytes.Buffer
	if err := cvar.SaveModel(&file, m); err != nil {
		return nil, err
	}
	header, err := headerFields(file.Bytes())
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(file.Bytes())
	kv := [][2]string{
		{"cvar.kind", m.Kind},
		{"cvar.precision", m.Precision},
		{"cvar.d", strconv.Itoa(m.D)},
		{"cvar.k", strconv.Itoa(m.K)},
	}
	if m.Kind == batch.KindMLP {
		kv = append(kv, [2]string{"cvar.hidden", strconv.Itoa(m.Hidden)})
	}
	kv = append(kv,
		[2]string{"cvar.method", m.Method.String()},
		[2]string{"cvar.alpha", strconv.FormatFloat(m.Alpha, 'g', -1, 64)},
		[2]string{"cvar.tau", strconv.FormatFloat(m.Tau, 'g', -1, 64)})
	for _, key := range []string{"classes", "features", "preprocessing", "params", "source"} {
		if v, ok := header[key]; ok {
			kv = append(kv, [2]string{"cvar." + key, string(v)})
		}
	}
	kv = append(kv,
		[2]string{"cvar.model_file_version", strconv.Itoa(cvar.ModelFileVersion)},
		[2]string{"cvar.model_sha256", hex.EncodeToString(sum[:])},
		[2]string{"cvar.version", version()})
	if opt.ModelName != "" {
		// Protobuf strings are UTF-8; a file name need not be.
		kv = append(kv, [2]string{"cvar.model_name", strings.ToValidUTF8(opt.ModelName, "\uFFFD")})
	}
	props := make([]*pb.StringStringEntryProto, len(kv))
	for i, p := range kv {
		props[i] = &pb.StringStringEntryProto{Key: ptr(p[0]), Value: ptr(p[1])}
	}
	return props, nil
}

// headerFields returns the fields of the JSON header of a model file's
// bytes b, each as its JSON text. The header starts at byte 16 and its
// length is at byte 12 (see "Model files" in package cvar).
func headerFields(b []byte) (map[string]json.RawMessage, error) {
	n := int(binary.LittleEndian.Uint32(b[12:16]))
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b[16:16+n], &fields); err != nil {
		return nil, fmt.Errorf("onnx: reading the model header: %w", err)
	}
	return fields, nil
}

// describe is the model's doc_string.
func describe(m *cvar.ModelFile) string {
	what := fmt.Sprintf("%d classes", m.K)
	if m.K == 0 {
		what = "regression"
	}
	return fmt.Sprintf("cvar %s model (%s, %s; %d features, %s), trained by %s with α = %v",
		m.Kind, m.Precision, elemName(m.Precision), m.D, what, m.Method, m.Alpha)
}

func elemName(precision string) string {
	if precision == cvar.F32 {
		return "float32 inputs"
	}
	return "float64 inputs"
}

// version is the version of the cvar module in the running program. It
// is "(devel)" when the program was built from a source tree.
func version() string {
	const path = "github.com/cvarlearn/cvar"
	if info, ok := debug.ReadBuildInfo(); ok {
		if info.Main.Path == path && info.Main.Version != "" {
			return info.Main.Version
		}
		for _, d := range info.Deps {
			if d.Path == path && d.Replace != nil && d.Replace.Version != "" {
				return d.Replace.Version // a directory's is (devel), as the main module's
			}
			if d.Path == path && d.Version != "" {
				return d.Version
			}
		}
	}
	return "(devel)"
}

// Tensor describes an input or output of an exported graph.
type Tensor struct {
	Name string `json:"name"`
	// Type is the element type: "float32", "float64", "int64" or
	// "string".
	Type string `json:"type"`
	// Shape is the tensor's shape. −1 stands for the number of rows N,
	// which the graph leaves open.
	Shape []int64 `json:"shape"`
}

// Signature returns the input and the outputs of m's exported graph, in
// the graph's order. Its errors are Marshal's.
func Signature(m *cvar.ModelFile) (input Tensor, outputs []Tensor, err error) {
	if err := m.Validate(); err != nil {
		return Tensor{}, nil, err
	}
	g, err := build(m)
	if err != nil {
		return Tensor{}, nil, err
	}
	for _, v := range g.Output {
		outputs = append(outputs, tensorOf(v))
	}
	return tensorOf(g.Input[0]), outputs, nil
}

func tensorOf(v *pb.ValueInfoProto) Tensor {
	tt := v.Type.TensorType
	names := map[pb.TensorProto_DataType]string{
		pb.TensorProto_FLOAT: "float32", pb.TensorProto_DOUBLE: "float64",
		pb.TensorProto_INT64: "int64", pb.TensorProto_STRING: "string",
	}
	t := Tensor{Name: *v.Name, Type: names[pb.TensorProto_DataType(*tt.ElemType)]}
	for _, d := range tt.Shape.Dim {
		n := int64(-1)
		if d.DimValue != nil {
			n = *d.DimValue
		}
		t.Shape = append(t.Shape, n)
	}
	return t
}
