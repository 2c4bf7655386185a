package cvar

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cvarlearn/cvar/internal/tail"
)

// riskSort is CVaR and VaR by a full sort and the textbook formula (k and m
// from tail.Count, whose snapping has its own exact tests).
func riskSort[T float32 | float64](losses []T, alpha float64) (cvar, vr float64) {
	n := len(losses)
	s := make([]float64, n)
	for i, x := range losses {
		s[i] = float64(x)
	}
	slices.Sort(s)
	slices.Reverse(s)
	m, k := tail.Count(n, alpha)
	sum := 0.0
	for _, x := range s[:k] {
		sum += x
	}
	if k == n {
		return sum / float64(n), s[n-1]
	}
	return (sum + (m-float64(k))*s[k]) / m, s[k]
}

// riskRU checks the Rockafellar–Uryasev form: τ + Σ[ℓ−τ]_+/(αn) evaluated at
// every loss value has its minimum equal to cvar, attained at vr.
func riskRU[T float32 | float64](t *testing.T, what string, losses []T, alpha, cvar, vr float64) {
	t.Helper()
	n := float64(len(losses))
	F := func(tau float64) float64 {
		s := 0.0
		for _, x := range losses {
			s += max(float64(x)-tau, 0)
		}
		return tau + s/(alpha*n)
	}
	best, scale := math.Inf(1), 1.0
	for _, x := range losses {
		best = min(best, F(float64(x)))
		scale = max(scale, math.Abs(float64(x)))
	}
	if math.Abs(best-cvar) > 1e-10*scale {
		t.Errorf("%s: min_τ F = %.17g, CVaR = %.17g", what, best, cvar)
	}
	if f := F(vr); math.Abs(f-best) > 1e-10*scale {
		t.Errorf("%s: F(VaR = %g) = %.17g > min %.17g", what, vr, f, best)
	}
}

func nearly(a, b float64) bool {
	return math.Abs(a-b) <= 1e-12*max(1, math.Abs(a), math.Abs(b))
}

// riskData returns n losses of a few kinds: continuous, heavy ties, all
// equal, negative.
func riskData(kind string, n int, r *rand.Rand) []float64 {
	v := make([]float64, n)
	for i := range v {
		switch kind {
		case "normal":
			v[i] = r.NormFloat64()
		case "ties":
			v[i] = float64(r.IntN(4)) / 2
		case "equal":
			v[i] = 2.5
		case "negative":
			v[i] = -r.ExpFloat64()
		case "sorted":
			v[i] = float64(i)
		}
	}
	return v
}

var riskKinds = []string{"normal", "ties", "equal", "negative", "sorted"}

func riskAlphas(n int) []float64 {
	a := []float64{1, 0.5, 0.25, 0.1, 0.05, 0.29, 0.999, 1 / float64(n), 3 / float64(n), 0.4 / float64(n), 1e-12}
	return slices.DeleteFunc(a, func(x float64) bool { return x > 1 })
}

func TestRiskCVaRVaRBruteForce(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for _, kind := range riskKinds {
		for _, n := range []int{1, 2, 3, 5, 8, 10, 20, 33, 100, 257, 1000} {
			v := riskData(kind, n, r)
			v32 := make([]float32, n)
			for i, x := range v {
				v32[i] = float32(x)
			}
			for _, alpha := range riskAlphas(n) {
				what := fmt.Sprintf("%s n=%d α=%v", kind, n, alpha)
				c, err := CVaR(v, alpha)
				if err != nil {
					t.Fatal(err)
				}
				vr, err := VaR(v, alpha)
				if err != nil {
					t.Fatal(err)
				}
				bc, bv := riskSort(v, alpha)
				if vr != bv || !nearly(c, bc) {
					t.Fatalf("%s: CVaR, VaR = %.17g, %g; sort: %.17g, %g", what, c, vr, bc, bv)
				}
				riskRU(t, what, v, alpha, c, vr)
				if c < vr {
					t.Errorf("%s: CVaR %g < VaR %g", what, c, vr)
				}

				c32, err := CVaR(v32, alpha)
				if err != nil {
					t.Fatal(err)
				}
				vr32, err := VaR(v32, alpha)
				if err != nil {
					t.Fatal(err)
				}
				bc32, bv32 := riskSort(v32, alpha)
				if vr32 != bv32 || !nearly(c32, bc32) {
					t.Fatalf("%s float32: CVaR, VaR = %.17g, %g; sort: %.17g, %g", what, c32, vr32, bc32, bv32)
				}
				riskRU(t, what+" float32", v32, alpha, c32, vr32)
			}
		}
	}
}

