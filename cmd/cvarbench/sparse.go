package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
	"github.com/cvarlearn/cvar/internal/bench"
)

// SparseRow is one epoch configuration of the sparse section. It trains
// binary logistic regression, Alg 3, on text-like data
// (dataset.SyntheticText).
type SparseRow struct {
	Data    string `json:"data"`
	Prec    string `json:"prec"`
	Threads int    `json:"threads"`
	N       int    `json:"n"`
	D       int    `json:"d"`
	NNZ     int64  `json:"nnz"`
	Timed   string `json:"timed"`
	// SecondsEpoch is the wall time of cvar.Train for one epoch: n samples
	// drawn, batch 512. It includes the set-up (O(d)) and the 4096 initial
	// losses.
	SecondsEpoch float64 `json:"seconds_per_epoch"`
	// FloorSeconds is the memory floor. It is the bytes of the epoch's
	// samples' non-zeros over the read-only bandwidth of the run's thread
	// count. A non-zero takes (size of T + 4) bytes: value and uint32
	// column.
	FloorSeconds float64 `json:"floor_seconds"`
	RatioToFloor float64 `json:"ratio_to_floor"`
	// CPUSeconds is the process's CPU time in the timed epoch. On a busy
	// machine it is near SecondsEpoch × threads when the run had its cores.
	CPUSeconds float64 `json:"cpu_seconds"`
	// DataBytes is the CSR arrays' size. TrainAllocBytes is what one Train
	// allocated: θ, the gradient and the lazy step's state, O(d). PeakRSS
	// is the process's peak resident set so far (VmHWM), 0 where unknown.
	// It includes the limits' stream buffer.
	DataBytes       int64 `json:"data_bytes"`
	TrainAllocBytes int64 `json:"train_alloc_bytes"`
	PeakRSS         int64 `json:"peak_rss_bytes,omitempty"`
}

func sparseRows(c *config, rep *Report, logf func(string, ...any)) ([]SparseRow, error) {
	var out []SparseRow
	for _, prec := range c.precs {
		var rows []SparseRow
		var err error
		if prec == "f32" {
			rows, err = sparsePrec[float32](c, rep, logf)
		} else {
			rows, err = sparsePrec[float64](c, rep, logf)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
		runtime.GC()
	}
	return out, nil
}

func sparsePrec[T batch.Float](c *config, rep *Report, logf func(string, ...any)) ([]SparseRow, error) {
	prec, size := "f64", 8
	if _, ok := any(T(0)).(float32); ok {
		prec, size = "f32", 4
	}
	cfg := dataset.SynthTextOptions{N: c.sparseN, D: c.sparseD, NNZ: 40, Seed: 1}
	logf("making synthetic text data (%s, %d × %d, 40 non-zeros a row)…", prec, cfg.N, cfg.D)
	ds, err := dataset.SyntheticText[T](cfg)
	if err != nil {
		return nil, err
	}
	data, err := ds.Batch()
	if err != nil {
		return nil, err
	}
	nnz := ds.Indptr[ds.N]
	dataBytes := int64(len(ds.Indptr))*8 + nnz*int64(4+size) + int64(len(ds.Labels))*4
	model, err := batch.NewLogistic[T](ds.D)
	if err != nil {
		return nil, err
	}
	var out []SparseRow
	runtime.GC() // the generator's garbage collected before the timing, not during it
	for _, th := range c.threads {
		logf("sparse epoch logistic alg3 %s threads=%d", prec, th)
		opt := cvar.Options{Method: cvar.Alg3, Epochs: 1, Batch: bench.Batch, Threads: th, Seed: 1}
		if _, err := cvar.Train(model, data, opt); err != nil { // warm
			return nil, err
		}
		reps := c.epochs
		if c.quick {
			reps = 1
		}
		best := time.Duration(1 << 62)
		var alloc int64
		var cpu time.Duration
		for range reps {
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			t0 := time.Now()
			c0, _ := bench.ProcessCPU()
			if _, err := cvar.Train(model, data, opt); err != nil {
				return nil, err
			}
			if el := time.Since(t0); el < best {
				c1, _ := bench.ProcessCPU()
				best, cpu = el, c1-c0
			}
			runtime.ReadMemStats(&m1)
			alloc = int64(m1.TotalAlloc - m0.TotalAlloc)
		}
		sec := best.Seconds()
		// Alg 3 draws n samples an epoch (steps × batch, with replacement):
		// on average the data's non-zeros.
		steps := (ds.N + bench.Batch - 1) / bench.Batch
		bytes := float64(steps*bench.Batch) * float64(nnz) / float64(ds.N) * float64(4+size)
		r := SparseRow{Data: ds.Name, Prec: prec, Threads: th, N: ds.N, D: ds.D, NNZ: nnz, Timed: fmt.Sprintf("best of %d epochs", reps),
			SecondsEpoch: sec, CPUSeconds: cpu.Seconds(), DataBytes: dataBytes, TrainAllocBytes: alloc, PeakRSS: peakRSS()}
		if l := rep.Limits; l != nil {
			bw, _ := l.For(prec == "f32", th)
			r.FloorSeconds = bytes / bw
			r.RatioToFloor = sec / r.FloorSeconds
		}
		out = append(out, r)
	}
	return out, nil
}

// peakRSS returns the process's peak resident set size (VmHWM of
// /proc/self/status), or 0 where there is none.
func peakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			fields := strings.Fields(rest)
			if len(fields) == 2 && fields[1] == "kB" {
				if kb, err := strconv.ParseInt(fields[0], 10, 64); err == nil {
					return kb << 10
				}
			}
		}
	}
	return 0
}
