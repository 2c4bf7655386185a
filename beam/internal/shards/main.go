// Command shards writes a data set as shard files for the measurements of
// docs/performance.md: MNIST's IDX files (-mnist DIR, -split train or test)
// or the built-in classification data (-n, -d), as LIBSVM or CSV.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/cvarlearn/cvar/dataset"
)

func main() {
	mnist := flag.String("mnist", "", "MNIST directory of IDX files")
	split := flag.String("split", "train", "MNIST split: train or test")
	n := flag.Int("n", 6000, "built-in data: rows")
	d := flag.Int("d", 20, "built-in data: features")
	shards := flag.Int("shards", 8, "number of files")
	format := flag.String("format", "libsvm", "libsvm or csv")
	out := flag.String("o", "", "output directory")
	prefix := flag.String("prefix", "part", "file name prefix")
	flag.Parse()
	if err := run(*mnist, *split, *n, *d, *shards, *format, *out, *prefix); err != nil {
		fmt.Fprintln(os.Stderr, "shards:", err)
		os.Exit(1)
	}
}

func run(mnist, split string, n, d, shards int, format, out, prefix string) error {
	var (
		ds  *dataset.Dataset[float64]
		err error
	)
	if mnist != "" {
		ds, err = dataset.LoadMNIST[float64](mnist, split)
	} else {
		ds, err = dataset.SyntheticClassification[float64](dataset.SynthClassOptions{N: n, D: d, Classes: 2, Seed: 1})
	}
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for s := range shards {
		rows := make([]int, 0, ds.N/shards+1)
		for i := s * ds.N / shards; i < (s+1)*ds.N/shards; i++ {
			rows = append(rows, i)
		}
		part := ds.Subset(rows)
		name := filepath.Join(out, fmt.Sprintf("%s-%02d.%s", prefix, s, format))
		if err := write(name, part, format); err != nil {
			return err
		}
	}
	return nil
}

func write(name string, ds *dataset.Dataset[float64], format string) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	if format == "libsvm" {
		if err := dataset.WriteLIBSVM(w, ds); err != nil {
			return err
		}
		return w.Flush()
	}
	for j := range ds.D {
		fmt.Fprintf(w, "f%d,", j+1)
	}
	fmt.Fprintln(w, "label")
	for i := range ds.N {
		for _, v := range ds.Row(i) {
			w.WriteString(strconv.FormatFloat(v, 'g', -1, 64) + ",")
		}
		fmt.Fprintln(w, ds.Classes[ds.Labels[i]])
	}
	return w.Flush()
}