func TestRiskCVaRKnownValues(t *testing.T) {
	t.Parallel()
	losses := []float64{4, 1, 9, 0, 7, 3, 8, 2, 6, 5} // 0..9
	cases := []struct{ alpha, cvar, vr float64 }{
		{1, 4.5, 0},          // mean; VaR = min
		{0.1, 9, 8},          // k = 1
		{0.2, 8.5, 7},        // k = 2
		{0.3, 8, 6},          // k = 3: 0.3·10 = 3.0000000000000004 snapped
		{0.25, 8.2, 7},       // m = 2.5: (9 + 8 + 0.5·7)/2.5
		{0.05, 9, 9},         // m = 0.5 < 1: the maximum
		{0.5, 7, 4},          // mean of 9..5
		{0.95, 4.7368421, 0}, // (45 − 0 + 0.5·0)/9.5
	}
	for _, c := range cases {
		got, err := CVaR(losses, c.alpha)
		if err != nil {
			t.Fatal(err)
		}
		vr, _ := VaR(losses, c.alpha)
		if math.Abs(got-c.cvar) > 1e-7 || vr != c.vr {
			t.Errorf("α=%v: CVaR %v, VaR %v; want %v, %v", c.alpha, got, vr, c.cvar, c.vr)
		}
	}
	// α = 0.1 of 100 losses 1..100 is the mean of the top 10 exactly.
	h := make([]float64, 100)
	for i := range h {
		h[i] = float64(i + 1)
	}
	if c, _ := CVaR(h, 0.1); c != 95.5 {
		t.Errorf("CVaR_0.1(1..100) = %v, want 95.5", c)
	}
	if v, _ := VaR(h, 0.1); v != 90 {
		t.Errorf("VaR_0.1(1..100) = %v, want 90", v)
	}
}

func TestRiskMonotoneInAlpha(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	v := riskData("ties", 500, r)
	prevC, prevV := math.Inf(1), math.Inf(1)
	for a := 0.001; a <= 1; a += 0.001 {
		c, _ := CVaR(v, a)
		vr, _ := VaR(v, a)
		if c > prevC*(1+1e-12)+1e-12 || vr > prevV {
			t.Fatalf("α=%v: CVaR %v / VaR %v increased from %v / %v", a, c, vr, prevC, prevV)
		}
		prevC, prevV = c, vr
	}
}

func TestRiskTails(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	for _, kind := range riskKinds {
		for _, n := range []int{1, 7, 100, 1001} {
			v := riskData(kind, n, r)
			alphas := append(riskAlphas(n), 0.05, 1) // duplicates
			r.Shuffle(len(alphas), func(i, j int) { alphas[i], alphas[j] = alphas[j], alphas[i] })
			tails, err := Tails(v, alphas...)
			if err != nil {
				t.Fatal(err)
			}
			if len(tails) != len(alphas) {
				t.Fatalf("%d tails for %d alphas", len(tails), len(alphas))
			}
			for j, tl := range tails {
				c, _ := CVaR(v, alphas[j])
				vr, _ := VaR(v, alphas[j])
				if tl.Alpha != alphas[j] || tl.VaR != vr || !nearly(tl.CVaR, c) {
					t.Fatalf("%s n=%d: Tails[%d] = %+v; CVaR, VaR = %.17g, %g", kind, n, j, tl, c, vr)
				}
			}
			// float32
			v32 := make([]float32, n)
			for i, x := range v {
				v32[i] = float32(x)
			}
			tails32, err := Tails(v32, alphas...)
			if err != nil {
				t.Fatal(err)
			}
			for j, tl := range tails32 {
				c, _ := CVaR(v32, alphas[j])
				vr, _ := VaR(v32, alphas[j])
				if tl.VaR != vr || !nearly(tl.CVaR, c) {
					t.Fatalf("float32 %s n=%d: Tails[%d] = %+v; CVaR, VaR = %.17g, %g", kind, n, j, tl, c, vr)
				}
			}
		}
	}
	if tl, err := Tails([]float64{1, 2}); err != nil || len(tl) != 0 {
		t.Errorf("Tails without alphas: %v, %v", tl, err)
	}
}

