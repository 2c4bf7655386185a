package main

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"sort"
	"time"

	"github.com/klauspost/cpuid/v2"

	"github.com/cvarlearn/cvar/internal/bench"
	"github.com/cvarlearn/cvar/internal/kernel"
	pkernel "github.com/cvarlearn/cvar/kernel"
)

// Report is what cvarbench measures; -json prints it as is.
type Report struct {
	Format  string           `json:"format"` // "cvarbench/1"
	Quick   bool             `json:"quick"`
	Machine Machine          `json:"machine"`
	Limits  *bench.Limits    `json:"limits,omitempty"`
	Kernels []KernelRow      `json:"kernels,omitempty"`
	Epochs  []bench.EpochRow `json:"epochs,omitempty"`
	Sparse  []SparseRow      `json:"sparse,omitempty"`
	// Targets are the project's speed targets judged on Epochs
	// (bench.Targets), those whose rows the run has.
	Targets []bench.TargetRow `json:"targets,omitempty"`
	Notes   []string          `json:"notes"`
	Seconds float64           `json:"seconds"` // wall time of the whole run
}

// Machine describes the CPU, Go and the kernel path.
type Machine struct {
	CPU    string `json:"cpu"`
	Vendor string `json:"vendor"`
	Arch   string `json:"arch"`
	OS     string `json:"os"`
	// LogicalCores is the CPUs the OS lets the process use
	// (runtime.NumCPU). PhysicalCores is the cores CPUID counts. It is 0
	// where that exceeds LogicalCores: a hypervisor may pass on its host's
	// topology.
	PhysicalCores  int             `json:"physical_cores"`
	LogicalCores   int             `json:"logical_cores"`
	GOMAXPROCS     int             `json:"gomaxprocs"`
	L1DBytes       int             `json:"l1d_bytes"`
	L2Bytes        int             `json:"l2_bytes"`
	L3Bytes        int             `json:"l3_bytes"`
	Features       map[string]bool `json:"features"` // the ones that matter to cvar
	AllFeatures    []string        `json:"all_features"`
	GoVersion      string          `json:"go_version"`
	KernelActive   string          `json:"kernel_active"`
	KernelImpls    []string        `json:"kernel_available"`
	KernelReason   string          `json:"kernel_reason,omitempty"`   // why the default (kernel.Info().Reason)
	KernelOverride string          `json:"kernel_override,omitempty"` // an ignored CVAR_KERNEL value
	PeakWidest     string          `json:"peak_widest"`               // the FMA the floors use, e.g. "zmm (512-bit)"
	PeakLoopAsm    bool            `json:"peak_loop_asm"`
	PeakLoopKind   string          `json:"peak_loop_kind"`
	HypervisorName string          `json:"hypervisor,omitempty"`
}

// KernelRow is one variant of one kernel case.
type KernelRow struct {
	Kernel   string `json:"kernel"`
	Prec     string `json:"prec"`
	Size     string `json:"size"`
	Impl     string `json:"impl"`
	Baseline bool   `json:"baseline"`
	// Level is where the case's working set fits: L1, L2, L3 or memory.
	Level   string  `json:"level"`
	NsPerOp float64 `json:"ns_per_op"`
	GBps    float64 `json:"gb_per_s"`                     // bytes read and written / time
	GFLOPs  float64 `json:"gflop_per_s,omitempty"`        // multiply-add = 2
	Melems  float64 `json:"melem_per_s,omitempty"`        // elementwise kernels
	Speedup float64 `json:"speedup_vs_generic"`           // generic's time / this time
	OfPeak  float64 `json:"fraction_of_peak,omitempty"`   // GFLOP/s over the 1-thread FMA peak
	OfBW    float64 `json:"fraction_of_stream,omitempty"` // out-of-cache cases: GB/s over the 1-thread stream
}

