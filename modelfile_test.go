package cvar

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

// testModelFile returns a consistent ModelFile of the given kind with
// random parameters.
func testModelFile(t testing.TB, kind, precision string) *ModelFile {
	t.Helper()
	d, k, hidden := 3, 0, 0
	var classes []string
	switch kind {
	case batch.KindLogistic:
		k, classes = 2, []string{"-1", "1"}
	case batch.KindSoftmax:
		k, classes = 3, []string{"cat", "dog", "emu"}
	case batch.KindMLP:
		k, hidden, classes = 3, 4, []string{"a", "b", "c"}
	}
	p, err := batch.NumParams(kind, d, k, hidden)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	theta := make([]float64, p)
	for i := range theta {
		theta[i] = rng.NormFloat64()
		if precision == F32 {
			theta[i] = float64(float32(theta[i]))
		}
	}
	return &ModelFile{
		Kind: kind, D: d, K: k, Hidden: hidden, Precision: precision,
		Theta: theta, Tau: 0.25, Alpha: 0.1, Method: Alg3,
		Classes: classes, Features: []string{"x1", "x2", "x3"},
		Preprocessing: dataset.Preprocessing{Mean: []float64{1, 2, 3}, Scale: []float64{0.5, 1, 2}},
		Params: Params{
			Method: Alg3, Alpha: 0.1, N: 100, Steps: 20, Batch: 50, G: 1.5, Beta: 0.5, L: 3, D: 20,
			GAlpha: 12, LR: 0.01, Eps: 0.02, TauMin: 0, TauMax: math.Inf(1), Bound: math.NaN(),
			TheoremLR: true, TheoremEps: true,
		},
		Source: Provenance{Kind: "csv", Name: "train.csv", Target: "y", N: 100},
	}
}

