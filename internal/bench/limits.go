package bench

import (
	"runtime"
	"sync"
	"time"

	"github.com/cvarlearn/cvar/internal/bench/peak"
)

// StreamBytes is the default size of the read-only stream buffer. It is
// 256 MiB, or twice the last-level cache when that is bigger (capped at
// 1 GiB).
func StreamBytes(l3 int) int {
	n := 256 << 20
	if 2*l3 > n {
		n = min(2*l3, 1<<30)
	}
	return n
}

// NewStreamBuffer returns a buffer of the given size in bytes, every page
// touched.
func NewStreamBuffer(bytes int) []float32 {
	x := make([]float32, bytes/4)
	for i := range x {
		x[i] = streamValue(i)
	}
	return x
}

// streamValue is element i of a stream buffer. The values are small normal
// floats, so the sums add no subnormals.
func streamValue(i int) float32 { return float32(i&1023) * (1.0 / 1024) }

// SumParallel sums x once on threads goroutines: one read-only pass over
// the buffer. Each goroutine reads a contiguous part of it.
func SumParallel(x []float32, threads int) float32 {
	if threads <= 1 {
		return peak.Sum32(x)
	}
	parts := make([]float32, threads)
	var wg sync.WaitGroup
	per := (len(x)/threads + 63) &^ 63
	for t := 0; t < threads; t++ {
		lo := min(t*per, len(x))
		hi := min(lo+per, len(x))
		wg.Add(1)
		go func() {
			defer wg.Done()
			parts[t] = peak.Sum32(x[lo:hi])
		}()
	}
	wg.Wait()
	var s float32
	for _, v := range parts {
		s += v
	}
	return s
}

// Bandwidth measures the read-only bandwidth in bytes per second of passes
// over x on threads goroutines. It takes the best of repeated passes. They
// run for at least minTime in all, and at least 3 passes.
func Bandwidth(x []float32, threads int, minTime time.Duration) float64 {
	best := 0.0
	start := time.Now()
	for i := 0; i < 3 || time.Since(start) < minTime; i++ {
		t0 := time.Now()
		sink += float64(SumParallel(x, threads))
		if bw := float64(4*len(x)) / time.Since(t0).Seconds(); bw > best {
			best = bw
		}
	}
	return best
}

// PeakFlops measures the FMA rate of the peak loop on threads goroutines.
// The rate is in flops per second (a multiply-add is 2). The loop runs in
// float32 (f32) or float64. It takes the best of repeated rounds of about
// a millisecond, over at least minTime.
func PeakFlops(f32 bool, threads int, minTime time.Duration) float64 {
	return peakFlops(f32, false, threads, minTime)
}

// PeakFlopsWide is PeakFlops with the loop on the widest vectors the CPU
// has: zmm, 512-bit, with AVX-512 (see WidestFMA). Without wider ones it
// measures the same loop as PeakFlops.
func PeakFlopsWide(f32 bool, threads int, minTime time.Duration) float64 {
	return peakFlops(f32, true, threads, minTime)
}

func peakFlops(f32, wide bool, threads int, minTime time.Duration) float64 {
	var run func(int) int64
	switch {
	case f32 && wide:
		run = peak.FMA32Wide
	case f32:
		run = peak.FMA32
	case wide:
		run = peak.FMA64Wide
	default:
		run = peak.FMA64
	}
	// Size a round to about 1 ms on one thread.
	iters := 1024
	for {
		t0 := time.Now()
		run(iters)
		if time.Since(t0) > 500*time.Microsecond || iters > 1<<30 {
			break
		}
		iters *= 2
	}
	best := 0.0
	start := time.Now()
	for r := 0; r < 5 || time.Since(start) < minTime; r++ {
		var wg sync.WaitGroup
		fmas := make([]int64, threads)
		t0 := time.Now()
		for t := 0; t < threads; t++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				fmas[t] = run(iters)
			}()
		}
		wg.Wait()
		el := time.Since(t0).Seconds()
		var total int64
		for _, f := range fmas {
			total += f
		}
		if r := 2 * float64(total) / el; r > best {
			best = r
		}
	}
	return best
}

// Limits are the machine's limits measured in-process.
type Limits struct {
	Threads int `json:"threads"` // "all threads": GOMAXPROCS
	// Read-only bandwidth out of cache, bytes/s, on 1 and on Threads threads.
	StreamBytes  int     `json:"stream_bytes"`
	Bandwidth1   float64 `json:"bandwidth_1thread_bytes_per_s"`
	BandwidthAll float64 `json:"bandwidth_all_bytes_per_s"`
	// The latency of a load from a random 4 KiB page of the same buffer
	// (PageLatency), in nanoseconds. A gathered row's first line waits
	// that long when no prefetch asked for it in time. It is reported
	// beside the stream, never in a floor.
	PageLatencyNs float64 `json:"page_latency_ns"`
	PeakF32_1     float64 `json:"peak_f32_1thread_flops_per_s"`
	PeakF32All    float64 `json:"peak_f32_all_flops_per_s"`
	PeakF64_1     float64 `json:"peak_f64_1thread_flops_per_s"`
	PeakF64All    float64 `json:"peak_f64_all_flops_per_s"`
	// BandwidthAt holds the read-only bandwidth measured on other thread
	// counts (MeasureBandwidthAt). It serves the floor of a run on that
	// many.
	BandwidthAt map[int]float64 `json:"bandwidth_by_threads_bytes_per_s,omitempty"`
	PeakAsm     bool            `json:"peak_asm"`
	PeakKind    string          `json:"peak_kind"`
	// The same FMA loop on the widest vectors the CPU has (zmm with
	// AVX-512). It is measured only when they are wider than the loop
	// above, and zero otherwise. The floors use the widest: see Peak.
	PeakWideF32_1  float64 `json:"peak_wide_f32_1thread_flops_per_s,omitempty"`
	PeakWideF32All float64 `json:"peak_wide_f32_all_flops_per_s,omitempty"`
	PeakWideF64_1  float64 `json:"peak_wide_f64_1thread_flops_per_s,omitempty"`
	PeakWideF64All float64 `json:"peak_wide_f64_all_flops_per_s,omitempty"`
	PeakWidest     string  `json:"peak_widest"` // e.g. "zmm (512-bit)": the FMA the floors use
	MeasuredMilli  int64   `json:"measured_ms"`
}

