package onnx

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	pb "github.com/cvarlearn/cvar/onnx/internal/onnxpb"
)

// A small interpreter of the operators the exporter writes, as the ONNX
// operator specifications define them (opset 13), so that the tests run
// exported graphs without an ONNX runtime. Float tensors hold their values
// as float64; a FLOAT tensor's values are rounded to float32 after each
// operator, as a float32 runtime stores them.

type tensor struct {
	typ   pb.TensorProto_DataType // FLOAT, DOUBLE, INT64, STRING or BOOL
	shape []int
	f     []float64 // FLOAT, DOUBLE, BOOL (0 or 1)
	i     []int64   // INT64
	s     [][]byte  // STRING
}

func (t *tensor) round() *tensor {
	if t.typ == pb.TensorProto_FLOAT {
		for j, v := range t.f {
			t.f[j] = float64(float32(v))
		}
	}
	return t
}

// initializer decodes an initializer as the exporter writes it.
func initializer(p *pb.TensorProto) (*tensor, error) {
	t := &tensor{typ: pb.TensorProto_DataType(*p.DataType)}
	for _, d := range p.Dims {
		t.shape = append(t.shape, int(d))
	}
	raw := p.RawData
	switch t.typ {
	case pb.TensorProto_FLOAT:
		for j := 0; j+4 <= len(raw); j += 4 {
			t.f = append(t.f, float64(math.Float32frombits(binary.LittleEndian.Uint32(raw[j:]))))
		}
	case pb.TensorProto_DOUBLE:
		for j := 0; j+8 <= len(raw); j += 8 {
			t.f = append(t.f, math.Float64frombits(binary.LittleEndian.Uint64(raw[j:])))
		}
	case pb.TensorProto_INT64:
		for j := 0; j+8 <= len(raw); j += 8 {
			t.i = append(t.i, int64(binary.LittleEndian.Uint64(raw[j:])))
		}
	case pb.TensorProto_STRING:
		t.s = p.StringData
	default:
		return nil, fmt.Errorf("initializer %s of type %d", *p.Name, t.typ)
	}
	return t, nil
}

// run evaluates graph g on its one input x and returns every value by name.
func run(g *pb.GraphProto, x *tensor) (map[string]*tensor, error) {
	vals := map[string]*tensor{*g.Input[0].Name: x}
	for _, p := range g.Initializer {
		t, err := initializer(p)
		if err != nil {
			return nil, err
		}
		vals[*p.Name] = t
	}
	for _, n := range g.Node {
		in := make([]*tensor, len(n.Input))
		for j, name := range n.Input {
			if in[j] = vals[name]; in[j] == nil {
				return nil, fmt.Errorf("node %s: input %s is not defined before it", *n.Name, name)
			}
		}
		attrs := map[string]int64{}
		for _, a := range n.Attribute {
			if !slices.Contains(knownAttrs[*n.OpType], *a.Name) || *a.Type != pb.AttributeProto_INT {
				return nil, fmt.Errorf("node %s: attribute %s is not interpreted", *n.Name, *a.Name)
			}
			attrs[*a.Name] = *a.I
		}
		out, err := apply(*n.OpType, in, attrs)
		if err != nil {
			return nil, fmt.Errorf("node %s: %v", *n.Name, err)
		}
		vals[n.Output[0]] = out
	}
	return vals, nil
}

// knownAttrs are the attributes the interpreter applies, each an INT.
var knownAttrs = map[string][]string{
	"Cast": {"to"}, "Gemm": {"transB"}, "Softmax": {"axis"}, "ArgMax": {"axis", "keepdims"},
	"Concat": {"axis"}, "Gather": {"axis"},
}

func apply(op string, in []*tensor, attrs map[string]int64) (*tensor, error) {
	switch {
	case (op == "Softmax" || op == "ArgMax" || op == "Concat") && attrs["axis"] != 1:
		return nil, fmt.Errorf("%s along axis %d, not 1", op, attrs["axis"])
	case op == "ArgMax" && !hasZero(attrs, "keepdims"), op == "Gather" && !hasZero(attrs, "axis"):
		return nil, fmt.Errorf("%s with attributes %v", op, attrs)
	}
	switch op {
	case "Cast":
		return cast(in[0], pb.TensorProto_DataType(attrs["to"])), nil
	case "Mul", "Sub", "Div", "Greater":
		return binary2(op, in[0], in[1])
	case "Neg", "Relu":
		out := &tensor{typ: in[0].typ, shape: in[0].shape, f: make([]float64, len(in[0].f))}
		for j, v := range in[0].f {
			if op == "Neg" {
				out.f[j] = -v
			} else {
				out.f[j] = max(v, 0)
			}
		}
		return out, nil
	case "Gemm":
		return gemm(in[0], in[1], in[2], attrs), nil
	case "Softmax":
		return softmax(in[0]), nil
	case "ArgMax":
		return argmax(in[0]), nil
	case "Concat":
		return concat(in[0], in[1]), nil
	case "Reshape":
		return &tensor{typ: in[0].typ, shape: []int{len(in[0].i)}, i: in[0].i}, nil
	case "Gather":
		out := &tensor{typ: in[0].typ, shape: []int{len(in[1].i)}}
		for _, k := range in[1].i {
			if k < 0 || int(k) >= len(in[0].s) {
				return nil, fmt.Errorf("Gather: index %d outside %d", k, len(in[0].s))
			}
			out.s = append(out.s, in[0].s[k])
		}
		return out, nil
	}
	return nil, fmt.Errorf("operator %s is not interpreted", op)
}

