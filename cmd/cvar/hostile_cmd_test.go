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
)

// TestHostileTrain: train on every bad data file, every output path that
// names an input, and flags whose counts are absurd.
func TestHostileTrain(t *testing.T) {
	h := newHostileData(t)
	rows := h.readRows("train")
	rows = append(rows, h.trainOutputRows()...)
	many := func(v string, n int) string { return strings.TrimSuffix(strings.Repeat(v+",", n), ",") }
	data := write(t, h.dir, "flags.csv", csvRows(60))
	for _, r := range []hostileRow{
		{"-epochs 2^63-1", []string{"train", "-epochs", "9223372036854775807"}, 2, []string{"-epochs 9223372036854775807", "9007199254740992"}, "", false},
		{"-epochs that wrap with -batch", []string{"train", "-epochs", "1844674407370955162", "-batch", "10"}, 2, []string{"-epochs 1844674407370955162"}, "", false},
		{"-steps past MaxSteps", []string{"train", "-steps", "9007199254740993"}, 2, []string{"-steps 9007199254740993"}, "", false},
		{"-epochs of the data's steps", []string{"train", "-data", data, "-epochs", "4503599627370497", "-batch", "20"}, 1, []string{"-epochs 4503599627370497 of 2 steps each"}, "", false},
		{"-classes 2^63-1", []string{"train", "-classes", "9223372036854775807"}, 2, []string{"-classes 9223372036854775807", "2147483647"}, "", false},
		{"-tune grid of 90000", []string{"train", "-tune", "-tune-lrs", many("0.1", 300), "-tune-wds", many("0", 300)}, 2, []string{"1080000 settings", "65536"}, "", false},
		{"-tune-eps 0", []string{"train", "-tune", "-tune-eps", "0"}, 2, []string{"-tune-eps", "must be positive"}, "", false},
		{"-tune-lrs 0", []string{"train", "-tune", "-tune-lrs", "0.1,0"}, 2, []string{"-tune-lrs", "must be positive"}, "", false},
		{"-tune's parameters past -max-memory", []string{"train", "-n", "300", "-d", "200", "-classes", "50", "-tune", "-method", "vanilla", "-max-memory", "1MB"}, 1, []string{"-tune's 15 settings", "-max-memory"}, "", false},
		{"-n 10^12", []string{"train", "-n", "1000000000000"}, 1, []string{"built-in data of -n 1000000000000 samples", "146 TiB", "more than the bound of 16 MiB"}, "", false},
		{"-hidden 10^7", []string{"train", "-model", "mlp", "-hidden", "10000000"}, 1, []string{"an mlp of -hidden 10000000 units", "(-max-memory)"}, "", false},
		{"-max-memory lots", []string{"train", "-max-memory", "lots"}, 2, []string{`"lots" is not a size`}, "", false},
		{"-max-memory -1", []string{"train", "-max-memory", "-1"}, 2, []string{`"-1" is not a size`}, "", false},
		{"-max-line 1e400", []string{"train", "-max-line", "1e400"}, 2, []string{"-max-line", `"1e400" is not a size`}, "", false},
		{"-alpha NaN", []string{"train", "-alpha", "NaN"}, 2, []string{"-alpha"}, "", false},
		{"-lr -1", []string{"train", "-lr", "-1"}, 2, []string{"-lr"}, "", false},
		{"-threads -1", []string{"train", "-threads", "-1"}, 2, []string{"-threads -1 must be ≥ 0"}, "", false},
		{"-limit -3", []string{"train", "-limit", "-3"}, 2, []string{"-limit -3"}, "", false},
		{"-format xml", []string{"train", "-format", "xml"}, 2, []string{`unknown value "xml"`}, "", false},
		{"-storage u8 on CSV", []string{"train", "-data", data, "-storage", "u8", "-precision", "f32"}, 2, []string{"-storage u8 holds 8-bit images", "not CSV"}, "", false},
		{"stray word", []string{"train", "stray"}, 2, []string{"stray"}, "", false},
	} {
		rows = append(rows, r)
	}
	latin := write(t, h.dir, "latin.csv", strings.NewReplacer(",0\n", ",\xff\n", ",1\n", ",\xfe\n").Replace(csvRows(60)))
	rows = append(rows, hostileRow{name: "Latin-1 labels train", args: []string{"train", "-data", latin, "-epochs", "1"}, code: 0})
	runHostile(t, h.dir, rows)
}

