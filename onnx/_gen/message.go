package main

import (
	"fmt"
	"sort"
	"strings"

	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Wire types of the protobuf encoding.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

// kind is how a field's elements are held in Go and on the wire.
type kind struct {
	goType string
	wire   int
	// enc is the statement that appends value v to slice dst.
	enc func(dst, v string) string
	// dec converts the raw value r to goType. r is a uint64 for varints
	// and fixed64, a uint32 for fixed32 and a []byte for bytes.
	dec func(r string) string
}

func kindOf(g *protogen.GeneratedFile, f *protogen.Field) (kind, error) {
	varint := func(goType, toU, fromU string) kind {
		return kind{goType, wireVarint,
			func(dst, v string) string {
				return fmt.Sprintf("%s = appendVarint(%s, %s)", dst, dst, fmt.Sprintf(toU, v))
			},
			func(r string) string { return fmt.Sprintf(fromU, r) }}
	}
	fixed := func(goType string, wire int, bits, toU, fromU string) kind {
		return kind{goType, wire,
			func(dst, v string) string {
				return fmt.Sprintf("%s = appendFixed%s(%s, %s)", dst, bits, dst, fmt.Sprintf(toU, v))
			},
			func(r string) string { return fmt.Sprintf(fromU, r) }}
	}
	math := func(name string) string {
		return g.QualifiedGoIdent(protogen.GoIdent{GoName: name, GoImportPath: "math"})
	}
	switch f.Desc.Kind() {
	case protoreflect.Int32Kind:
		return varint("int32", "uint64(int64(%s))", "int32(%s)"), nil
	case protoreflect.Int64Kind:
		return varint("int64", "uint64(%s)", "int64(%s)"), nil
	case protoreflect.Uint32Kind:
		return varint("uint32", "uint64(%s)", "uint32(%s)"), nil
	case protoreflect.Uint64Kind:
		return varint("uint64", "%s", "%s"), nil
	case protoreflect.Sint32Kind:
		return varint("int32", "uint64(uint32(%[1]s<<1)^uint32(%[1]s>>31))", "int32(uint32(%[1]s)>>1)^-int32(%[1]s&1)"), nil
	case protoreflect.Sint64Kind:
		return varint("int64", "uint64(%[1]s<<1)^uint64(%[1]s>>63)", "int64(%[1]s>>1)^-int64(%[1]s&1)"), nil
	case protoreflect.BoolKind:
		return varint("bool", "boolVarint(%s)", "%s != 0"), nil
	case protoreflect.EnumKind:
		name := g.QualifiedGoIdent(f.Enum.GoIdent)
		return varint(name, "uint64(int64(%s))", name+"(int32(%s))"), nil
	case protoreflect.Fixed32Kind:
		return fixed("uint32", wireFixed32, "32", "%s", "%s"), nil
	case protoreflect.Sfixed32Kind:
		return fixed("int32", wireFixed32, "32", "uint32(%s)", "int32(%s)"), nil
	case protoreflect.FloatKind:
		return fixed("float32", wireFixed32, "32", math("Float32bits")+"(%s)", math("Float32frombits")+"(%s)"), nil
	case protoreflect.Fixed64Kind:
		return fixed("uint64", wireFixed64, "64", "%s", "%s"), nil
	case protoreflect.Sfixed64Kind:
		return fixed("int64", wireFixed64, "64", "uint64(%s)", "int64(%s)"), nil
	case protoreflect.DoubleKind:
		return fixed("float64", wireFixed64, "64", math("Float64bits")+"(%s)", math("Float64frombits")+"(%s)"), nil
	case protoreflect.StringKind:
		return kind{"string", wireBytes,
			func(dst, v string) string { return fmt.Sprintf("%s = appendBytes(%s, []byte(%s))", dst, dst, v) },
			func(r string) string { return "string(" + r + ")" }}, nil
	case protoreflect.BytesKind:
		return kind{"[]byte", wireBytes,
			func(dst, v string) string { return fmt.Sprintf("%s = appendBytes(%s, %s)", dst, dst, v) },
			func(r string) string { return "append([]byte{}, " + r + "...)" }}, nil
	case protoreflect.MessageKind:
		name := g.QualifiedGoIdent(f.Message.GoIdent)
		return kind{"*" + name, wireBytes,
			func(dst, v string) string { return fmt.Sprintf("%s = appendBytes(%s, %s.appendTo(nil))", dst, dst, v) },
			nil}, nil
	}
	return kind{}, fmt.Errorf("%s: %v fields are not supported", f.Desc.FullName(), f.Desc.Kind())
}

func genEnum(g *protogen.GeneratedFile, e *protogen.Enum) {
	g.P(comment(e.Comments.Leading))
	g.P("type ", e.GoIdent, " int32")
	g.P()
	g.P("const (")
	for _, v := range e.Values {
		g.P(comment(v.Comments.Leading), v.GoIdent, " ", e.GoIdent, " = ", v.Desc.Number())
	}
	g.P(")")
	g.P()
}

// comment is a leading comment of the .proto file as Go comment lines.
func comment(c protogen.Comments) string {
	s := strings.TrimRight(string(c), "\n")
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight("//"+l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

func genMessage(g *protogen.GeneratedFile, m *protogen.Message) error {
	if m.Desc.IsMapEntry() {
		return fmt.Errorf("%s: map fields are not supported", m.Desc.FullName())
	}
	kinds := make([]kind, len(m.Fields))
	for i, f := range m.Fields {
		if f.Desc.Kind() == protoreflect.GroupKind || f.Desc.IsMap() {
			return fmt.Errorf("%s: groups and maps are not supported", f.Desc.FullName())
		}
		k, err := kindOf(g, f)
		if err != nil {
			return err
		}
		kinds[i] = k
	}
	name := m.GoIdent.GoName
	g.P(comment(m.Comments.Leading), "type ", name, " struct {")
	for i, f := range m.Fields {
		t := kinds[i].goType
		switch {
		case f.Desc.IsList():
			t = "[]" + t
		case f.Desc.Kind() != protoreflect.BytesKind && f.Desc.Kind() != protoreflect.MessageKind:
			t = "*" + t
		}
		g.P(comment(f.Comments.Leading), f.GoName, " ", t, " // ", f.Desc.Number())
	}
	g.P("}")
	g.P()
	genMarshal(g, m, kinds)
	genUnmarshal(g, m, kinds)
	return nil
}

func tagOf(f *protogen.Field, wire int) uint64 { return uint64(f.Desc.Number())<<3 | uint64(wire) }

func genMarshal(g *protogen.GeneratedFile, m *protogen.Message, kinds []kind) {
	name := m.GoIdent.GoName
	g.P("// Marshal returns the protobuf wire encoding of m.")
	g.P("func (m *", name, ") Marshal() []byte { return m.appendTo(nil) }")
	g.P()
	g.P("func (m *", name, ") appendTo(b []byte) []byte {")
	g.P("if m == nil { return b }")
	// In field number order, as protobuf's deterministic encoding.
	order := make([]int, len(m.Fields))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		return m.Fields[order[a]].Desc.Number() < m.Fields[order[b]].Desc.Number()
	})
	for _, i := range order {
		f, k := m.Fields[i], kinds[i]
		fld := "m." + f.GoName
		tag := fmt.Sprintf("b = appendVarint(b, %d)", tagOf(f, k.wire))
		switch {
		case f.Desc.IsPacked():
			g.P("if len(", fld, ") > 0 {")
			g.P("var p []byte")
			g.P("for _, v := range ", fld, " {", k.enc("p", "v"), "}")
			g.P(fmt.Sprintf("b = appendVarint(b, %d)", tagOf(f, wireBytes)))
			g.P("b = appendBytes(b, p)")
			g.P("}")
		case f.Desc.IsList():
			g.P("for _, v := range ", fld, " {")
			g.P(tag)
			g.P(k.enc("b", "v"))
			g.P("}")
		case f.Desc.Kind() == protoreflect.BytesKind || f.Desc.Kind() == protoreflect.MessageKind:
			g.P("if ", fld, " != nil {")
			g.P(tag)
			g.P(k.enc("b", fld))
			g.P("}")
		default:
			g.P("if ", fld, " != nil {")
			g.P(tag)
			g.P(k.enc("b", "*"+fld))
			g.P("}")
		}
	}
	g.P("return b")
	g.P("}")
	g.P()
}

// consume is the helper reading a raw value of the wire type.
func consume(wire int) string {
	switch wire {
	case wireVarint:
		return "consumeVarint"
	case wireFixed64:
		return "consumeFixed64"
	case wireFixed32:
		return "consumeFixed32"
	}
	return "consumeBytes"
}

func genUnmarshal(g *protogen.GeneratedFile, m *protogen.Message, kinds []kind) {
	name := m.GoIdent.GoName
	g.P("// Unmarshal decodes the protobuf wire encoding b into m, merging")
	g.P("// as protobuf does: a singular field takes the last value, a")
	g.P("// repeated one appends. Unknown fields are skipped.")
	g.P("func (m *", name, ") Unmarshal(b []byte) error {")
	g.P("for len(b) > 0 {")
	g.P("num, wt, n := consumeTag(b)")
	g.P("if n < 0 { return errWire(", fmt.Sprintf("%q", name), ", num) }")
	g.P("b = b[n:]")
	g.P("switch {")
	for i, f := range m.Fields {
		k := kinds[i]
		num := f.Desc.Number()
		fld := "m." + f.GoName
		if f.Desc.IsList() && k.wire != wireBytes {
			// Packed or not, as protobuf parsers accept either.
			g.P("case num == ", num, " && wt == ", wireBytes, ":")
			g.P("p, n := consumeBytes(b)")
			g.P("if n < 0 { return errWire(", fmt.Sprintf("%q", name), ", num) }")
			g.P("b = b[n:]")
			g.P("for len(p) > 0 {")
			g.P("r, n := ", consume(k.wire), "(p)")
			g.P("if n < 0 { return errWire(", fmt.Sprintf("%q", name), ", num) }")
			g.P("p = p[n:]")
			g.P(fld, " = append(", fld, ", ", k.dec("r"), ")")
			g.P("}")
		}
		g.P("case num == ", num, " && wt == ", k.wire, ":")
		g.P("r, n := ", consume(k.wire), "(b)")
		g.P("if n < 0 { return errWire(", fmt.Sprintf("%q", name), ", num) }")
		g.P("b = b[n:]")
		switch {
		case f.Desc.Kind() == protoreflect.MessageKind && f.Desc.IsList():
			g.P("v := new(", g.QualifiedGoIdent(f.Message.GoIdent), ")")
			g.P("if err := v.Unmarshal(r); err != nil { return err }")
			g.P(fld, " = append(", fld, ", v)")
		case f.Desc.Kind() == protoreflect.MessageKind:
			g.P("if ", fld, " == nil { ", fld, " = new(", g.QualifiedGoIdent(f.Message.GoIdent), ") }")
			g.P("if err := ", fld, ".Unmarshal(r); err != nil { return err }")
		case f.Desc.IsList():
			g.P(fld, " = append(", fld, ", ", k.dec("r"), ")")
		case f.Desc.Kind() == protoreflect.BytesKind:
			g.P(fld, " = ", k.dec("r"))
		default:
			g.P("v := ", k.dec("r"))
			g.P(fld, " = &v")
		}
	}
	g.P("default:")
	g.P("n := skipField(b, wt)")
	g.P("if n < 0 { return errWire(", fmt.Sprintf("%q", name), ", num) }")
	g.P("b = b[n:]")
	g.P("}")
	g.P("}")
	g.P("return nil")
	g.P("}")
	g.P()
}

func genHelpers(g *protogen.GeneratedFile) {
	errorf := g.QualifiedGoIdent(protogen.GoIdent{GoName: "Errorf", GoImportPath: "fmt"})
	g.P(strings.ReplaceAll(helpers, "fmt.Errorf", errorf))
}

// helpers are the wire format's primitives, written once into each file.
const helpers = `func appendVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func appendFixed32(b []byte, v uint32) []byte {
	return append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
}

func appendFixed64(b []byte, v uint64) []byte {
	return appendFixed32(appendFixed32(b, uint32(v)), uint32(v>>32))
}

func appendBytes(b, v []byte) []byte {
	return append(appendVarint(b, uint64(len(v))), v...)
}

func boolVarint(v bool) uint64 {
	if v {
		return 1
	}
	return 0
}

// consumeVarint returns the varint at the start of b and its length.
// The length is negative if b does not start with one.
func consumeVarint(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < len(b) && i < 10; i++ {
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	return 0, -1
}

func consumeFixed32(b []byte) (uint32, int) {
	if len(b) < 4 {
		return 0, -1
	}
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24, 4
}

func consumeFixed64(b []byte) (uint64, int) {
	if len(b) < 8 {
		return 0, -1
	}
	lo, _ := consumeFixed32(b)
	hi, _ := consumeFixed32(b[4:])
	return uint64(lo) | uint64(hi)<<32, 8
}

// consumeBytes returns the length-delimited bytes at the start of b.
// It also returns the length they take with their prefix.
func consumeBytes(b []byte) ([]byte, int) {
	l, n := consumeVarint(b)
	if n < 0 || l > uint64(len(b)-n) {
		return nil, -1
	}
	return b[n : n+int(l)], n + int(l)
}

// consumeTag returns the field number, wire type and length of the tag
// at the start of b.
func consumeTag(b []byte) (int32, int, int) {
	v, n := consumeVarint(b)
	if n < 0 || v>>3 == 0 || v>>3 > 1<<29-1 {
		return 0, 0, -1
	}
	return int32(v >> 3), int(v & 7), n
}

// skipField returns the length of a value of wire type wt at the start
// of b, or −1.
func skipField(b []byte, wt int) int {
	switch wt {
	case 0:
		_, n := consumeVarint(b)
		return n
	case 1:
		_, n := consumeFixed64(b)
		return n
	case 2:
		_, n := consumeBytes(b)
		return n
	case 5:
		_, n := consumeFixed32(b)
		return n
	}
	return -1
}

func errWire(msg string, num int32) error {
	return fmt.Errorf("proto: %s: field %d: malformed or of the wrong wire type", msg, num)
}`