func machineReport() Machine {
	info := pkernel.Info()
	c := cpuid.CPU
	feat := map[string]bool{
		"AVX2":    c.Supports(cpuid.AVX2),
		"FMA":     c.Supports(cpuid.FMA3),
		"AVX-512": c.Supports(cpuid.AVX512F),
		"ASIMD":   c.Supports(cpuid.ASIMD),
		"SVE":     c.Supports(cpuid.SVE),
	}
	m := Machine{
		CPU: info.CPU.Brand, Vendor: c.VendorString, Arch: runtime.GOARCH, OS: runtime.GOOS,
		PhysicalCores: osCores(c.PhysicalCores), LogicalCores: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0),
		L1DBytes: info.CPU.L1DBytes, L2Bytes: info.CPU.L2Bytes, L3Bytes: info.CPU.L3Bytes,
		Features: feat, AllFeatures: info.CPU.Features, GoVersion: runtime.Version(),
		KernelActive: info.Active, KernelImpls: info.Available,
		KernelReason: info.Reason, KernelOverride: info.Override, PeakWidest: bench.WidestFMA(),
		PeakLoopAsm: bench.PeakAsm(), PeakLoopKind: bench.PeakKind(),
	}
	if c.HypervisorVendorString != "" {
		m.HypervisorName = c.HypervisorVendorString
	}
	if m.CPU == "" {
		m.CPU = "unknown"
	}
	return m
}

// level names the cache a working set of the given bytes fits in.
func level(m Machine, bytes int64) string {
	switch {
	case m.L1DBytes > 0 && bytes <= int64(m.L1DBytes):
		return "L1"
	case m.L2Bytes > 0 && bytes <= int64(m.L2Bytes):
		return "L2"
	case m.L3Bytes > 0 && bytes <= int64(m.L3Bytes):
		return "L3"
	}
	return "memory"
}

// timeOp returns the time of one call of f. It grows a batch of calls
// until the batch takes a quarter of minTime. It then returns the best of
// three batches.
func timeOp(f func(), minTime time.Duration) time.Duration {
	f() // warm
	n := 1
	for {
		t0 := time.Now()
		for range n {
			f()
		}
		el := time.Since(t0)
		if el >= minTime/4 || n >= 1<<30 {
			break
		}
		if el <= 0 {
			n *= 16
			continue
		}
		n = min(n*16, max(n+1, int(float64(n)*float64(minTime/4)/float64(el)*1.2)))
	}
	best := time.Duration(1<<63 - 1)
	for range 3 {
		t0 := time.Now()
		for range n {
			f()
		}
		best = min(best, time.Since(t0))
	}
	return best / time.Duration(n)
}