func cast(x *tensor, to pb.TensorProto_DataType) *tensor {
	out := &tensor{typ: to, shape: x.shape}
	if to == pb.TensorProto_INT64 {
		for _, v := range x.f {
			out.i = append(out.i, int64(v))
		}
		return out
	}
	out.f = append([]float64(nil), x.f...)
	return out.round()
}

// binary2 applies op with b broadcast against a: b a scalar or a vector
// along a's last dimension.
func binary2(op string, a, b *tensor) (*tensor, error) {
	if a.typ != b.typ {
		return nil, fmt.Errorf("%s of types %d and %d", op, a.typ, b.typ)
	}
	last := a.shape[len(a.shape)-1]
	if len(b.f) != 1 && len(b.f) != last {
		return nil, fmt.Errorf("%s: %d values do not broadcast to %v", op, len(b.f), a.shape)
	}
	out := &tensor{typ: a.typ, shape: a.shape, f: make([]float64, len(a.f))}
	for j, v := range a.f {
		w := b.f[0]
		if len(b.f) > 1 {
			w = b.f[j%last]
		}
		switch op {
		case "Mul":
			out.f[j] = v * w
		case "Sub":
			out.f[j] = v - w
		case "Div":
			out.f[j] = v / w
		case "Greater":
			out.f[j] = 0
			if v > w {
				out.f[j] = 1
			}
		}
	}
	if op == "Greater" {
		out.typ = pb.TensorProto_BOOL
	}
	return out.round(), nil
}

func gemm(a, b, c *tensor, attrs map[string]int64) *tensor {
	if attrs["transB"] != 1 {
		panic("gemm without transB")
	}
	n, d, k := a.shape[0], a.shape[1], b.shape[0]
	out := &tensor{typ: a.typ, shape: []int{n, k}, f: make([]float64, n*k)}
	for i := range n {
		for j := range k {
			s := c.f[j]
			for l := range d {
				s += a.f[i*d+l] * b.f[j*d+l]
			}
			out.f[i*k+j] = s
		}
	}
	return out.round()
}

func softmax(x *tensor) *tensor {
	n, k := x.shape[0], x.shape[1]
	out := &tensor{typ: x.typ, shape: x.shape, f: make([]float64, n*k)}
	for i := range n {
		row := x.f[i*k : (i+1)*k]
		top := math.Inf(-1)
		for _, v := range row {
			top = max(top, v)
		}
		var sum float64
		for j, v := range row {
			out.f[i*k+j] = math.Exp(v - top)
			sum += out.f[i*k+j]
		}
		for j := range row {
			out.f[i*k+j] /= sum
		}
	}
	return out.round()
}

// argmax is ArgMax along axis 1 without keepdims: the first largest.
func argmax(x *tensor) *tensor {
	n, k := x.shape[0], x.shape[1]
	out := &tensor{typ: pb.TensorProto_INT64, shape: []int{n}, i: make([]int64, n)}
	for i := range n {
		best := 0
		for j := 1; j < k; j++ {
			if x.f[i*k+j] > x.f[i*k+best] {
				best = j
			}
		}
		out.i[i] = int64(best)
	}
	return out
}

// concat joins two [N, ·] tensors along axis 1.
func concat(a, b *tensor) *tensor {
	n, p, q := a.shape[0], a.shape[1], b.shape[1]
	out := &tensor{typ: a.typ, shape: []int{n, p + q}}
	for i := range n {
		out.f = append(out.f, a.f[i*p:(i+1)*p]...)
		out.f = append(out.f, b.f[i*q:(i+1)*q]...)
	}
	return out
}

// hasZero reports whether attribute name is given, as 0 (a default of 1
// left out would not be).
func hasZero(attrs map[string]int64, name string) bool {
	v, ok := attrs[name]
	return ok && v == 0
}
