package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/internal/bench"
)

func main() {
	cvarFile := flag.String("cvar", "", "cvarbench -json output (one or more reports)")
	torchFile := flag.String("torch", "", "torch_epoch.py output (JSON lines)")
	mnist := flag.String("mnist", "", "MNIST's directory, to train cvar for the torch run's epochs and print its training CVaR")
	flag.Parse()
	if err := run(*cvarFile, *torchFile, *mnist, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "torchcmp:", err)
		os.Exit(1)
	}
}

func run(cvarFile, torchFile, mnist string, w io.Writer) error {
	if cvarFile == "" || torchFile == "" {
		return fmt.Errorf("need -cvar and -torch")
	}
	f, err := os.Open(cvarFile)
	if err != nil {
		return err
	}
	cv, err := bench.ParseCvarbench(f)
	f.Close()
	if err != nil {
		return err
	}
	f, err = os.Open(torchFile)
	if err != nil {
		return err
	}
	tr, err := bench.ParseTorchRows(f)
	f.Close()
	if err != nil {
		return err
	}
	risks := map[string]float64{}
	if mnist != "" {
		p, err := bench.LoadMNIST[float32](mnist)
		if err != nil {
			return err
		}
		for _, t := range tr {
			if _, done := risks[t.Model]; done || t.EpochsTrained <= 0 {
				continue
			}
			cfg := bench.EpochOptions{Model: t.Model, Method: cvar.Alg3, Threads: 1}
			c, _, err := bench.TrainRisk(p, cfg, t.EpochsTrained)
			if err != nil {
				return fmt.Errorf("%s: %w", t.Model, err)
			}
			risks[t.Model] = c
		}
	}
	rows := bench.CompareTorch(cv, tr, risks)
	if len(rows) == 0 {
		return fmt.Errorf("no model in both %s and %s (cvar: alg3, f32)", cvarFile, torchFile)
	}
	return bench.WriteTorchTable(w, rows)
}