func TestRiskWeighted(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	for _, kind := range riskKinds {
		for _, n := range []int{1, 2, 9, 50, 300} {
			v := riskData(kind, n, r)
			// Equal weights: the unweighted result.
			for _, c := range []float64{1, 0.01, 7.3} {
				w := slices.Repeat([]float64{c}, n)
				for _, alpha := range riskAlphas(n) {
					wc, wv, err := WeightedCVaR(v, w, alpha)
					if err != nil {
						t.Fatal(err)
					}
					uc, _ := CVaR(v, alpha)
					uv, _ := VaR(v, alpha)
					if wv != uv || !nearly(wc, uc) {
						t.Fatalf("%s n=%d c=%v α=%v: weighted %.17g, %g; unweighted %.17g, %g", kind, n, c, alpha, wc, wv, uc, uv)
					}
				}
			}
			// Integer weights (zeros included): the duplicated sample.
			w := make([]float64, n)
			var dup []float64
			for i := range w {
				w[i] = float64(r.IntN(4))
				if i == n-1 && len(dup) == 0 {
					w[i] = 2
				}
				for range int(w[i]) {
					dup = append(dup, v[i])
				}
			}
			for _, alpha := range append(riskAlphas(n), riskAlphas(len(dup))...) {
				wc, wv, err := WeightedCVaR(v, w, alpha)
				if err != nil {
					t.Fatal(err)
				}
				dc, _ := CVaR(dup, alpha)
				dv, _ := VaR(dup, alpha)
				if wv != dv || !nearly(wc, dc) {
					t.Fatalf("%s n=%d α=%v: weighted %.17g, %g; duplicated %.17g, %g", kind, n, alpha, wc, wv, dc, dv)
				}
			}
		}
	}
	// Ties across the boundary and a zero-weight extreme.
	v := []float64{5, 5, 5, 1, 100}
	w := []float64{1, 2, 1, 4, 0}
	// W = 8, α = 0.25: A = 2, the 5s carry 4 > 2 → VaR 5, CVaR 5.
	if c, vr, err := WeightedCVaR(v, w, 0.25); err != nil || c != 5 || vr != 5 {
		t.Errorf("ties: %v, %v, %v; want 5, 5", c, vr, err)
	}
	// α = 0.75: A = 6: the 5s (4) + 2 of the 1 → (20 + 2)/6.
	if c, vr, err := WeightedCVaR(v, w, 0.75); err != nil || !nearly(c, 22.0/6) || vr != 1 {
		t.Errorf("ties: %v, %v, %v; want %v, 1", c, vr, err, 22.0/6)
	}
}