func saved(t testing.TB, m *ModelFile) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := SaveModel(&b, m); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// sameFloat compares float64 values treating NaN as equal to NaN.
func sameFloat(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

func TestModelFileRoundTrip(t *testing.T) {
	t.Parallel()
	for _, kind := range batch.Kinds() {
		for _, prec := range []string{F32, F64} {
			m := testModelFile(t, kind, prec)
			if kind == batch.KindLogistic {
				m.Tau = math.NaN() // a baseline has no τ
				m.Preprocessing = dataset.Preprocessing{Divide: 255}
				m.Features = nil
			}
			data := saved(t, m)
			got, err := LoadModel(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("%s %s: %v", kind, prec, err)
			}
			if !reflect.DeepEqual(got.Theta, m.Theta) {
				t.Errorf("%s %s: parameters differ", kind, prec)
			}
			if !sameFloat(got.Tau, m.Tau) || !sameFloat(got.Params.Bound, m.Params.Bound) ||
				!math.IsInf(got.Params.TauMax, 1) {
				t.Errorf("%s %s: tau %v, bound %v, tau_max %v", kind, prec, got.Tau, got.Params.Bound, got.Params.TauMax)
			}
			// Compare everything else with the NaNs made equal.
			g, w := *got, *m
			g.Tau, w.Tau, g.Params.Bound, w.Params.Bound = 0, 0, 0, 0
			if !reflect.DeepEqual(g, w) {
				t.Errorf("%s %s: round trip\n got %+v\nwant %+v", kind, prec, g, w)
			}
			// The header is JSON at byte 16.
			hlen := binary.LittleEndian.Uint32(data[12:])
			if !bytes.HasPrefix(data[16:16+hlen], []byte(`{"format":"cvar-model"`)) {
				t.Errorf("header does not start as documented: %q", data[16:40])
			}
		}
	}
}

func TestModelFileBuildModel(t *testing.T) {
	t.Parallel()
	for _, kind := range batch.Kinds() {
		m := testModelFile(t, kind, F64)
		model, theta, err := BuildModel[float64](m)
		if err != nil {
			t.Fatal(err)
		}
		if model.Name() != kind || len(theta) != model.NumParams() {
			t.Errorf("%s: built %s with %d parameters", kind, model.Name(), len(theta))
		}
		m32, theta32, err := BuildModel[float32](m)
		if err != nil || len(theta32) != m32.NumParams() {
			t.Errorf("%s: float32 build: %v", kind, err)
		}
	}
	// A model trained here survives the file and gives the same losses.
	data := subgroupData(t, 300, 3, 7)
	model := must(batch.NewLogistic[float32](3))
	x32 := make([]float32, len(data.X))
	for i, v := range data.X {
		x32[i] = float32(v)
	}
	d32, err := batch.NewData(x32, data.N, 3, nil, data.Labels, 2)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Train(model, d32, Options{Method: Alg3, LR: 0.05, Eps: 0.05, Epochs: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	theta := make([]float64, len(res.Theta))
	for i, v := range res.Theta {
		theta[i] = float64(v)
	}
	mf := &ModelFile{Kind: batch.KindLogistic, D: 3, K: 2, Precision: F32, Theta: theta, Tau: res.Tau,
		Alpha: 0.1, Method: Alg3, Classes: []string{"0", "1"}, Params: res.Params}
	got, err := LoadModel(bytes.NewReader(saved(t, mf)))
	if err != nil {
		t.Fatal(err)
	}
	rebuilt, th, err := BuildModel[float32](got)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := lossesOf(model, res.Theta, d32, 1)
	b, _ := lossesOf(rebuilt, th, d32, 1)
	if !reflect.DeepEqual(a, b) {
		t.Error("losses of the reloaded model differ")
	}
}

func TestModelFileErrors(t *testing.T) {
	t.Parallel()
	good := saved(t, testModelFile(t, batch.KindSoftmax, F32))
	load := func(b []byte) error {
		_, err := LoadModel(bytes.NewReader(b))
		return err
	}
	mod := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }

	t.Run("version", func(t *testing.T) {
		err := load(mod(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[8:], 2); return b }))
		if !errors.Is(err, ErrModelVersion) || !strings.Contains(err.Error(), "version 2") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("truncated", func(t *testing.T) {
		for n := 1; n < len(good); n++ {
			err := load(good[:n])
			if !errors.Is(err, ErrModelTrunc) {
				t.Fatalf("cut at %d of %d: got %v", n, len(good), err)
			}
		}
	})
	t.Run("checksum", func(t *testing.T) {
		hlen := int(binary.LittleEndian.Uint32(good[12:]))
		for _, at := range []int{16 + 2, 16 + hlen/2, 16 + hlen + 1, len(good) - 6, len(good) - 1} {
			err := load(mod(func(b []byte) []byte { b[at] ^= 0x10; return b }))
			if !errors.Is(err, ErrModelChecksum) {
				t.Errorf("byte %d flipped: got %v", at, err)
			}
		}
	})
	t.Run("format", func(t *testing.T) {
		for _, b := range [][]byte{nil, []byte("hello, world, this is not a model"), []byte("x")} {
			if err := load(b); !errors.Is(err, ErrModelFormat) {
				t.Errorf("%q: got %v", b, err)
			}
		}
	})
	t.Run("appended", func(t *testing.T) {
		if err := load(append(append([]byte(nil), good...), 0)); !errors.Is(err, ErrModelInvalid) {
			t.Errorf("got %v", err)
		}
	})
	t.Run("inconsistent", func(t *testing.T) {
		for name, f := range map[string]func(m *ModelFile){
			"kind":      func(m *ModelFile) { m.Kind = "tree" },
			"params":    func(m *ModelFile) { m.Theta = m.Theta[1:] },
			"nan":       func(m *ModelFile) { m.Theta[0] = math.NaN() },
			"f32 range": func(m *ModelFile) { m.Precision, m.Theta[1] = F32, 1e300 },
			"classes":   func(m *ModelFile) { m.Classes = m.Classes[:2] },
			"dup class": func(m *ModelFile) { m.Classes[1] = m.Classes[0] },
			"alpha":     func(m *ModelFile) { m.Alpha = 1.5 },
			"precision": func(m *ModelFile) { m.Precision = "f16" },
			"prep":      func(m *ModelFile) { m.Preprocessing.Scale[0] = 0 },
			"features":  func(m *ModelFile) { m.Features = m.Features[:1] },
		} {
			m := testModelFile(t, batch.KindSoftmax, F64)
			f(m)
			var b bytes.Buffer
			if err := SaveModel(&b, m); !errors.Is(err, ErrModelInvalid) || b.Len() != 0 {
				t.Errorf("%s: SaveModel gave %v and wrote %d bytes", name, err, b.Len())
			}
		}
	})
}

// zeros is an endless stream of zero bytes that counts what was read and
// fails past 1 MiB, like /dev/zero for a reader that should have stopped.
type zeros struct{ n int }

func (z *zeros) Read(p []byte) (int, error) {
	if z.n > 1<<20 {
		return 0, errors.New("read past 1 MiB of zeros")
	}
	clear(p)
	z.n += len(p)
	return len(p), nil
}

// stream hides a reader's Len, so LoadModel cannot know the size.
type stream struct{ r io.Reader }

func (s stream) Read(p []byte) (int, error) { return s.r.Read(p) }

// withHeader returns the model file good with its JSON header changed by
// edit and a valid checksum: a file a bad writer could produce.
func withHeader(t testing.TB, good []byte, edit func(h map[string]any)) []byte {
	t.Helper()
	hlen := binary.LittleEndian.Uint32(good[12:])
	var h map[string]any
	if err := json.Unmarshal(good[16:16+hlen], &h); err != nil {
		t.Fatal(err)
	}
	edit(h)
	js, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	out := append([]byte(nil), good[:16]...)
	binary.LittleEndian.PutUint32(out[12:], uint32(len(js)))
	out = append(out, js...)
	out = append(out, good[16+hlen:len(good)-4]...)
	return binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, castagnoli))
}

