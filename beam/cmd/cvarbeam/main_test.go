package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/cvarlearn/cvar"
)

// TestMain parses Beam's flags (--runner: Prism, in-process, by default)
// and lets Beam take over when the test binary is started as a worker.
func TestMain(m *testing.M) {
	flag.Parse()
	beam.Init()
	os.Exit(m.Run())
}

// shards writes n rows of two separable classes over 5 features into
// files part-0…part-(k−1) with the extension ext (gzip when it ends in
// .gz) and returns their glob.
func shards(t *testing.T, dir string, n, k int, ext string) string {
	t.Helper()
	for s := range k {
		var b bytes.Buffer
		b.WriteString("a,b,c,d,e,label\n")
		for i := s; i < n; i += k {
			y := i % 2
			fmt.Fprintf(&b, "%d,%g,%g,%d,%g,%d\n", i%7, float64(y)+0.1*float64(i%5), float64(i%3)/3, y*2-1, float64(i%11)/11, y)
		}
		data := b.Bytes()
		if strings.HasSuffix(ext, ".gz") {
			var z bytes.Buffer
			w := gzip.NewWriter(&z)
			w.Write(data)
			w.Close()
			data = z.Bytes()
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("part-%d%s", s, ext)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "part-*"+ext)
}

// command runs cvarbeam in-process and returns its output and error.
func command(args ...string) (string, error) {
	var out bytes.Buffer
	err := run(context.Background(), args, &out)
	return out.String(), err
}

// Hostile inputs: each is refused with one line that names what is wrong
// (the file and line where there is one), no input is replaced, and no
// special file is written to.
func TestHostileInputs(t *testing.T) {
	dir := t.TempDir()
	glob := shards(t, dir, 60, 3, ".csv")
	model := filepath.Join(t.TempDir(), "m.cvar")
	if _, err := command("train", "-data", glob, "-o", model, "-epochs", "1"); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(t.TempDir(), "empty.csv")
	os.WriteFile(empty, []byte("a,b,c,d,e,label\n"), 0o644)
	bad := filepath.Join(t.TempDir(), "bad.csv")
	os.WriteFile(bad, []byte("a,b,c,d,e,label\n1,2,3,4,5,1\n1,2,x,4,5,0\n"), 0o644)
	exists := filepath.Join(t.TempDir(), "exists.cvar")
	os.WriteFile(exists, []byte("keep"), 0o644)
	input := filepath.Join(dir, "part-1.csv")
	before, _ := os.ReadFile(input)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown command", []string{"fit"}, `unknown command "fit"`},
		{"eval without -data", []string{"eval", "-in", model}, "-data is required"},
		{"eval without -in", []string{"eval", "-data", glob}, "-in is required"},
		{"eval of no file", []string{"eval", "-in", model, "-data", filepath.Join(dir, "none-*.csv")}, "no file matches"},
		{"eval of a file without rows", []string{"eval", "-in", model, "-data", empty}, "hold no rows"},
		{"eval of a bad cell", []string{"eval", "-in", model, "-data", bad}, "bad.csv:3:"},
		{"eval of a model that is not one", []string{"eval", "-in", input, "-data", glob}, "part-1.csv:"},
		{"eval of an endless line", []string{"eval", "-in", model, "-data", "/dev/zero", "-format", "libsvm"}, "/dev/zero:1:"},
		{"train over an input, -force", []string{"train", "-data", glob, "-o", input, "-force"}, "never replaces an input"},
		{"train over a directory, -force", []string{"train", "-data", glob, "-o", dir, "-force"}, "not a regular file"},
		{"train over a device, -force", []string{"train", "-data", glob, "-o", "/dev/null", "-force"}, "a character device"},
		{"train over a file, no -force", []string{"train", "-data", glob, "-o", exists}, "already exists"},
		{"train without -o", []string{"train", "-data", glob}, "-o is required"},
		{"train on an endless line", []string{"train", "-data", "/dev/zero", "-format", "csv", "-o", filepath.Join(t.TempDir(), "z.cvar")}, "/dev/zero:1:"},
		{"train with a bad -alpha", []string{"train", "-data", glob, "-o", exists, "-force", "-alpha", "2"}, "alpha 2 is outside"},
		{"train with a bad -scale", []string{"train", "-data", glob, "-o", exists, "-force", "-scale", "cube"}, `unknown scaling "cube"`},
		{"train with a bad -scale-target", []string{"train", "-data", glob, "-o", exists, "-force", "-scale-target", "maxabs"}, `unknown value "maxabs"`},
		{"tune with a bad grid", []string{"tune", "-data", glob, "-o", filepath.Join(t.TempDir(), "t.cvar"), "-tune-lrs", "0,-1"}, "-tune-lrs"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := command(c.args...)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("cvarbeam %s: %v; want one line with %q", strings.Join(c.args, " "), err, c.want)
			}
		})
	}
	if after, _ := os.ReadFile(input); !bytes.Equal(before, after) {
		t.Error("an input shard changed")
	}
	if b, _ := os.ReadFile(exists); string(b) != "keep" {
		t.Error("a file was replaced without -force")
	}
}

// gzip shards train (every pass reads them decompressed), and eval -json
// gives the metrics the library computes for the model file on the same
// rows.
func TestTrainEvalCompressed(t *testing.T) {
	dir := t.TempDir()
	glob := shards(t, dir, 90, 3, ".csv.gz")
	model := filepath.Join(t.TempDir(), "m.cvar")
	out, err := command("train", "-data", glob, "-o", model, "-epochs", "2", "-json")
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Metrics map[string]map[string]float64 `json:"metrics"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if n := rep.Metrics["training"]["n"] + rep.Metrics["validation"]["n"]; n != 90 {
		t.Errorf("train read %v rows of 90", n)
	}
	out, err = command("eval", "-in", model, "-data", glob, "-json", "-alphas", "0.1")
	if err != nil {
		t.Fatal(err)
	}
	var ev map[string]any
	if err := json.Unmarshal([]byte(out), &ev); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(model)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := cvar.LoadModel(f); err != nil {
		t.Fatalf("the model file: %v", err)
	}
	if !strings.Contains(out, `"n": 90`) {
		t.Errorf("eval -json: %s; want 90 rows", out)
	}
}
