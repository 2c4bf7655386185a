package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/cvarlearn/cvar/dataset"
	"github.com/cvarlearn/cvar/internal/outfile"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("cvargen", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	var cfg dataset.SynthTextOptions
	fs.IntVar(&cfg.N, "n", 100_000, "rows")
	fs.IntVar(&cfg.D, "d", 1<<20, "features")
	fs.IntVar(&cfg.NNZ, "nnz", 40, "non-zeros a row")
	fs.Float64Var(&cfg.Zipf, "zipf", 1.1, "exponent s of the features' Zipf frequencies")
	fs.Float64Var(&cfg.Noise, "noise", 0.05, "probability of a flipped label (negative: none)")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "random seed")
	out := fs.String("o", "", "output `file` (- for stdout)")
	force := fs.Bool("force", false, "replace the -o file if it exists (a regular file only)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stdout, "usage: cvargen [flags] -o FILE\n\nWrites text-like sparse binary classification data (Zipf feature frequencies, a sparse linear rule with label noise) in LIBSVM format.\n\n")
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return 0
		}
		fmt.Fprintf(stderr, "cvargen: %v (see cvargen -h)\n", err)
		return 2
	}
	if *out == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "cvargen: give the output file with -o FILE (and no arguments); see cvargen -h")
		return 2
	}
	if cfg.N <= 0 || cfg.D <= 0 || cfg.NNZ <= 0 || !(cfg.Zipf > 0) {
		fmt.Fprintln(stderr, "cvargen: -n, -d, -nnz and -zipf must be positive")
		return 2
	}
	if !genFits(cfg.N, cfg.D, cfg.NNZ) {
		fmt.Fprintf(stderr, "cvargen: -n %d, -d %d and -nnz %d need more than the %d MiB a generated data set may hold\n", cfg.N, cfg.D, cfg.NNZ, maxGenBytes>>20)
		return 2
	}
	if *out != "-" {
		if err := outfile.Check(*out, *force, nil); err != nil { // before the work
			fmt.Fprintln(stderr, "cvargen:", err)
			return 1
		}
	}
	ds, err := dataset.SyntheticText[float32](cfg)
	if err != nil {
		fmt.Fprintln(stderr, "cvargen:", err)
		return 1
	}
	write := func(w io.Writer) error { return dataset.WriteLIBSVM(w, ds) }
	if *out == "-" {
		bw := bufio.NewWriter(stdout)
		if err = write(bw); err == nil {
			err = bw.Flush()
		}
		if err != nil {
			err = fmt.Errorf("writing to stdout: %w", err)
		}
	} else {
		err = outfile.Write(*out, *force, nil, write)
	}
	if err != nil {
		fmt.Fprintln(stderr, "cvargen:", err)
		return 1
	}
	return 0
}

// maxGenBytes bounds what generating a data set holds. It is cvar's
// default -max-memory: the data set must fit in it to be trained on anyway.
const maxGenBytes = 4 << 30

// genFits reports whether generating n rows of d features with nnz
// non-zeros a row holds at most maxGenBytes. It counts about 16 bytes a
// feature for the frequencies and the rule. It counts 8 a non-zero and 16
// a row. Each factor is checked against the bound before a product, so
// nothing wraps.
func genFits(n, d, nnz int) bool {
	if n > maxGenBytes/16 || d > maxGenBytes/16 || nnz > maxGenBytes/8 || int64(n)*int64(nnz) > maxGenBytes/8 {
		return false
	}
	return 16*int64(d)+8*int64(n)*int64(nnz)+16*int64(n) <= maxGenBytes
}