// MeasureLimits measures bandwidth on a buffer of streamBytes, and the FMA
// peaks. It measures both on one thread and on all of GOMAXPROCS. It also
// measures the latency of a load from a random page of the buffer. Each
// measurement takes about minTime.
func MeasureLimits(streamBytes int, minTime time.Duration) Limits {
	t0 := time.Now()
	all := runtime.GOMAXPROCS(0)
	x := NewStreamBuffer(streamBytes)
	l := Limits{Threads: all, StreamBytes: streamBytes, PeakAsm: peak.Asm(), PeakKind: peak.Kind(), PeakWidest: WidestFMA()}
	l.Bandwidth1 = Bandwidth(x, 1, minTime)
	l.BandwidthAll = Bandwidth(x, all, minTime)
	l.PageLatencyNs = PageLatency(x, minTime)
	l.PeakF32_1 = PeakFlops(true, 1, minTime)
	l.PeakF32All = PeakFlops(true, all, minTime)
	l.PeakF64_1 = PeakFlops(false, 1, minTime)
	l.PeakF64All = PeakFlops(false, all, minTime)
	if peak.HasWide() {
		l.PeakWideF32_1 = PeakFlopsWide(true, 1, minTime)
		l.PeakWideF32All = PeakFlopsWide(true, all, minTime)
		l.PeakWideF64_1 = PeakFlopsWide(false, 1, minTime)
		l.PeakWideF64All = PeakFlopsWide(false, all, minTime)
	}
	l.MeasuredMilli = time.Since(t0).Milliseconds()
	return l
}

// Peak returns the FMA peaks, one thread and all threads, in the given
// precision. They are those of the widest vectors measured: zmm where the
// CPU has AVX-512. That holds whether or not its 512-bit FMA is full
// width. On a double-pumped core the two loops measure about the same.
func (l Limits) Peak(f32 bool) (one, all float64) {
	if f32 {
		return max(l.PeakF32_1, l.PeakWideF32_1), max(l.PeakF32All, l.PeakWideF32All)
	}
	return max(l.PeakF64_1, l.PeakWideF64_1), max(l.PeakF64All, l.PeakWideF64All)
}

// MeasureBandwidthAt measures the read-only bandwidth into BandwidthAt. It
// measures each thread count of threads between 1 and Threads (exclusive).
// Each measurement reads a buffer of StreamBytes for about minTime.
func (l *Limits) MeasureBandwidthAt(threads []int, minTime time.Duration) {
	var x []float32
	for _, t := range threads {
		if t <= 1 || t >= l.Threads || l.BandwidthAt[t] > 0 {
			continue
		}
		if x == nil {
			x = NewStreamBuffer(l.StreamBytes)
		}
		if l.BandwidthAt == nil {
			l.BandwidthAt = map[int]float64{}
		}
		l.BandwidthAt[t] = Bandwidth(x, t, minTime)
	}
}

// For returns the bandwidth and peak that apply to a run on threads
// threads in the given precision. For 1 thread they are the one-thread
// figures. For Threads or more they are the all-thread figures. In
// between, the bandwidth is the one measured on that many threads
// (BandwidthAt) where there is one. Else it is the all-thread figure
// scaled down. The peak in between is scaled down. The peak is the widest
// FMA's (Peak).
func (l Limits) For(f32 bool, threads int) (bandwidth, flops float64) {
	p1, pa := l.Peak(f32)
	if threads <= 1 {
		return l.Bandwidth1, p1
	}
	if threads >= l.Threads {
		return l.BandwidthAll, pa
	}
	f := float64(threads) / float64(l.Threads)
	bw := max(l.Bandwidth1, l.BandwidthAll*f)
	if v := l.BandwidthAt[threads]; v > 0 {
		bw = v
	}
	return bw, max(p1, pa*f)
}

// PeakAsm reports whether the FMA peak and stream loops are assembly, the
// machine's limit. The other case is the pure-Go fallback.
func PeakAsm() bool { return peak.Asm() }

// WidestFMA names the widest FMA the peak loops use; the floors are
// measured with it. It is "zmm (512-bit)" on amd64 with AVX-512, "ymm
// (256-bit)" with AVX2 only, and "128-bit (NEON)" on arm64.
func WidestFMA() string { return peak.WidestKind() }

// PeakKind describes the FMA peak and stream loops in use.
func PeakKind() string { return peak.Kind() }
