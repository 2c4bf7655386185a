package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar/internal/modelio"
	"github.com/cvarlearn/cvar/onnx"
)

func TestExportONNX(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := write(t, dir, "pets.csv", classCSV(200, 1, true))
	model := filepath.Join(dir, "pets.cvar")
	ok(t, "train", "-data", data, "-precision", "f32", "-o", model)
	out := filepath.Join(dir, "pets.onnx")
	text := ok(t, "export", "-in", model, "-o", out)
	for _, w := range []string{"wrote " + out + ": ONNX, opset 13, IR version 7", "features", "float32", "[N, 3]", "label", "probabilities"} {
		if !strings.Contains(text, w) {
			t.Errorf("export prints %q, lacking %q", text, w)
		}
	}
	m, err := modelio.Read(model)
	if err != nil {
		t.Fatal(err)
	}
	want, err := onnx.Marshal(m, onnx.Options{ModelName: "pets.cvar"})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(out); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("the exported file (%d bytes, %v) is not onnx.Marshal's (%d bytes)", len(got), err, len(want))
	}
	var sig struct {
		Bytes   int           `json:"bytes"`
		Opset   int           `json:"opset"`
		Input   onnx.Tensor   `json:"input"`
		Outputs []onnx.Tensor `json:"outputs"`
	}
	decodeJSON(t, ok(t, "export", "-in", model, "-o", out, "-force", "-json", "-format", "onnx"), &sig)
	in, outs, _ := onnx.Signature(m)
	if sig.Bytes != len(want) || sig.Opset != onnx.Opset || sig.Input.Name != in.Name || len(sig.Outputs) != len(outs) || sig.Outputs[0].Name != "label" {
		t.Errorf("export -json: %+v", sig)
	}
}

func TestExportErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	model := filepath.Join(dir, "m.cvar")
	ok(t, "train", "-n", "300", "-o", model)
	taken := write(t, dir, "taken.onnx", "x")
	notModel := write(t, dir, "not.cvar", "hello")
	out := filepath.Join(dir, "new.onnx")
	fails(t, 2, []string{"-in is required"}, "export", "-o", out)
	fails(t, 2, []string{"-o is required"}, "export", "-in", model)
	fails(t, 2, []string{"-format", "tflite"}, "export", "-in", model, "-o", out, "-format", "tflite")
	fails(t, 1, []string{"never replaces an input"}, "export", "-in", model, "-o", model, "-force")
	fails(t, 1, []string{"already exists"}, "export", "-in", model, "-o", taken)
	fails(t, 1, []string{notModel, "not a cvar model file"}, "export", "-in", notModel, "-o", out)
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed export left %s", out)
	}
	if b, _ := os.ReadFile(taken); string(b) != "x" {
		t.Errorf("a refused export changed %s", taken)
	}
	if h := ok(t, "export", "-h"); !strings.HasPrefix(h, "Usage: cvar export") || !strings.Contains(h, "-json") {
		t.Errorf("export -h: %q", h)
	}
}
