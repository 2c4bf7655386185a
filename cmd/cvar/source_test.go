package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/internal/modelio"
)

// TestSynthSource: the command's record of its built-in data is kept in the
// model file's source beside the library's fields and survives the file (a
// 64-bit seed exactly); synthOf refuses a value that is not a count, a
// negative count and data past 2³⁰ values; and eval without -data refuses
// such a record with an error that names the built-in data.
func TestSynthSource(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	model := filepath.Join(dir, "m.cvar")
	ok(t, "train", "-n", "300", "-epochs", "1", "-method", "vanilla", "-o", model)
	m, err := modelio.Read(model)
	if err != nil {
		t.Fatal(err)
	}
	syn, err := synthOf(m.Source)
	if err != nil || syn.N != 300 || syn.Seed != synthSeed || syn.D < 1 || syn.Classes < 2 {
		t.Fatalf("the record of the built-in data: %+v, %v", syn, err)
	}
	save := func(name string, m *cvar.ModelFile) string {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := cvar.SaveModel(f, m); err != nil {
			t.Fatal(err)
		}
		return path
	}
	syn.Seed = 1<<64 - 1
	syn.put(&m.Source)
	back, err := modelio.Read(save("seed.cvar", m))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := synthOf(back.Source); got != syn || err != nil {
		t.Errorf("after a round trip %+v, %v; want %+v", got, err, syn)
	}
	for key, v := range map[string]string{"synth_n": `"many"`, "synth_d": `-1`, "synth_classes": `1.5`} {
		bad := cvar.Provenance{Extra: map[string]json.RawMessage{key: []byte(v)}}
		if _, err := synthOf(bad); err == nil || !strings.Contains(err.Error(), "synth_") {
			t.Errorf("%s = %s: %v", key, v, err)
		}
	}
	big := synthSource{N: 3e9, D: 20, Classes: 2}
	big.put(&m.Source)
	path := save("big.cvar", m)
	for _, cmd := range []string{"eval", "predict"} {
		fails(t, 1, []string{"built-in data", "3000000000 rows"}, cmd, "-in", path)
	}
}
