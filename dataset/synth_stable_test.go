package dataset

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"testing"
)

// fingerprint hashes the values, labels and subgroup flags of ds.
func fingerprint(ds *Dataset[float64], group []bool) string {
	h := sha256.New()
	put := func(v uint64) { h.Write(binary.LittleEndian.AppendUint64(nil, v)) }
	for _, v := range ds.X {
		put(math.Float64bits(v))
	}
	for _, v := range ds.Y {
		put(math.Float64bits(v))
	}
	for _, v := range ds.Labels {
		put(uint64(v))
	}
	for _, g := range group {
		if g {
			put(1)
		} else {
			put(0)
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil))[:16]
}

// TestSyntheticDataIsPinned pins the synthetic data and the split of seed 1
// bit for bit: they depend only on the configuration, on every platform and
// Go version (the arm64 leg of CI runs this test too).
func TestSyntheticDataIsPinned(t *testing.T) {
	t.Parallel()
	c, g, err := SyntheticClassificationGroups[float64](SynthClassOptions{Seed: 1, N: 3000, Classes: 3})
	if err != nil {
		t.Fatal(err)
	}
	tr, va, err := Split(c, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{
		"classification": fingerprint(c, g),
		"train":          fingerprint(tr, nil),
		"validation":     fingerprint(va, nil),
	}
	for _, dof := range []float64{3, 1} { // dof 1 draws Gamma(½), through the boost
		r, g, err := SyntheticRegressionGroups[float64](SynthRegOptions{Seed: 1, N: 3000, Dof: dof})
		if err != nil {
			t.Fatal(err)
		}
		got[fmt.Sprint("regression dof ", dof)] = fingerprint(r, g)
	}
	for name, want := range map[string]string{
		"classification":   "c57080c948e139ad",
		"train":            "b3699b47366ddaa8",
		"validation":       "85ba1165ceabb7ca",
		"regression dof 3": "7405a388b9fc8839",
		"regression dof 1": "190b867ad34e4131",
	} {
		if got[name] != want {
			t.Errorf("%s: fingerprint %s, want %s", name, got[name], want)
		}
	}
}