// TestLoadModelBounded checks that the reader trusts nothing it has not
// checked: an endless stream of zeros fails on the magic after a few bytes
// (it was read to the end before), and a header with a valid checksum that
// describes more parameters than the file holds is rejected without
// allocating for them.
func TestLoadModelBounded(t *testing.T) {
	z := &zeros{}
	if _, err := LoadModel(z); !errors.Is(err, ErrModelFormat) || z.n > 16 {
		t.Errorf("zeros: read %d bytes, error %v; want ErrModelFormat after at most 16 bytes", z.n, err)
	}
	good := saved(t, testModelFile(t, batch.KindSoftmax, F64))
	// A softmax of 2²⁰ features and 1000 classes: 10⁹ parameters, 8 GB
	// announced by a file of a few hundred bytes.
	huge := withHeader(t, good, func(h map[string]any) {
		h["d"], h["k"], h["num_params"] = 1<<20, 1000, 1000*(1<<20)+1000
		h["features"], h["preprocessing"] = nil, map[string]any{}
		cl := make([]string, 1000)
		for i := range cl {
			cl[i] = strconv.Itoa(i)
		}
		h["classes"] = cl
	})
	for name, r := range map[string]io.Reader{"sized": bytes.NewReader(huge), "stream": stream{bytes.NewReader(huge)}} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := LoadModel(r)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, ErrModelTrunc) {
			t.Errorf("%s: 10⁹ parameters announced: got %v, want ErrModelTrunc", name, err)
		}
		if a := after.TotalAlloc - before.TotalAlloc; a > 16<<20 {
			t.Errorf("%s: allocated %d bytes for a %d-byte file", name, a, len(huge))
		}
	}
	// The same checks on a stream of unknown size.
	for _, b := range [][]byte{good, good[:len(good)-1], append(append([]byte(nil), good...), 1, 2)} {
		_, e1 := LoadModel(bytes.NewReader(b))
		_, e2 := LoadModel(stream{bytes.NewReader(b)})
		if (e1 == nil) != (e2 == nil) || e1 != nil && sentinel(e1) != sentinel(e2) {
			t.Errorf("%d bytes: sized reader %v, stream %v", len(b), e1, e2)
		}
	}
}

// sentinel returns the ErrModel… value err matches, or nil.
func sentinel(err error) error {
	for _, s := range []error{ErrModelFormat, ErrModelVersion, ErrModelTrunc, ErrModelChecksum, ErrModelInvalid} {
		if errors.Is(err, s) {
			return s
		}
	}
	return nil
}

