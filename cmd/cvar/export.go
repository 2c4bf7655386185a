package main

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cvarlearn/cvar/internal/modelio"
	"github.com/cvarlearn/cvar/onnx"
)

const exportSynopsis = `cvar export -in MODEL -o FILE [flags]

Writes a model file in another format: -format onnx, an ONNX model (opset
13, IR version 7) that takes the raw features cvar predict reads, as a
float32 (f32 model) or float64 (f64 model) tensor of shape [N, d], applies
the model file's preprocessing and the model, and returns what predict
returns: for classifiers label (the class text), probabilities, class_index
and scores; for regression value, in the target's units. The model file's
kind, precision, classes, preprocessing, training parameters and source are
in the ONNX model's metadata. Prints the inputs and outputs (-json: as JSON).`

func cmdExport(e *env, args []string) error {
	fs := newFlagSet("cvar export")
	in := fs.String("in", "", "model `file` written by cvar train -o")
	out := fs.String("o", "", "write the exported model to this `file`")
	format := fs.String("format", "onnx", "the `format` to write: onnx")
	force := fs.Bool("force", false, "replace the -o file if it exists (never -in)")
	jsonOut := fs.Bool("json", false, "print the inputs and outputs as JSON")
	if err := parseFlags(e, fs, exportSynopsis, args); err != nil {
		return err
	}
	switch {
	case *in == "":
		return usagef("-in is required: the model file to export")
	case *out == "":
		return usagef("-o is required: the file to write")
	case *format != "onnx":
		return usagef("-format %q: the formats are onnx", *format)
	}
	inputs := []input{{Flag: "-in", Path: *in}}
	if err := checkNew(*out, *force, inputs); err != nil {
		return err
	}
	m, err := modelio.Read(*in)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := onnx.Export(&b, m, onnx.Options{ModelName: filepath.Base(*in)}); err != nil {
		return fmt.Errorf("%s: %s", *in, strings.TrimPrefix(err.Error(), "onnx: "))
	}
	if err := writeNew(*out, *force, inputs, func(w io.Writer) error { _, err := w.Write(b.Bytes()); return err }); err != nil {
		return err
	}
	input, outputs, err := onnx.Signature(m)
	if err != nil {
		return err
	}
	if *jsonOut {
		return writeJSON(e.stdout, map[string]any{
			"in": *in, "out": *out, "format": "onnx", "bytes": b.Len(),
			"opset": onnx.Opset, "ir_version": onnx.IRVersion, "input": input, "outputs": outputs,
		})
	}
	fmt.Fprintf(e.stdout, "wrote %s: ONNX, opset %d, IR version %d, %d bytes\n", *out, onnx.Opset, onnx.IRVersion, b.Len())
	fmt.Fprintf(e.stdout, "input   %s\n", tensorText(input))
	for _, t := range outputs {
		fmt.Fprintf(e.stdout, "output  %s\n", tensorText(t))
	}
	return nil
}

// tensorText is t as "name type [N, d]".
func tensorText(t onnx.Tensor) string {
	dims := make([]string, len(t.Shape))
	for i, d := range t.Shape {
		dims[i] = strconv.FormatInt(d, 10)
		if d < 0 {
			dims[i] = "N"
		}
	}
	return fmt.Sprintf("%-14s %-8s [%s]", t.Name, t.Type, strings.Join(dims, ", "))
}