func TestRiskErrors(t *testing.T) {
	t.Parallel()
	good := []float64{1, 2, 3}
	nan := make([]float64, 20)
	nan[17] = math.NaN()
	inf := []float64{0, math.Inf(1), 2}
	ninf := []float64{math.Inf(-1)}
	cases := []struct {
		name   string
		losses []float64
		alpha  float64
		want   []error
		msg    string
	}{
		{"alpha 0", good, 0, []error{ErrAlpha}, "cvar: alpha 0 outside (0, 1]"},
		{"alpha negative", good, -0.1, []error{ErrAlpha}, "cvar: alpha -0.1 outside (0, 1]"},
		{"alpha 1.5", good, 1.5, []error{ErrAlpha}, "cvar: alpha 1.5 outside (0, 1]"},
		{"alpha NaN", good, math.NaN(), []error{ErrAlpha}, "cvar: alpha NaN outside (0, 1]"},
		{"alpha +Inf", good, math.Inf(1), []error{ErrAlpha}, "cvar: alpha +Inf outside (0, 1]"},
		{"empty", nil, 0.5, []error{ErrEmpty}, "cvar: no losses"},
		{"NaN loss", nan, 0.5, []error{ErrNonFinite, ErrNaN}, "cvar: loss 17 is NaN"},
		{"+Inf loss", inf, 0.5, []error{ErrNonFinite}, "cvar: loss 1 is +Inf"},
		{"-Inf loss", ninf, 1, []error{ErrNonFinite}, "cvar: loss 0 is -Inf"},
	}
	for _, c := range cases {
		check := func(fn string, err error) {
			t.Helper()
			if err == nil {
				t.Errorf("%s %s: no error", fn, c.name)
				return
			}
			for _, w := range c.want {
				if !errors.Is(err, w) {
					t.Errorf("%s %s: %v is not %v", fn, c.name, err, w)
				}
			}
			if err.Error() != c.msg {
				t.Errorf("%s %s: message %q, want %q", fn, c.name, err, c.msg)
			}
		}
		v, err := CVaR(c.losses, c.alpha)
		check("CVaR", err)
		if !math.IsNaN(v) {
			t.Errorf("CVaR %s: value %v on error, want NaN", c.name, v)
		}
		_, err = VaR(c.losses, c.alpha)
		check("VaR", err)
		l32 := make([]float32, len(c.losses))
		for i, x := range c.losses {
			l32[i] = float32(x)
		}
		_, err = CVaR(l32, c.alpha)
		check("CVaR[float32]", err)
		_, err = VaR(l32, c.alpha)
		check("VaR[float32]", err)
		_, err = Tails(c.losses, 0.1, c.alpha)
		check("Tails", err)
		_, _, err = WeightedCVaR(c.losses, slices.Repeat([]float64{1}, len(c.losses)), c.alpha)
		check("WeightedCVaR", err)
	}
	// A NaN loss is not ErrAlpha etc.; an Inf loss is not ErrNaN.
	_, err := CVaR(inf, 0.5)
	if errors.Is(err, ErrNaN) || errors.Is(err, ErrAlpha) {
		t.Errorf("+Inf loss error %v matches the wrong sentinel", err)
	}

	// Weights.
	wcases := []struct {
		name string
		w    []float64
		msg  string
	}{
		{"short", []float64{1, 1}, "cvar: 2 weights for 3 losses"},
		{"negative", []float64{1, -0.5, 1}, "cvar: weight 1 is negative (-0.5)"},
		{"NaN", []float64{1, 1, math.NaN()}, "cvar: weight 2 is NaN"},
		{"Inf", []float64{math.Inf(1), 1, 1}, "cvar: weight 0 is +Inf"},
		{"zero", []float64{0, 0, 0}, "cvar: weights are all zero"},
		{"overflow", []float64{math.MaxFloat64, math.MaxFloat64, 0}, "cvar: weights sum to +Inf"},
	}
	for _, c := range wcases {
		_, _, err := WeightedCVaR(good, c.w, 0.5)
		if !errors.Is(err, ErrWeights) || err.Error() != c.msg {
			t.Errorf("weights %s: %v, want %q (ErrWeights)", c.name, err, c.msg)
		}
	}
}

func TestRiskScratchAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	v := riskData("normal", 2000, r)
	v32 := make([]float32, len(v))
	for i, x := range v {
		v32[i] = float32(x)
	}
	var s tailScratch[float32]
	dst := make([]Tail, 0, 4)
	w := slices.Repeat([]float64{0.5}, len(v))
	// Warm up, then nothing more is allocated.
	_, _ = s.CVaR(v32, 0.05)
	_, _ = s.AppendTails(dst, v32, 0.05, 0.1, 1)
	for name, f := range map[string]func(){
		"CVaR":         func() { _, _ = s.CVaR(v32, 0.05) },
		"VaR":          func() { _, _ = s.VaR(v32, 0.05) },
		"AppendTails":  func() { _, _ = s.AppendTails(dst[:0], v32, 0.05, 0.1, 1) },
		"WeightedCVaR": func() { _, _, _ = s.WeightedCVaR(v32, w, 0.05) },
	} {
		if a := testing.AllocsPerRun(20, f); a != 0 {
			t.Errorf("tailScratch.%s: %v allocations per run", name, a)
		}
	}
	// Scratch results equal the package functions.
	c1, _ := s.CVaR(v32, 0.1)
	c2, _ := CVaR(v32, 0.1)
	vr, _ := s.VaR(v32, 0.1)
	tails, _ := s.AppendTails(nil, v32, 0.1)
	cv := tails[0].CVaR
	v2, _ := VaR(v32, 0.1)
	if c1 != c2 || cv != c2 || vr != v2 {
		t.Errorf("scratch %v %v %v, functions %v %v", c1, cv, vr, c2, v2)
	}
	// A shorter input after a longer one.
	if c, _ := s.CVaR(v32[:3], 1); !nearly(c, (float64(v32[0])+float64(v32[1])+float64(v32[2]))/3) {
		t.Errorf("reused scratch on 3 losses: %v", c)
	}
}