// TestProvenanceExtra: the "source" keys of the writing program's own are
// stored as given. A header written with the cvar command's keys of its
// built-in data loads them into Extra, value for value (a 64-bit seed
// exactly); they save and load back the same, after the fields; and
// SaveModel refuses an Extra key that is a field's name or holds no JSON
// value, as LoadModel refuses a field of the wrong type.
func TestProvenanceExtra(t *testing.T) {
	t.Parallel()
	good := saved(t, testModelFile(t, batch.KindSoftmax, F64))
	const src = `{"kind":"synthetic","name":"synthetic-classification","n":300,"synth_n":3000000000,"synth_d":20,"synth_classes":3,"synth_seed":18446744073709551615}`
	old := withHeader(t, good, func(h map[string]any) { h["source"] = json.RawMessage(src) })
	m, err := LoadModel(bytes.NewReader(old))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]json.RawMessage{"synth_n": []byte("3000000000"), "synth_d": []byte("20"), "synth_classes": []byte("3"), "synth_seed": []byte("18446744073709551615")}
	if s := m.Source; s.Kind != "synthetic" || s.Name != "synthetic-classification" || s.N != 300 || !reflect.DeepEqual(s.Extra, want) {
		t.Fatalf("source %+v", s)
	}
	back := saved(t, m)
	if hlen := binary.LittleEndian.Uint32(back[12:]); !bytes.Contains(back[16:16+hlen], []byte(`"source":{"kind":"synthetic","name":"synthetic-classification","n":300,"synth_classes":3,"synth_d":20,"synth_n":3000000000,"synth_seed":18446744073709551615}`)) {
		t.Errorf("saved header %s", back[16:16+hlen])
	}
	again, err := LoadModel(bytes.NewReader(back))
	if err != nil || !reflect.DeepEqual(again.Source, m.Source) {
		t.Fatalf("source after a round trip %+v, %v; want %+v", again.Source, err, m.Source)
	}
	for key, v := range map[string]string{"kind": `"csv"`, "synth_n": `{`} {
		bad := testModelFile(t, batch.KindSoftmax, F64)
		bad.Source.Extra = map[string]json.RawMessage{key: []byte(v)}
		if err := SaveModel(io.Discard, bad); !errors.Is(err, ErrModelInvalid) || !strings.Contains(err.Error(), key) {
			t.Errorf("extra %s = %s: SaveModel says %v", key, v, err)
		}
	}
	typed := withHeader(t, good, func(h map[string]any) { h["source"] = json.RawMessage(`{"kind":"csv","n":"many"}`) })
	if _, err := LoadModel(bytes.NewReader(typed)); !errors.Is(err, ErrModelInvalid) || !strings.Contains(err.Error(), `"n"`) {
		t.Errorf("n \"many\": LoadModel says %v", err)
	}
}

// FuzzReadModel feeds LoadModel arbitrary bytes, seeded with valid files of
// every kind and precision, one with texts that are not UTF-8, one near the
// parameters' norm bound and one with bytes after its header (with fixCRC the last 4 bytes are replaced by the
// checksum of the others, so that mutations reach the header and parameter
// checks behind it): it must return a model or an error matching
// one of the ErrModel… values (or none, for a reader error), never panic;
// a stream of unknown size must get the same verdict; and a model it
// returns must be valid, save again and load back with the same
// parameters.
func FuzzReadModel(f *testing.F) {
	for _, kind := range batch.Kinds() {
		for _, prec := range []string{F32, F64} {
			f.Add(saved(f, testModelFile(f, kind, prec)), true)
		}
	}
	latin := testModelFile(f, batch.KindSoftmax, F64)
	latin.Classes, latin.Source.Target = []string{"\xff", "\xfe", "caf\xe9"}, "\xe9tiquette"
	f.Add(saved(f, latin), true)
	near := testModelFile(f, batch.KindLogistic, F32)
	near.Theta[0] = float64(float32(maxParamNorm(F32) / 2))
	f.Add(saved(f, near), true)
	good := saved(f, testModelFile(f, batch.KindLinear, F64))
	f.Add(withRawHeader(good, append(append([]byte(nil), headerOf(good)...), " {}"...)), true)
	f.Add([]byte(modelMagic), false)
	f.Add([]byte{}, false)
	f.Fuzz(func(t *testing.T, b []byte, fixCRC bool) {
		if fixCRC && len(b) >= 4 {
			binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], castagnoli))
		}
		m, err := LoadModel(bytes.NewReader(b))
		_, err2 := LoadModel(stream{bytes.NewReader(b)})
		if (err == nil) != (err2 == nil) || sentinel(err) != sentinel(err2) {
			t.Fatalf("sized reader: %v; stream: %v", err, err2)
		}
		if err != nil {
			if sentinel(err) == nil {
				t.Fatalf("error %v matches no ErrModel… value", err)
			}
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("loaded an invalid model: %v", err)
		}
		var out bytes.Buffer
		if err := SaveModel(&out, m); err != nil {
			t.Fatalf("a loaded model does not save: %v", err)
		}
		back, err := LoadModel(&out)
		if err != nil {
			t.Fatalf("a re-saved model does not load: %v", err)
		}
		for i := range m.Theta {
			if math.Float64bits(m.Theta[i]) != math.Float64bits(back.Theta[i]) {
				t.Fatalf("θ[%d] %v, after a round trip %v", i, m.Theta[i], back.Theta[i])
			}
		}
		if !slices.Equal(m.Classes, back.Classes) || !slices.Equal(m.Features, back.Features) || !reflect.DeepEqual(m.Source, back.Source) {
			t.Fatalf("texts %q %q %+v, after a round trip %q %q %+v", m.Classes, m.Features, m.Source, back.Classes, back.Features, back.Source)
		}
	})
}

