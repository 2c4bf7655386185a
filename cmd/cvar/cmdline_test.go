package main

import (
	"bytes"
	"compress/gzip"
	"strings"
	"testing"
)

// gzipped returns s compressed with gzip.
func gzipped(s string) string {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.String()
}

// numericCSV is classCSV with the labels 0 and 1, which -stream reads.
func numericCSV(n int, seed uint64) string {
	return strings.NewReplacer(",cat\n", ",0\n", ",dog\n", ",1\n").Replace(classCSV(n, seed, true))
}

// TestTabDelimiter: a name ending .tsv or .tab, in any case and before any
// compression suffix, is read tab-separated, in memory and as a stream.
func TestTabDelimiter(t *testing.T) {
	dir := t.TempDir()
	tsv := strings.ReplaceAll(numericCSV(60, 2), ",", "\t")
	for name, content := range map[string]string{
		"heart.tsv.bz2": tsv, // compression is sniffed, not taken from the name
		"HEART.TSV.GZ":  gzipped(tsv),
		"heart.tab":     tsv,
		"heart.Tsv":     tsv,
	} {
		var r trainJSON
		decodeJSON(t, ok(t, "train", "-data", write(t, dir, name, content), "-epochs", "1", "-json"), &r)
		if r.Model.D != 3 {
			t.Errorf("%s: %d features, want 3", name, r.Model.D)
		}
	}
	num := write(t, dir, "num.tsv", tsv)
	var r trainJSON
	decodeJSON(t, ok(t, "train", "-data", num, "-stream", "-method", "alg1", "-json"), &r)
	if r.Model.D != 3 {
		t.Errorf("-stream num.tsv: %d features, want 3", r.Model.D)
	}
}
