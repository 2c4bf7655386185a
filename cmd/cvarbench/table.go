package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/cvarlearn/cvar/internal/bench"
)

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func bytesText(n int) string {
	switch {
	case n <= 0:
		return "?"
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// num formats v with three significant digits, or "-" for zero.
func num(v float64) string {
	switch {
	case v == 0:
		return "-"
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	case v >= 1:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// writeTables writes the report as tables, one for each section it holds.
func writeTables(w io.Writer, r *Report) {
	fmt.Fprintf(w, "cvarbench: cvar on this machine\n\n")
	writeMachine(w, r.Machine)
	if r.Limits != nil {
		writeLimits(w, r.Limits)
	}
	if len(r.Kernels) > 0 {
		writeKernels(w, r.Kernels)
	}
	if len(r.Epochs) > 0 {
		writeEpochs(w, r.Epochs, r.Limits)
	}
	if len(r.Targets) > 0 {
		writeTargets(w, r)
	}
	if len(r.Sparse) > 0 {
		writeSparse(w, r.Sparse)
	}
	if len(r.Notes) > 0 {
		fmt.Fprintln(w)
		for _, n := range r.Notes {
			fmt.Fprintf(w, "note: %s\n", n)
		}
	}
	fmt.Fprintf(w, "\n%.1f s in all\n", r.Seconds)
}

// writeMachine writes the machine's table: CPU, caches, Go and the kernel
// path.
func writeMachine(w io.Writer, m Machine) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "cpu\t%s (%s, %s/%s)\n", m.CPU, m.Vendor, m.OS, m.Arch)
	physical := ""
	if m.PhysicalCores > 0 {
		physical = fmt.Sprintf(" (%d physical)", m.PhysicalCores)
	}
	fmt.Fprintf(tw, "cores\t%d as the OS reports them%s, GOMAXPROCS %d\n", m.LogicalCores, physical, m.GOMAXPROCS)
	var feats []string
	for _, f := range []string{"AVX2", "FMA", "AVX-512", "ASIMD", "SVE"} {
		feats = append(feats, f+" "+yesNo(m.Features[f]))
	}
	fmt.Fprintf(tw, "features\t%s\n", strings.Join(feats, ", "))
	fmt.Fprintf(tw, "caches\tL1d %s, L2 %s, L3 %s\n", bytesText(m.L1DBytes), bytesText(m.L2Bytes), bytesText(m.L3Bytes))
	fmt.Fprintf(tw, "go\t%s\n", m.GoVersion)
	fmt.Fprintf(tw, "kernel path\t%s (available: %s)\n", m.KernelActive, strings.Join(m.KernelImpls, ", "))
	if m.KernelReason != "" {
		fmt.Fprintf(tw, "kernel choice\t%s\n", m.KernelReason)
	}
	if m.KernelOverride != "" {
		fmt.Fprintf(tw, "kernel override\t%s\n", m.KernelOverride)
	}
	fmt.Fprintf(tw, "peak loops\t%s (assembly: %s)\n", m.PeakLoopKind, yesNo(m.PeakLoopAsm))
	if m.PeakWidest != "" {
		fmt.Fprintf(tw, "peak\t%s: the floors use the widest FMA\n", m.PeakWidest)
	}
	tw.Flush()
}

// writeLimits writes the measured limits: bandwidth, latency and FMA peaks.
func writeLimits(w io.Writer, l *bench.Limits) {
	fmt.Fprintf(w, "\nlimits, measured\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "\t1 thread\t%d threads\t\n", l.Threads)
	fmt.Fprintf(tw, "read-only bandwidth, %s (GB/s)\t%s\t%s\t\n", bytesText(l.StreamBytes), num(l.Bandwidth1/1e9), num(l.BandwidthAll/1e9))
	if l.PageLatencyNs > 0 {
		fmt.Fprintf(tw, "load latency, a random 4 KiB page (ns)\t%s\t-\t\n", num(l.PageLatencyNs))
	}
	fmt.Fprintf(tw, "FMA peak f32 (GFLOP/s)\t%s\t%s\t\n", num(l.PeakF32_1/1e9), num(l.PeakF32All/1e9))
	fmt.Fprintf(tw, "FMA peak f64 (GFLOP/s)\t%s\t%s\t\n", num(l.PeakF64_1/1e9), num(l.PeakF64All/1e9))
	if l.PeakWideF32_1 > 0 {
		fmt.Fprintf(tw, "FMA peak f32, %s (GFLOP/s)\t%s\t%s\t\n", l.PeakWidest, num(l.PeakWideF32_1/1e9), num(l.PeakWideF32All/1e9))
		fmt.Fprintf(tw, "FMA peak f64, %s (GFLOP/s)\t%s\t%s\t\n", l.PeakWidest, num(l.PeakWideF64_1/1e9), num(l.PeakWideF64All/1e9))
	}
	tw.Flush()
	if len(l.BandwidthAt) > 0 {
		var ts []int
		for t := range l.BandwidthAt {
			ts = append(ts, t)
		}
		sort.Ints(ts)
		var parts []string
		for _, t := range ts {
			parts = append(parts, fmt.Sprintf("%d threads %s", t, num(l.BandwidthAt[t]/1e9)))
		}
		fmt.Fprintf(w, "read-only bandwidth on other thread counts (GB/s): %s\n", strings.Join(parts, ", "))
	}
}

// writeKernels writes the kernel section's rows.
func writeKernels(w io.Writer, rows []KernelRow) {
	fmt.Fprintf(w, "\nkernels, one thread (×generic: generic Go's time over this one's)\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "kernel\tprec\tsize\tin\timpl\tns/op\tGB/s\tGFLOP/s\tMelem/s\t×generic\tof peak\tof stream\t\n")
	for _, k := range rows {
		impl := k.Impl
		if k.Baseline {
			impl = "(" + impl + ")"
		}
		pct := func(v float64) string {
			if v == 0 {
				return "-"
			}
			return fmt.Sprintf("%.0f%%", 100*v)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", k.Kernel, k.Prec, k.Size, k.Level, impl,
			num(k.NsPerOp), num(k.GBps), num(k.GFLOPs), num(k.Melems), num(k.Speedup), pct(k.OfPeak), pct(k.OfBW))
	}
	tw.Flush()
}

// writeEpochs writes the training epochs, by model. Their floors come from
// the limits l (nil when they were not measured).
func writeEpochs(w io.Writer, epochs []bench.EpochRow, l *bench.Limits) {
	peak := "peak"
	if l != nil && l.PeakWidest != "" {
		peak = "peak, " + l.PeakWidest
	}
	fmt.Fprintf(w, "\ntraining epochs on %s (batch 512; floor = max(bytes/bandwidth, flops/%s))\n", epochs[0].Data, peak)
	rows := append([]bench.EpochRow(nil), epochs...)
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.Model != b.Model {
			return modelOrder(a.Model) < modelOrder(b.Model)
		}
		return false
	})
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "model\tmethod\tprec\timpl\tthreads\ts/epoch\tsamples/s\t×1 thread\tfloor s\tbound\t×floor\t×generic\tcpu share\t\n")
	for _, e := range rows {
		share := "-" // unknown: no CPU time from the OS, or a quick run's difference that came out negative
		if e.CPUShare > 0 {
			share = fmt.Sprintf("%.0f%%", 100*e.CPUShare)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", e.Model, e.Method, e.Prec, e.Impl, e.Threads,
			num(e.SecondsEpoch), num(e.SamplesPerSec), num(e.SpeedupThreads), num(e.FloorSeconds), e.FloorBound, num(e.RatioToFloor), num(e.Speedup), share)
	}
	tw.Flush()
	fmt.Fprintf(w, "timed: %s; cpu share: process CPU time over wall time × threads (well under 100%%: the run did not get its cores)\n", epochs[0].Timed)
}

// writeTargets writes the speed targets judged on r's epochs.
func writeTargets(w io.Writer, r *Report) {
	how := "judged on this run's epochs"
	if r.Quick {
		how = "judged on this quick run's few steps: a rough guide"
	}
	fmt.Fprintf(w, "\nspeed targets (Alg 3 on the default kernels, %s; %s)\n", r.Machine.KernelActive, how)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "target\twant\tgot\tmet\tfrom\n")
	for _, t := range r.Targets {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", t.Name, t.Want, num(t.Got), yesNo(t.Met), t.Basis)
	}
	tw.Flush()
}

// writeSparse writes the sparse section's epochs.
func writeSparse(w io.Writer, rows []SparseRow) {
	sp := rows[0]
	fmt.Fprintf(w, "\nsparse: logistic alg3, one epoch (batch 512) on %s; floor = the epoch's non-zeros × (value + uint32 column) / bandwidth\n", sp.Data)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "prec\tthreads\tnnz\tdata MB\ts/epoch\tcpu s\tfloor s\t×floor\ttrain alloc MB\tpeak RSS MB\t\n")
	for _, e := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", e.Prec, e.Threads, e.NNZ, num(float64(e.DataBytes)/1e6), num(e.SecondsEpoch), num(e.CPUSeconds),
			num(e.FloorSeconds), num(e.RatioToFloor), num(float64(e.TrainAllocBytes)/1e6), num(float64(e.PeakRSS)/1e6))
	}
	tw.Flush()
	fmt.Fprintf(w, "timed: %s, cvar.Train's wall time (set-up and initial losses included); peak RSS includes the limits' stream buffer\n", sp.Timed)
}

func modelOrder(m string) int {
	switch m {
	case "logistic":
		return 0
	case "softmax":
		return 1
	case "mlp":
		return 2
	}
	return 3
}
