package main

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/internal/modelio"
)

// TestLatin1LabelsRoundTrip: a model trained on Latin-1 class labels (and
// a Latin-1 header and -target) saves, loads, and evaluates and predicts on
// its own training file, printing the labels' own bytes.
func TestLatin1LabelsRoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("x\xe9,y,\xe9tiquette\n")
	for i := range 60 {
		label := "\xff"
		if i%2 == 1 {
			label = "\xfe"
		}
		b.WriteString(strings.Repeat("1", 1+i%3) + "," + strings.Repeat("2", 1+i%2) + "," + label + "\n")
	}
	data := write(t, dir, "latin.csv", b.String())
	model := filepath.Join(dir, "m.cvar")
	ok(t, "train", "-data", data, "-o", model, "-epochs", "1", "-target", "\xe9tiquette")
	ok(t, "eval", "-in", model, "-data", data, "-bootstrap", "10")
	out := ok(t, "predict", "-in", model, "-data", data)
	if !strings.Contains(out, ",\xff,") || !strings.Contains(out, ",\xfe,") {
		t.Errorf("predictions lack the labels' bytes:\n%q", out[:min(len(out), 300)])
	}
	m, err := modelio.Read(model)
	if err != nil {
		t.Fatal(err)
	}
	if cl := strings.Join(m.Classes, "|"); cl != "\xfe|\xff" && cl != "\xff|\xfe" || m.Features[0] != "x\xe9" || m.Source.Target != "\xe9tiquette" {
		t.Errorf("model texts %q, %q, target %q", m.Classes, m.Features, m.Source.Target)
	}
}

// patched returns a model file's bytes with f applied to all but its
// checksum (header length at byte 12, header at 16), and a valid checksum.
func patched(t *testing.T, path string, f func(b []byte) []byte) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b = f(b[:len(b)-4])
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
}

// TestModelFileRefusals: a model file with a valid checksum but parameters
// of norm beyond the bound (θ = 1e308), or bytes after its header's
// JSON object, is refused on load with an error naming the file.
func TestModelFileRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := write(t, dir, "d.csv", classCSV(60, 1, true))
	model := filepath.Join(dir, "m.cvar")
	ok(t, "train", "-data", data, "-o", model, "-epochs", "1")
	huge := write(t, dir, "huge.cvar", string(patched(t, model, func(b []byte) []byte {
		binary.LittleEndian.PutUint64(b[16+binary.LittleEndian.Uint32(b[12:]):], math.Float64bits(1e308))
		return b
	})))
	trailing := write(t, dir, "trailing.cvar", string(patched(t, model, func(b []byte) []byte {
		h := binary.LittleEndian.Uint32(b[12:])
		out := append([]byte(nil), b[:16+h]...)
		out = append(out, " x"...)
		binary.LittleEndian.PutUint32(out[12:], h+2)
		return append(out, b[16+h:]...)
	})))
	for _, cmd := range []string{"eval", "predict"} {
		fails(t, 1, []string{huge + ": invalid model file", "exceeds 1e+150, the bound for f64"}, cmd, "-in", huge, "-data", data)
		fails(t, 1, []string{trailing + ": invalid model file", "after its JSON object"}, cmd, "-in", trailing, "-data", data)
	}
}

// TestNonFiniteScoresStop: a valid model applied to a row whose features
// make a score overflow stops eval and predict at that row, naming the
// model file and the row, instead of printing -Inf or NaN.
func TestNonFiniteScoresStop(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	m := &cvar.ModelFile{
		Kind: "logistic", D: 2, K: 2, Precision: cvar.F64, Theta: []float64{1e140, 1e140, 0},
		Alpha: 0.1, Method: cvar.Alg3, Classes: []string{"0", "1"},
		Source: cvar.Provenance{Kind: "csv", Name: "d.csv", N: 3},
	}
	var buf bytes.Buffer
	if err := cvar.SaveModel(&buf, m); err != nil {
		t.Fatal(err)
	}
	model := write(t, dir, "big.cvar", buf.String())
	data := write(t, dir, "d.csv", "a,b,y\n1,2,0\n-1,1,1\n1e200,3,1\n-1e200,1,0\n")
	for _, cmd := range []string{"eval", "predict"} {
		fails(t, 1, []string{model + ": row 3 of " + data, "score +Inf is not finite"}, cmd, "-in", model, "-data", data)
	}
	fails(t, 1, []string{"row 2 of", "score -Inf"}, "predict", "-in", model, "-data", write(t, dir, "x.csv", "a,b\n1,1\n-1e200,0\n"))
	ok(t, "predict", "-in", model, "-data", write(t, dir, "fine.csv", "a,b,y\n1e-150,2e-150,0\n0,0,1\n"))
}