// trainOutputRows: an output path that names an input, by its name, a
// symbolic link or a hard link, is refused with -force; so is one that is
// not a regular file, or in no directory.
func (h *hostileData) trainOutputRows() []hostileRow {
	t := h.t
	data := write(t, h.dir, "input.csv", csvRows(60))
	test := write(t, h.dir, "input-test.csv", csvRows(20))
	sym := filepath.Join(h.dir, "input-sym.csv")
	hard := filepath.Join(h.dir, "input-hard.csv")
	if err := os.Symlink(data, sym); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(data, hard); err != nil {
		t.Fatal(err)
	}
	mnist := filepath.Join(h.dir, "mnist")
	os.Mkdir(mnist, 0o755)
	images := idxPair(t, mnist, 30, false)
	sub := filepath.Join(h.dir, "sub")
	os.Mkdir(sub, 0o755)
	old := write(t, h.dir, "old.cvar", "old")
	train := func(args ...string) []string { return append([]string{"train", "-epochs", "1"}, args...) }
	return []hostileRow{
		{"-o the -data file", train("-data", data, "-o", data, "-force"), 1, []string{data + " is the -data file " + data, "even with -force"}, "", false},
		{"-o the -data file's symbolic link", train("-data", data, "-o", sym, "-force"), 1, []string{sym + " is the -data file " + data}, "", false},
		{"-data a symbolic link, -o its file", train("-data", sym, "-o", data, "-force"), 1, []string{data + " is the -data file " + sym}, "", false},
		{"-o the -data file's hard link", train("-data", data, "-o", hard, "-force"), 1, []string{hard + " is the -data file " + data}, "", false},
		{"-o the -test file", train("-data", data, "-test", test, "-o", test, "-force"), 1, []string{test + " is the -test file " + test}, "", false},
		{"-o the -data file with -stream", train("-data", h.dir+"/nan.csv", "-stream", "-method", "alg1", "-o", h.dir+"/nan.csv", "-force"), 1, []string{"is the -data file"}, "", false},
		{"-o a file of the -data directory", train("-data", mnist, "-o", images, "-force"), 1, []string{images + " is " + images + " of the -data directory " + mnist}, "", false},
		{"-o a directory", train("-n", "300", "-o", sub, "-force"), 1, []string{sub + " is a directory, not a regular file"}, "", false},
		{"-o /dev/null", train("-n", "300", "-o", "/dev/null", "-force"), 1, []string{"/dev/null is a character device, not a regular file"}, "", false},
		{"-o in a missing directory", train("-n", "300", "-o", filepath.Join(h.dir, "nodir", "m.cvar")), 1, []string{"directory " + filepath.Join(h.dir, "nodir") + " does not exist"}, "", false},
		{"-o an existing file", train("-n", "300", "-o", old), 1, []string{old + " already exists; give -force"}, "", false},
	}
}