// TestLoadModelChecksumFirst: the checksum is verified before the header
// is interpreted, so a header damaged into another valid one is a checksum
// mismatch; compressed input is ErrModelFormat that says so, in one line.
func TestLoadModelChecksumFirst(t *testing.T) {
	t.Parallel()
	good := saved(t, testModelFile(t, batch.KindSoftmax, F64))
	for _, edit := range [][2]string{{`"softmax"`, `"softmaz"`}, {`"num_params":`, `"num_params":1`}, {`"format"`, `"formax"`}} {
		b := bytes.Replace(good, []byte(edit[0]), []byte(edit[1]), 1)
		if bytes.Equal(b, good) {
			t.Fatalf("%q is not in the header", edit[0])
		}
		if len(edit[1]) != len(edit[0]) {
			binary.LittleEndian.PutUint32(b[12:], binary.LittleEndian.Uint32(b[12:])+uint32(len(edit[1])-len(edit[0])))
		}
		if _, err := LoadModel(bytes.NewReader(b)); !errors.Is(err, ErrModelChecksum) {
			t.Errorf("%s → %s: got %v, want ErrModelChecksum", edit[0], edit[1], err)
		}
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(good)
	zw.Close()
	for kind, b := range map[string][]byte{"gzip": gz.Bytes(), "bzip2": append([]byte("BZh91AY&SY"), good...)} {
		for name, r := range map[string]io.Reader{"sized": bytes.NewReader(b), "stream": stream{bytes.NewReader(b)}} {
			_, err := LoadModel(r)
			if !errors.Is(err, ErrModelFormat) || !strings.Contains(err.Error(), kind+"-compressed") || !strings.Contains(err.Error(), "decompress it first") || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s, %s: got %v", kind, name, err)
			}
		}
	}
	if _, err := LoadModel(strings.NewReader("BZh9 is a text file")); !errors.Is(err, ErrModelFormat) || strings.Contains(err.Error(), "compressed") {
		t.Errorf("text that starts with BZh: got %v", err)
	}
}

// TestLoadModelAppended: bytes after a matching checksum are invalid and
// counted; a file cut in its parameters says how many it should hold.
func TestLoadModelAppended(t *testing.T) {
	t.Parallel()
	good := saved(t, testModelFile(t, batch.KindSoftmax, F64))
	for name, r := range map[string]func(b []byte) io.Reader{
		"sized":  func(b []byte) io.Reader { return bytes.NewReader(b) },
		"stream": func(b []byte) io.Reader { return stream{bytes.NewReader(b)} },
	} {
		_, err := LoadModel(r(append(append([]byte(nil), good...), 1, 2, 3)))
		if !errors.Is(err, ErrModelInvalid) || !strings.Contains(err.Error(), "3 bytes after the checksum") {
			t.Errorf("%s: 3 bytes appended: got %v", name, err)
		}
		_, err = LoadModel(r(good[:len(good)-12]))
		if !errors.Is(err, ErrModelTrunc) || !strings.Contains(err.Error(), "parameters") {
			t.Errorf("%s: cut in the parameters: got %v", name, err)
		}
	}
}

// countingZeros is an endless stream of zero bytes that counts what it gives.
type countingZeros struct{ n int64 }

func (z *countingZeros) Read(p []byte) (int, error) {
	clear(p)
	z.n += int64(len(p))
	return len(p), nil
}

// TestLoadModelEndlessStream: a valid model followed by endless bytes on a
// stream is refused after at most the header's announced size plus
// streamSlack, not read to the largest model's size.
func TestLoadModelEndlessStream(t *testing.T) {
	t.Parallel()
	good := saved(t, testModelFile(t, batch.KindSoftmax, F64))
	z := &countingZeros{}
	_, err := LoadModel(stream{io.MultiReader(bytes.NewReader(good), z)})
	if !errors.Is(err, ErrModelInvalid) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("got %v, want one line wrapping ErrModelInvalid", err)
	}
	if z.n > streamSlack+64<<10 {
		t.Errorf("read %d bytes past the model, want at most about %d", z.n, streamSlack)
	}
}