func measure(c *config, progress io.Writer) (*Report, error) {
	start := time.Now()
	rep := &Report{Format: "cvarbench/1", Quick: c.quick, Machine: machineReport()}
	rep.Notes = append(rep.Notes,
		"bandwidth: best read-only pass (VADDPS/FMLA sum) over the stream buffer; latency: a chase of dependent loads over its 4 KiB pages in random order; peak: 12 independent 256-bit (amd64) or 128-bit (arm64) FMA chains, and on amd64 with AVX-512 the same on 512-bit zmm; multiply-add = 2 flops",
		"the floors and the kernels' fraction of peak use the widest FMA measured: "+bench.WidestFMA(),
		"epoch floor = max(bytes/bandwidth, flops/peak) with the limits measured for the run's thread count; bytes = rows read (samples·d·size), flops: logistic 4d, softmax 4dk, mlp 4dh+6hk per sample",
		"gonum's gemm (marginsk, addouterk, mlp-*) starts goroutines on GOMAXPROCS for large products; run with GOMAXPROCS=1 to compare one core with one core")
	if !rep.Machine.PeakLoopAsm {
		rep.Notes = append(rep.Notes, "the FMA peak and the stream were measured with pure-Go loops (no assembly for this build or CPU): they understate the machine")
	}
	logf := func(format string, a ...any) { fmt.Fprintf(progress, format+"\n", a...) }

	if c.has("limits") || c.has("epochs") || c.has("kernels") || c.has("sparse") {
		size := bench.StreamBytes(rep.Machine.L3Bytes)
		if c.streamMiB > 0 {
			size = c.streamMiB << 20
		}
		logf("measuring limits (stream over %d MiB, FMA peak)…", size>>20)
		l := bench.MeasureLimits(size, c.minTime)
		if c.has("epochs") {
			l.MeasureBandwidthAt(c.threads, c.minTime)
		}
		rep.Limits = &l
	}
	if c.has("kernels") {
		rows, err := kernelRows(c, rep, logf)
		if err != nil {
			return nil, err
		}
		rep.Kernels = rows
	}
	if c.has("epochs") {
		rows, err := epochRows(c, rep, logf)
		if err != nil {
			return nil, err
		}
		rep.Epochs = rows
		rep.Targets = bench.Targets(rows, rep.Machine.KernelActive, rep.Machine.GOMAXPROCS)
	}
	if c.has("sparse") {
		rows, err := sparseRows(c, rep, logf)
		if err != nil {
			return nil, err
		}
		rep.Sparse = rows
	}
	if !c.has("limits") && !c.has("epochs") && !c.has("kernels") && !c.has("sparse") {
		rep.Limits = nil
	}
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

func kernelRows(c *config, rep *Report, logf func(string, ...any)) ([]KernelRow, error) {
	var impls []kernel.Impl
	for _, im := range kernel.Impls() {
		if slices.Contains(c.kernels, im.Name()) || im.Name() == "generic" {
			impls = append(impls, im) // generic always runs: it is the reference of the speed-ups
		}
	}
	specs := bench.KernelSpecs(bench.SpecOptions{Dims: c.dims, Precs: c.precs, Kernels: c.cases, OutOfCache: c.outOfCache})
	var out []KernelRow
	for _, sp := range specs {
		logf("kernel %s %s %s", sp.Kernel, sp.Prec, sp.Size)
		kc := sp.Build(impls)
		var rows []KernelRow
		generic := 0.0
		for _, v := range kc.Variants {
			if v.Impl != "generic" && !slices.Contains(c.kernels, v.Impl) {
				continue
			}
			d := timeOp(v.Run, c.minTime)
			sec := d.Seconds()
			r := KernelRow{Kernel: kc.Kernel, Prec: kc.Prec, Size: kc.Size, Impl: v.Impl, Baseline: v.Baseline,
				Level: level(rep.Machine, kc.Bytes), NsPerOp: float64(d.Nanoseconds()), GBps: float64(kc.Bytes) / sec / 1e9}
			if r.NsPerOp == 0 {
				r.NsPerOp = 1e9 * sec
			}
			if kc.Flops > 0 && v.Impl != bench.Stream {
				r.GFLOPs = float64(kc.Flops) / sec / 1e9
				if l := rep.Limits; l != nil {
					pk, _ := l.Peak(kc.Prec == "f32")
					r.OfPeak = r.GFLOPs * 1e9 / pk
				}
			}
			if kc.Elems > 0 {
				r.Melems = float64(kc.Elems) / sec / 1e6
			}
			if rep.Limits != nil && r.Level == "memory" {
				r.OfBW = r.GBps * 1e9 / rep.Limits.Bandwidth1
			}
			if v.Impl == "generic" {
				generic = sec
			}
			rows = append(rows, r)
		}
		for i := range rows {
			rows[i].Speedup = generic * 1e9 / rows[i].NsPerOp
		}
		out = append(out, rows...)
	}
	return out, nil
}

func epochRows(c *config, rep *Report, logf func(string, ...any)) ([]bench.EpochRow, error) {
	var out []bench.EpochRow
	for _, prec := range c.precs {
		var rows []bench.EpochRow
		var err error
		if prec == "f32" {
			rows, err = epochsPrec[float32](c, rep, logf)
		} else {
			rows, err = epochsPrec[float64](c, rep, logf)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
		runtime.GC() // let the data set of this precision go
	}
	// Speed-up over the generic path of the same configuration, when run.
	for i := range out {
		for _, g := range out {
			r := &out[i]
			if g.Impl == "generic" && g.Model == r.Model && g.Method == r.Method && g.Prec == r.Prec && g.Threads == r.Threads {
				r.Speedup = g.SecondsEpoch / r.SecondsEpoch
			}
			if g.Threads == 1 && g.Impl == r.Impl && g.Model == r.Model && g.Method == r.Method && g.Prec == r.Prec {
				r.SpeedupThreads = g.SecondsEpoch / r.SecondsEpoch
			}
		}
	}
	return out, nil
}

func epochsPrec[T kernel.Float](c *config, rep *Report, logf func(string, ...any)) ([]bench.EpochRow, error) {
	var p *bench.Problem[T]
	var err error
	prec := "f64"
	var size int
	if s := any(T(0)); s != nil {
		if _, ok := s.(float32); ok {
			prec, size = "f32", 4
		} else {
			size = 8
		}
	}
	if c.mnist != "" {
		logf("loading MNIST (%s) from %s…", prec, c.mnist)
		p, err = bench.LoadMNIST[T](c.mnist)
	} else {
		logf("making synthetic MNIST-shaped data (%s)…", prec)
		p, err = bench.SyntheticMNIST[T](bench.MNISTRows, bench.MNISTDim, 1)
	}
	if err != nil {
		return nil, err
	}
	var out []bench.EpochRow
	for _, model := range c.models {
		if bench.IsCompact(model) && prec != "f32" {
			continue // compact features feed float32 models
		}
		for _, method := range c.methods {
			for _, impl := range c.epochImpls {
				for _, th := range c.threads {
					cfg := bench.EpochOptions{Model: model, Method: method, Impl: impl, Threads: th}
					logf("epoch %s %s %s %s threads=%d", model, method, prec, impl, th)
					var t bench.Timing
					var timed string
					if c.quick {
						d, err := bench.TimeSteps(p, cfg, c.steps, 3)
						if err != nil {
							return nil, err
						}
						t, timed = d, fmt.Sprintf("%d steps, scaled to an epoch", c.steps)
					} else {
						ds, err := bench.TimeEpochs(p, cfg, 1, c.epochs)
						if err != nil {
							return nil, err
						}
						sort.Slice(ds, func(i, j int) bool { return ds[i].Wall < ds[j].Wall })
						t, timed = ds[0], fmt.Sprintf("best of %d epochs", len(ds))
					}
					sec := t.Wall.Seconds()
					samples := bench.SamplesPerEpoch(method, p.N)
					cost := bench.SampleCost(model, p.D, size)
					r := bench.EpochRow{Model: model, Method: method.String(), Prec: prec, Impl: impl.Name(), Threads: th, Data: p.Name,
						Timed: timed, SecondsEpoch: sec, SamplesPerSec: float64(samples) / sec, Samples: samples,
						Bytes: float64(samples) * cost.Bytes, Flops: float64(samples) * cost.Flops,
						CPUSeconds: t.CPU.Seconds(), CPUShare: t.CPU.Seconds() / (sec * float64(min(th, runtime.NumCPU())))}
					if l := rep.Limits; l != nil {
						bw, pk := l.For(prec == "f32", th)
						floor := cost.Floor(samples, bw, pk).Seconds()
						r.FloorSeconds, r.RatioToFloor = floor, sec/floor
						r.FloorBandwidth, r.FloorPeak = bw, pk
						r.FloorBound = "memory"
						if r.Flops/pk > r.Bytes/bw {
							r.FloorBound = "compute"
						}
					}
					out = append(out, r)
				}
			}
		}
	}
	return out, nil
}

// osCores is a count of CPUID's cores where it is at most the CPUs the OS
// reports, else 0. On a virtual machine CPUID may give the host's count.
func osCores(n int) int {
	if n <= 0 || n > runtime.NumCPU() {
		return 0
	}
	return n
}