// FuzzCVaR checks CVaR, VaR, Tails and WeightedCVaR. With wide false the
// losses are byte-derived (many ties, negatives) and compared with the
// sort-based brute force; with wide true every 8 bytes are the bits of a
// float64, so the losses span the whole float64 range (NaN and ±Inf
// included, which must be errors), and for finite losses every result must
// be finite with VaR ≤ CVaR ≤ max, VaR exact, and the four functions must
// agree to float64 rounding relative to the largest |loss|.
func FuzzCVaR(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, uint16(6553), false)
	f.Add([]byte{0, 0, 0, 0}, uint16(65535), false)
	f.Add([]byte{200}, uint16(1), false)
	f.Add(make([]byte, 100), uint16(19000), false)
	wide := func(xs ...float64) []byte {
		var b []byte
		for _, x := range xs {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
		}
		return b
	}
	f.Add(wide(1e308, 1e308, 1e308, 1e308), uint16(32767), true)
	f.Add(wide(math.MaxFloat64, -math.MaxFloat64, math.MaxFloat64, 1), uint16(65535), true)
	f.Add(wide(-1e308, -1e308, 5e-324, 1e-300, 1e308), uint16(40000), true)
	f.Add(wide(math.NaN(), 1), uint16(100), true)
	f.Fuzz(func(t *testing.T, b []byte, a16 uint16, wide bool) {
		alpha := (float64(a16) + 1) / 65536 // (0, 1]
		var losses []float64
		if wide {
			for i := 0; i+8 <= len(b); i += 8 {
				losses = append(losses, math.Float64frombits(binary.LittleEndian.Uint64(b[i:])))
			}
		} else {
			for _, x := range b {
				losses = append(losses, float64(int8(x))/4)
			}
		}
		c, err := CVaR(losses, alpha)
		if len(losses) == 0 {
			if !errors.Is(err, ErrEmpty) {
				t.Fatalf("empty: %v", err)
			}
			return
		}
		finiteIn, amax, mx := true, 0.0, math.Inf(-1)
		for _, x := range losses {
			finiteIn = finiteIn && !math.IsNaN(x) && !math.IsInf(x, 0)
			amax, mx = max(amax, math.Abs(x)), max(mx, x)
		}
		if !finiteIn {
			if !errors.Is(err, ErrNonFinite) {
				t.Fatalf("%v: CVaR %v, error %v; want ErrNonFinite", losses, c, err)
			}
			if _, err := Tails(losses, alpha); !errors.Is(err, ErrNonFinite) {
				t.Fatalf("%v: Tails error %v; want ErrNonFinite", losses, err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		vr, err := VaR(losses, alpha)
		if err != nil {
			t.Fatal(err)
		}
		if !(vr <= c && c <= mx) || math.IsInf(c, 0) {
			t.Fatalf("α=%v %v: CVaR %v, VaR %v, max %v; want VaR ≤ CVaR ≤ max, finite", alpha, losses, c, vr, mx)
		}
		// Within 1e-9 relative to the largest |loss|, or a few subnormal
		// steps when the losses are themselves that small.
		close := func(a, b float64) bool { return a == b || math.Abs(a-b) <= 1e-9*amax+1e-320 }
		bc, bv := riskSort(losses, alpha)
		if vr != bv || !wide && !nearly(c, bc) {
			t.Fatalf("α=%v %v: CVaR, VaR = %.17g, %g; sort %.17g, %g", alpha, losses, c, vr, bc, bv)
		}
		tl, err := Tails(losses, alpha, 1, 0.05)
		if err != nil || tl[0].VaR != bv || !close(tl[0].CVaR, c) {
			t.Fatalf("Tails %+v, %v; CVaR %.17g, VaR %g", tl, err, c, bv)
		}
		for _, tt := range tl {
			if !(tt.VaR <= tt.CVaR && tt.CVaR <= mx) || math.IsInf(tt.CVaR, 0) {
				t.Fatalf("%v: Tails %+v outside [VaR, max %v]", losses, tt, mx)
			}
		}
		if m1 := tl[1].CVaR; wide && !close(m1, meanScaled(losses)) {
			t.Fatalf("%v: CVaR_1 %v, mean %v", losses, m1, meanScaled(losses))
		}
		// Equal weights (read as 1) and large unequal ones (scaled).
		w := slices.Repeat([]float64{1}, len(losses))
		wc, wv, err := WeightedCVaR(losses, w, alpha)
		if err != nil || wv != bv || !close(wc, c) {
			t.Fatalf("WeightedCVaR %v, %v, %v; CVaR %.17g, VaR %g", wc, wv, err, c, bv)
		}
		for i := range w {
			w[i] = 1e300 * float64(1+i%3)
		}
		wc, wv, err = WeightedCVaR(losses, w, alpha)
		if err != nil || !(wv <= wc && wc <= mx) || math.IsInf(wc, 0) {
			t.Fatalf("%v, weights 1e300·(1, 2, 3, …): WeightedCVaR %v, VaR %v, %v; want VaR ≤ CVaR ≤ max %v", losses, wc, wv, err, mx)
		}
	})
}

// meanScaled is the mean of xs without overflow, for the fuzz test: the
// terms are divided by n first only when they are large.
func meanScaled(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		if math.Abs(x) > 1e300 {
			return meanDividedFirst(xs)
		}
		s += x
	}
	return s / float64(len(xs))
}

func meanDividedFirst(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x / float64(len(xs))
	}
	return s
}

