package onnx

import (
	"encoding/binary"
	"math"

	pb "github.com/cvarlearn/cvar/onnx/internal/onnxpb"
)

// graph collects the nodes and initializers of an ONNX graph.
type graph struct {
	nodes []*pb.NodeProto
	inits []*pb.TensorProto
	elem  pb.TensorProto_DataType // the model's element type: FLOAT or DOUBLE
}

func ptr[T any](v T) *T { return &v }

// node appends a node of operator op and returns out. The node has the
// given inputs and attributes, and one output named out.
func (g *graph) node(op, out string, inputs []string, attrs ...*pb.AttributeProto) string {
	g.nodes = append(g.nodes, &pb.NodeProto{
		Name: ptr(out), OpType: ptr(op), Input: inputs, Output: []string{out}, Attribute: attrs,
	})
	return out
}

func intAttr(name string, v int64) *pb.AttributeProto {
	return &pb.AttributeProto{Name: ptr(name), Type: ptr(pb.AttributeProto_INT), I: ptr(v)}
}

// floats adds an initializer of the values v with shape dims and returns
// its name. Its element type is the graph's when typed is 0, else typed
// (FLOAT or DOUBLE).
func (g *graph) floats(name string, dims []int64, v []float64, typed pb.TensorProto_DataType) string {
	if typed == 0 {
		typed = g.elem
	}
	var raw []byte
	if typed == pb.TensorProto_FLOAT {
		raw = make([]byte, 0, 4*len(v))
		for _, x := range v {
			raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(float32(x)))
		}
	} else {
		raw = make([]byte, 0, 8*len(v))
		for _, x := range v {
			raw = binary.LittleEndian.AppendUint64(raw, math.Float64bits(x))
		}
	}
	g.inits = append(g.inits, &pb.TensorProto{Name: ptr(name), Dims: dims, DataType: ptr(int32(typed)), RawData: raw})
	return name
}

// int64s adds an initializer of int64 values with shape dims.
func (g *graph) int64s(name string, dims []int64, v []int64) string {
	raw := make([]byte, 0, 8*len(v))
	for _, x := range v {
		raw = binary.LittleEndian.AppendUint64(raw, uint64(x))
	}
	g.inits = append(g.inits, &pb.TensorProto{Name: ptr(name), Dims: dims, DataType: ptr(int32(pb.TensorProto_INT64)), RawData: raw})
	return name
}

// strings adds a one-dimensional initializer of texts.
func (g *graph) strings(name string, v []string) string {
	data := make([][]byte, len(v))
	for i, s := range v {
		data[i] = []byte(s)
	}
	g.inits = append(g.inits, &pb.TensorProto{Name: ptr(name), Dims: []int64{int64(len(v))}, DataType: ptr(int32(pb.TensorProto_STRING)), StringData: data})
	return name
}

// cast converts x to the element type to.
func (g *graph) cast(out, x string, to pb.TensorProto_DataType) string {
	return g.node("Cast", out, []string{x}, intAttr("to", int64(to)))
}

// gemm is x·Wᵀ + b for a weight matrix W of rows×cols, row-major in w.
func (g *graph) gemm(out, x, wName, bName string, rows, cols int, w, b []float64) string {
	W := g.floats(wName, []int64{int64(rows), int64(cols)}, w, 0)
	B := g.floats(bName, []int64{int64(rows)}, b, 0)
	return g.node("Gemm", out, []string{x, W, B}, intAttr("transB", 1))
}

// valueInfo is a graph input or output of element type elem. Its first
// dimension is the batch ("N"); its other dimensions are fixed.
func valueInfo(name string, elem pb.TensorProto_DataType, dims ...int64) *pb.ValueInfoProto {
	shape := &pb.TensorShapeProto{Dim: []*pb.TensorShapeProto_Dimension{{DimParam: ptr("N")}}}
	for _, d := range dims {
		shape.Dim = append(shape.Dim, &pb.TensorShapeProto_Dimension{DimValue: ptr(d)})
	}
	return &pb.ValueInfoProto{Name: ptr(name), Type: &pb.TypeProto{
		TensorType: &pb.TypeProto_Tensor{ElemType: ptr(int32(elem)), Shape: shape},
	}}
}
