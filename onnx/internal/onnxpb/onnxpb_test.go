package onnxpb

import (
	"bytes"
	"encoding/hex"
	"math"
	"reflect"
	"testing"
)

func ptr[T any](v T) *T { return &v }

// golden is the model below as Python's protobuf (onnx 1.17.0, protobuf
// 7.36.2) serialises it with deterministic=True: fields in number order,
// packed numbers, a negative int64 as a 10-byte varint, an empty but
// present bytes field, proto2 presence of a zero.
const golden = "08071204637661723abe010a450a01610a016212016322064172674d61782a140a046178697318ffffffffffffffffff01a001022a0f0a05616c706861150000003fa001012a0b0a047a65726f1800a001021201672a110802100122080000c03f000010c04201572a3108030801100b3a0cfbffffffffffffffff01ac0242014452189c7500883ce4377e000000000000008000000000000008402a0f100832017832003201ff4201534a005a1b0a086665617475726573120f0a0d080112090a0312014e0a02080742040a00100d72070a016b1202c3a4"

func goldenModel() *ModelProto {
	return &ModelProto{
		IrVersion:    ptr(int64(7)),
		ProducerName: ptr("cvar"),
		OpsetImport:  []*OperatorSetIdProto{{Domain: ptr(""), Version: ptr(int64(13))}},
		Graph: &GraphProto{
			Name: ptr("g"),
			Node: []*NodeProto{{
				OpType: ptr("ArgMax"), Input: []string{"a", "b"}, Output: []string{"c"},
				Attribute: []*AttributeProto{
					{Name: ptr("axis"), Type: ptr(AttributeProto_INT), I: ptr(int64(-1))},
					{Name: ptr("alpha"), Type: ptr(AttributeProto_FLOAT), F: ptr(float32(0.5))},
					{Name: ptr("zero"), Type: ptr(AttributeProto_INT), I: ptr(int64(0))},
				},
			}},
			Initializer: []*TensorProto{
				{Name: ptr("W"), Dims: []int64{2}, DataType: ptr(int32(TensorProto_FLOAT)), FloatData: []float32{1.5, -2.25}},
				{Name: ptr("D"), Dims: []int64{3, 1}, DataType: ptr(int32(TensorProto_DOUBLE)), DoubleData: []float64{1e300, math.Copysign(0, -1), 3}, Int64Data: []int64{-5, 300}},
				{Name: ptr("S"), DataType: ptr(int32(TensorProto_STRING)), StringData: [][]byte{[]byte("x"), {}, {0xff}}, RawData: []byte{}},
			},
			Input: []*ValueInfoProto{{Name: ptr("features"), Type: &TypeProto{TensorType: &TypeProto_Tensor{
				ElemType: ptr(int32(TensorProto_FLOAT)),
				Shape:    &TensorShapeProto{Dim: []*TensorShapeProto_Dimension{{DimParam: ptr("N")}, {DimValue: ptr(int64(7))}}},
			}}}},
		},
		MetadataProps: []*StringStringEntryProto{{Key: ptr("k"), Value: ptr("ä")}},
	}
}

func TestMarshalMatchesProtobuf(t *testing.T) {
	want, _ := hex.DecodeString(golden)
	if got := goldenModel().Marshal(); !bytes.Equal(got, want) {
		t.Fatalf("Marshal:\n got %x\nwant %x", got, want)
	}
}

func TestUnmarshalRoundTrip(t *testing.T) {
	b, _ := hex.DecodeString(golden)
	var m ModelProto
	if err := m.Unmarshal(b); err != nil {
		t.Fatal(err)
	}
	if want := goldenModel(); !reflect.DeepEqual(&m, want) {
		t.Fatalf("Unmarshal gave %+v, want %+v", &m, want)
	}
	if !bytes.Equal(m.Marshal(), b) {
		t.Fatal("Marshal of the decoded model differs from its bytes")
	}
}

func TestUnmarshalUnpackedAndUnknown(t *testing.T) {
	// dims 2 and 3 unpacked (field 1, varints), then an unknown field 99
	// (fixed32), then float_data packed.
	b := []byte{0x08, 2, 0x08, 3, 0x9d, 0x06, 1, 2, 3, 4, 0x22, 4, 0, 0, 0xc0, 0x3f}
	var tp TensorProto
	if err := tp.Unmarshal(b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tp.Dims, []int64{2, 3}) || !reflect.DeepEqual(tp.FloatData, []float32{1.5}) {
		t.Fatalf("dims %v, float_data %v", tp.Dims, tp.FloatData)
	}
}

func TestUnmarshalMalformed(t *testing.T) {
	full, _ := hex.DecodeString(golden)
	for _, b := range [][]byte{
		full[:len(full)-1], // truncated string
		{0x08},             // a tag without its value
		{0x0a, 0x05, 'a'},  // a length past the end
		{0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, // an 11-byte varint
		{0x0f, 0}, // wire type 7
		{0x00, 0}, // field 0
	} {
		var m ModelProto
		if err := m.Unmarshal(b); err == nil {
			t.Errorf("Unmarshal(%x) succeeded", b)
		}
	}
}

// FuzzUnmarshal: any bytes decode without a panic, and what decodes
// encodes to bytes that decode to a message of the same encoding.
func FuzzUnmarshal(f *testing.F) {
	b, _ := hex.DecodeString(golden)
	f.Add(b)
	f.Add([]byte{0x3a, 0x02, 0x0a, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		var m ModelProto
		if m.Unmarshal(b) != nil {
			return
		}
		var again ModelProto
		if err := again.Unmarshal(m.Marshal()); err != nil {
			t.Fatalf("re-decoding: %v", err)
		}
		if !bytes.Equal(m.Marshal(), again.Marshal()) { // bytes, as NaN != NaN
			t.Fatalf("decoded %+v, after a round trip %+v", &m, &again)
		}
	})
}