// modelRows are the model files that eval and predict must refuse, each
// a damaged copy of a good one: truncated, bit-flipped, with absurd
// lengths or parameters, or texts that break the rules, the last with a
// valid checksum.
func (h *hostileData) modelRows(cmd string) []hostileRow {
	t := h.t
	good, err := os.ReadFile(h.models["csv"])
	if err != nil {
		t.Fatal(err)
	}
	data := write(t, h.dir, "model-data.csv", csvRows(20))
	hl := int(binary.LittleEndian.Uint32(good[12:]))
	flip := func(at int) []byte {
		b := bytes.Clone(good)
		b[at] ^= 0x10
		return b
	}
	set := func(at int, v ...byte) []byte {
		b := bytes.Clone(good)
		copy(b[at:], v)
		return b
	}
	theta := func(v float64) []byte {
		return resum(func(b []byte) []byte {
			binary.LittleEndian.PutUint64(b[16+hl:], math.Float64bits(v))
			return b
		}, good)
	}
	header := func(old, new string) []byte {
		return resum(func(b []byte) []byte {
			hdr := string(b[16 : 16+hl])
			switch {
			case old == "":
				hdr += new
			case !strings.Contains(hdr, old):
				t.Fatalf("the model header lacks %q: %s", old, hdr)
			default:
				hdr = strings.Replace(hdr, old, new, 1)
			}
			out := binary.LittleEndian.AppendUint32(bytes.Clone(b[:12]), uint32(len(hdr)))
			return append(append(out, hdr...), b[16+hl:]...)
		}, good)
	}
	f32 := filepath.Join(h.dir, "f32.cvar")
	ok(t, "train", "-data", data, "-epochs", "1", "-precision", "f32", "-o", f32)
	good32, _ := os.ReadFile(f32)
	hl32 := int(binary.LittleEndian.Uint32(good32[12:]))
	big32 := resum(func(b []byte) []byte {
		binary.LittleEndian.PutUint32(b[16+hl32:], math.Float32bits(1e30))
		return b
	}, good32)
	dir := filepath.Join(h.dir, "dir.cvar")
	os.Mkdir(dir, 0o755)
	cases := []struct {
		name    string
		content []byte // nil: path names the model
		path    string
		want    string
	}{
		{"empty", []byte{}, "", "not a cvar model file: the file is empty"},
		{"/dev/null", nil, "/dev/null", "/dev/null: not a cvar model file: the file is empty"},
		{"a directory", nil, dir, "is a directory"},
		{"a CSV file", nil, data, `not a cvar model file (it does not start with "CVARMODL")`},
		{"missing", nil, filepath.Join(h.dir, "missing.cvar"), "missing.cvar: no such file or directory"},
		{"magic flipped", flip(0), "", "not a cvar model file"},
		{"version 2", set(8, 2), "", "unsupported model file version: the file is version 2"},
		{"header length 2^32-1", set(12, 0xff, 0xff, 0xff, 0xff), "", "invalid model file: header length 4294967295 exceeds 67108864 bytes"},
		{"header length 0", set(12, 0, 0, 0, 0), "", "model file checksum mismatch"},
		{"cut in the header", good[:100], "", "truncated model file"},
		{"cut in the parameters", good[:16+hl+5], "", "truncated model file"},
		{"cut in the checksum", good[:len(good)-2], "", "truncated model file: the file ends in the 4-byte checksum"},
		{"a bit flipped in the header", flip(40), "", "model file checksum mismatch"},
		{"a bit flipped in the parameters", flip(16 + hl + 3), "", "model file checksum mismatch"},
		{"a bit flipped in the checksum", flip(len(good) - 1), "", "model file checksum mismatch"},
		{"a byte after the checksum", append(bytes.Clone(good), 0), "", "invalid model file"},
		{"θ = 1e308, valid checksum", theta(1e308), "", "invalid model file: the parameters' norm 1e+308 exceeds 1e+150, the bound for f64: scores could overflow"},
		{"θ = NaN, valid checksum", theta(math.NaN()), "", "invalid model file: parameter 0 is NaN"},
		{"f32 θ = 1e30, valid checksum", big32, "", "exceeds 1e+18, the bound for f32: scores could overflow"},
		{"bytes after the header's JSON", header("", " x"), "", "invalid model file: header: 1 bytes after its JSON object"},
		{"bytes before the header's JSON", header(`{"format"`, `x{"format"`), "", "invalid model file: header: invalid character 'x'"},
		{"a class in base64 of UTF-8", header(`"classes":["0"`, `"classes":[{"base64":"MA=="}`), "", "invalid model file"},
		{"a class in bad base64", header(`"classes":["0"`, `"classes":[{"base64":"!!"}`), "", "invalid model file"},
		{"an unknown field", header(`"format"`, `"color":1,"format"`), "", `invalid model file: header: json: unknown field "color"`},
		{"num_params wrong", header(`"num_params":3`, `"num_params":4`), "", "invalid model file: num_params 4"},
	}
	var rows []hostileRow
	for i, c := range cases {
		path := c.path
		if c.content != nil {
			path = filepath.Join(h.dir, "bad"+string(rune('a'+i))+".cvar")
			if err := os.WriteFile(path, c.content, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		rows = append(rows, hostileRow{name: "model " + c.name, args: []string{cmd, "-in", path, "-data", data}, code: 1, want: []string{path + ": ", c.want}})
	}
	return rows
}

// resum applies f to a model file's bytes without their checksum and
// appends a valid checksum.
func resum(f func(b []byte) []byte, model []byte) []byte {
	b := f(bytes.Clone(model[:len(model)-4]))
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
}

// bigScores writes a model whose scores overflow on rows of norm 1e200,
// and data with such a row at row 3.
func (h *hostileData) bigScores() (model, data, unlabelled string) {
	t := h.t
	m := &cvar.ModelFile{
		Kind: "logistic", D: 2, K: 2, Precision: cvar.F64, Theta: []float64{1e140, 1e140, 0},
		Alpha: 0.1, Method: cvar.Alg3, Classes: []string{"0", "1"},
		Source: cvar.Provenance{Kind: "csv", Name: "d.csv", N: 3},
	}
	var buf bytes.Buffer
	if err := cvar.SaveModel(&buf, m); err != nil {
		t.Fatal(err)
	}
	model = write(t, h.dir, "overflow.cvar", buf.String())
	data = write(t, h.dir, "overflow.csv", "a,b,y\n1,2,0\n-1,1,1\n1e200,3,1\n")
	unlabelled = write(t, h.dir, "overflow-x.csv", "a,b\n1,1\n-1e200,0\n")
	return model, data, unlabelled
}

// TestHostileEval: eval on every bad data file and model file, and flags
// whose counts are absurd.
func TestHostileEval(t *testing.T) {
	h := newHostileData(t)
	rows := append(h.readRows("eval"), h.modelRows("eval")...)
	data := write(t, h.dir, "eval.csv", csvRows(60))
	model := h.models["csv"]
	alphas := strings.TrimSuffix(strings.Repeat("0.5,", 2000), ",")
	synth := filepath.Join(h.dir, "synth.cvar")
	ok(t, "train", "-n", "300", "-d", "20", "-epochs", "1", "-o", synth)
	bigModel, bigData, _ := h.bigScores()
	latin := write(t, h.dir, "latin.csv", strings.NewReplacer(",0\n", ",\xff\n", ",1\n", ",\xfe\n").Replace(csvRows(60)))
	latinModel := filepath.Join(h.dir, "latin.cvar")
	ok(t, "train", "-data", latin, "-epochs", "1", "-o", latinModel)
	rows = append(rows, []hostileRow{
		{"-bootstrap 200000", []string{"eval", "-in", model, "-data", data, "-bootstrap", "200000"}, 2, []string{"-bootstrap 200000 is outside 0..100000"}, "", false},
		{"-bootstrap past -max-memory", []string{"eval", "-in", model, "-data", data, "-bootstrap", "100000", "-alphas", alphas}, 1, []string{"-bootstrap 100000 resamples of 4002 statistics", "more than the bound of 16 MiB", "(-max-memory)"}, "", false},
		{"-alphas 0", []string{"eval", "-in", model, "-data", data, "-alphas", "0"}, 2, []string{"-alphas"}, "", false},
		{"-alphas NaN", []string{"eval", "-in", model, "-data", data, "-alphas", "NaN"}, 2, []string{"-alphas"}, "", false},
		{"-threads -1", []string{"eval", "-in", model, "-data", data, "-threads", "-1"}, 2, []string{"-threads -1"}, "", false},
		{"no -in", []string{"eval", "-data", data}, 2, []string{"-in is required"}, "", false},
		{"no -data for a model of a file", []string{"eval", "-in", model}, 2, []string{"-data is required"}, "", false},
		{"built-in data past -max-memory", []string{"eval", "-in", synth, "-max-memory", "10KiB"}, 1, []string{"built-in data of 300 samples × 20 features", "(-max-memory)"}, "", false},
		{"a score that overflows", []string{"eval", "-in", bigModel, "-data", bigData}, 1, []string{bigModel + ": row 3 of " + bigData, "score +Inf is not finite"}, "", false},
		{"data of another width", []string{"eval", "-in", h.models["libsvm"], "-data", data, "-format", "libsvm"}, 1, []string{"eval.csv:1:"}, "", false},
		{"Latin-1 labels on their model", []string{"eval", "-in", latinModel, "-data", latin, "-bootstrap", "10"}, 0, nil, "", false},
	}...)
	runHostile(t, h.dir, rows)
}

// TestHostilePredict: predict on every bad data file and model file, and
// every output path that names an input.
func TestHostilePredict(t *testing.T) {
	h := newHostileData(t)
	rows := append(h.readRows("predict"), h.modelRows("predict")...)
	data := write(t, h.dir, "predict.csv", csvRows(60))
	model := h.models["csv"]
	symModel := filepath.Join(h.dir, "sym.cvar")
	hardModel := filepath.Join(h.dir, "hard.cvar")
	hardData := filepath.Join(h.dir, "hard.csv")
	for _, err := range []error{os.Symlink(model, symModel), os.Link(model, hardModel), os.Link(data, hardData)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	bigModel, bigData, unlabelled := h.bigScores()
	latin := write(t, h.dir, "latin.csv", strings.NewReplacer(",0\n", ",\xff\n", ",1\n", ",\xfe\n").Replace(csvRows(60)))
	latinModel := filepath.Join(h.dir, "latin.cvar")
	ok(t, "train", "-data", latin, "-epochs", "1", "-o", latinModel)
	predict := func(args ...string) []string {
		return append([]string{"predict", "-in", model, "-data", data}, args...)
	}
	rows = append(rows, []hostileRow{
		{"-o the -in file", predict("-o", model, "-force"), 1, []string{model + " is the -in file " + model, "even with -force"}, "", false},
		{"-o the -in file's symbolic link", predict("-o", symModel, "-force"), 1, []string{symModel + " is the -in file " + model}, "", false},
		{"-o the -in file's hard link", predict("-o", hardModel, "-force"), 1, []string{hardModel + " is the -in file " + model}, "", false},
		{"-o the -data file", predict("-o", data, "-force"), 1, []string{data + " is the -data file " + data}, "", false},
		{"-o the -data file's hard link, -json", predict("-o", hardData, "-force", "-json"), 1, []string{hardData + " is the -data file " + data}, "", false},
		{"-o a directory", predict("-o", h.dir, "-force"), 1, []string{"is a directory, not a regular file"}, "", false},
		{"-threads -1", predict("-threads", "-1"), 2, []string{"-threads -1"}, "", false},
		{"no -in", []string{"predict", "-data", data}, 2, []string{"-in is required"}, "", false},
		{"a score that overflows", []string{"predict", "-in", bigModel, "-data", bigData}, 1, []string{bigModel + ": row 3 of " + bigData, "score +Inf is not finite"}, "", false},
		{"a score that overflows, unlabelled", []string{"predict", "-in", bigModel, "-data", unlabelled}, 1, []string{bigModel + ": row 2 of " + unlabelled, "score -Inf is not finite"}, "", false},
		{"one column for two features", []string{"predict", "-in", model, "-data", write(t, h.dir, "narrow.csv", "a\n1\n")}, 1, []string{"narrow.csv:1: 1 columns; expected 2 features, and optionally the target"}, "", false},
		{"Latin-1 labels on their model", []string{"predict", "-in", latinModel, "-data", latin}, 0, nil, "", false},
	}...)
	runHostile(t, h.dir, rows)
}

// TestHostileExperiment: experiment on every bad data file, in a list,
// with figures that would replace an input, and counts past the limits.
func TestHostileExperiment(t *testing.T) {
	h := newHostileData(t)
	rows := h.readRows("experiment")
	data := write(t, h.dir, "exp.csv", csvRows(60))
	plots := filepath.Join(h.dir, "plots")
	os.Mkdir(plots, 0o755)
	if err := os.Link(data, filepath.Join(plots, "exp.csv-tails.png")); err != nil {
		t.Fatal(err)
	}
	many := func(v string, n int) string { return strings.TrimSuffix(strings.Repeat(v+",", n), ",") }
	quick := []string{"-seeds", "1", "-epochs", "1", "-lrs", "0.01", "-wds", "0"}
	rows = append(rows, []hostileRow{
		{"a bad file after a good one", append([]string{"experiment", "-data", data + "," + h.dir + "/nan.csv"}, quick...), 1, []string{`nan.csv:4: column 2 ("b"): "NaN" is not a finite number`}, "", false},
		{"a figure that is the -data file", append([]string{"experiment", "-data", data, "-plot", plots, "-force"}, quick...), 1, []string{"exp.csv-tails.png is the -data file " + data}, "", false},
		{"-seeds 10^9", []string{"experiment", "-seeds", "1000000000"}, 2, []string{"-seeds", "100000"}, "", false},
		{"-seeds 0", []string{"experiment", "-seeds", "0"}, 2, []string{"-seeds 0"}, "", false},
		{"-epochs 2^63-1", []string{"experiment", "-epochs", "9223372036854775807"}, 2, []string{"-epochs 9223372036854775807"}, "", false},
		{"-epochs 10^14 in all", []string{"experiment", "-epochs", "100000000000000"}, 2, []string{"-epochs 100000000000000", "135 training runs"}, "", false},
		{"-epochs of the data's steps", []string{"experiment", "-data", data, "-epochs", "1125899906842625", "-batch", "5", "-alpha", "0.1", "-seeds", "1", "-lrs", "0.1", "-wds", "0"}, 1, []string{"-epochs 1125899906842625", "steps each"}, "", false},
		{"-lrs × -wds of 40000", []string{"experiment", "-lrs", many("0.1", 200), "-wds", many("0", 200)}, 2, []string{"-lrs", "-wds", "100000"}, "", false},
		{"-lrs 0", []string{"experiment", "-lrs", "0"}, 2, []string{"-lrs", "must be positive"}, "", false},
		{"-alpha 0", []string{"experiment", "-alpha", "0"}, 2, []string{"-alpha"}, "", false},
		{"-data of commas", []string{"experiment", "-data", ","}, 2, []string{"-data lists no file"}, "", false},
		{"-plot curves past -max-memory", []string{"experiment", "-n", "300", "-epochs", "100000000", "-plot", plots}, 1, []string{"-plot curves", "(-max-memory)"}, "", false},
	}...)
	runHostile(t, h.dir, rows)
}