// TestCVaRNoOverflow checks the documented range where the sums of the
// losses overflow float64: CVaR, Tails and WeightedCVaR of four losses of
// 1e308 are 1e308, not NaN.
func TestCVaRNoOverflow(t *testing.T) {
	t.Parallel()
	big := []float64{1e308, 1e308, 1e308, 1e308}
	for _, a := range []float64{0.5, 1} {
		if c, err := CVaR(big, a); err != nil || c != 1e308 {
			t.Errorf("CVaR(4 × 1e308, %v) = %v, %v; want 1e308", a, c, err)
		}
		tl, err := Tails(big, a, 0.25)
		if err != nil || tl[0].CVaR != 1e308 || tl[1].CVaR != 1e308 {
			t.Errorf("Tails(4 × 1e308, %v, 0.25) = %+v, %v; want CVaR 1e308", a, tl, err)
		}
		for _, w := range [][]float64{{1, 1, 1, 1}, {1, 2, 3, 4}, {1e307, 1e307, 1e306, 1}} {
			if c, v, err := WeightedCVaR(big, w, a); err != nil || c != 1e308 || v != 1e308 {
				t.Errorf("WeightedCVaR(4 × 1e308, %v, %v) = %v, %v, %v; want 1e308", w, a, c, v, err)
			}
		}
	}
	mixed := []float64{math.MaxFloat64, math.MaxFloat64, -math.MaxFloat64, -math.MaxFloat64}
	if c, err := CVaR(mixed, 1); err != nil || c != 0 {
		t.Errorf("CVaR(±MaxFloat64, 1) = %v, %v; want 0", c, err)
	}
	if c, err := CVaR(mixed, 0.75); err != nil || !nearly(c, math.MaxFloat64/3) {
		t.Errorf("CVaR(±MaxFloat64, 0.75) = %v, %v; want MaxFloat64/3", c, err)
	}
}
