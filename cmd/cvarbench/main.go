package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/internal/bench"
	"github.com/cvarlearn/cvar/internal/kernel"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// config is the parsed command line.
type config struct {
	quick, json  bool
	sections     []string
	kernels      []string // implementations and baselines of the kernel section
	cases        []string // kernel cases
	dims         []int
	precs        []string
	threads      []int
	models       []string
	methods      []cvar.Method
	epochImpls   []kernel.Impl
	mnist        string
	epochs       int
	steps        int
	minTime      time.Duration
	outOfCache   bool
	streamMiB    int
	requestedOOC bool
	sparseN      int // rows of the sparse section's text-like data
	sparseD      int // its features
}

// flags holds the values of the command line's flags as the flag set
// parses them.
type flags struct {
	quick, js, ooc                                  *bool
	sections, kernels, cases, sizes, precs, threads *string
	models, methods, epochImpls, mnist              *string
	epochs, steps, streamMiB, sparseN, sparseD      *int
	minTime                                         *time.Duration
}

// defineFlags defines cvarbench's flags on fs.
func defineFlags(fs *flag.FlagSet) *flags {
	return &flags{
		quick:      fs.Bool("quick", false, "a short run (under 30 s): sizes d=784, no out-of-cache kernel cases, epochs timed over a few steps"),
		js:         fs.Bool("json", false, "print the report as JSON instead of tables"),
		sections:   fs.String("sections", "machine,limits,kernels,epochs,sparse", "what to run: machine, limits, kernels, epochs, sparse (logistic Alg 3 epochs on text-like sparse data)"),
		kernels:    fs.String("kernels", "all", "kernel implementations and baselines for the kernel section, e.g. avx2,generic,gonum (baselines: gonum, mathloop, stream)"),
		cases:      fs.String("cases", "all", "kernel cases: "+strings.Join(bench.KernelNames(), ",")),
		sizes:      fs.String("sizes", "", "feature counts d of the level-1 and row kernels (default 64,784,4096; -quick: 784)"),
		precs:      fs.String("prec", "f32,f64", "precisions: f32, f64"),
		threads:    fs.String("threads", "1,all", "engine thread counts for epochs (all = GOMAXPROCS)"),
		models:     fs.String("models", "logistic,softmax,mlp", "models for epochs: logistic, softmax, mlp, mlp-blas (the MLP's products through gonum's BLAS), and on compact features (f32 only) logistic:u8, softmax:u8, mlp:u8, logistic:f16, softmax:f16, mlp:f16, logistic:bf16, softmax:bf16, mlp:bf16"),
		methods:    fs.String("methods", "alg3,vanilla,minibatch", "training methods for epochs: alg3, vanilla, minibatch"),
		epochImpls: fs.String("epoch-kernels", "", "kernel implementations for epochs, e.g. avx2,generic or all (default: the default one, the best this CPU supports)"),
		mnist:      fs.String("mnist", "", "directory of MNIST's IDX files (train-images-idx3-ubyte[.gz], …); default: synthetic MNIST-shaped data"),
		epochs:     fs.Int("epochs", 2, "epochs timed per configuration (after one untimed epoch); -quick times -steps steps instead"),
		steps:      fs.Int("steps", 12, "with -quick, the steps timed per epoch configuration (scaled to an epoch)"),
		minTime:    fs.Duration("time", 0, "least time spent measuring each kernel variant and limit (default 150ms; -quick: 10ms)"),
		ooc:        fs.Bool("ooc", true, "include the out-of-cache kernel cases (60000×784); off with -quick unless set"),
		streamMiB:  fs.Int("stream-mib", 0, "size of the stream buffer in MiB (default 256, or twice the L3 if bigger)"),
		sparseN:    fs.Int("sparse-n", 0, "rows of the sparse section's text-like data (default 100000; -quick: 20000)"),
		sparseD:    fs.Int("sparse-d", 1<<20, "features of the sparse section's text-like data"),
	}
}

// parseFlags parses the command line. On -h it prints the usage and the
// flags to stdout and returns flag.ErrHelp. Errors are left to the caller,
// which prints them as one line.
func parseFlags(args []string, stdout io.Writer) (*config, error) {
	fs := flag.NewFlagSet("cvarbench", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	f := defineFlags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stdout, "usage: cvarbench [flags]\n\nMeasures the machine's limits, cvar's kernels and whole training epochs.\n\n")
			fs.SetOutput(stdout)
			fs.PrintDefaults()
		}
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	c := &config{quick: *f.quick, json: *f.js, mnist: *f.mnist, epochs: *f.epochs, steps: *f.steps, minTime: *f.minTime, streamMiB: *f.streamMiB, sparseN: *f.sparseN, sparseD: *f.sparseD}
	if err := c.checkSizes(); err != nil {
		return nil, err
	}
	fs.Visit(func(fl *flag.Flag) {
		if fl.Name == "ooc" {
			c.requestedOOC = true
		}
	})
	c.outOfCache = *f.ooc && (!c.quick || c.requestedOOC)
	if err := c.parseLists(f); err != nil {
		return nil, err
	}
	var err error
	if c.epochImpls, err = parseEpochImpls(*f.epochImpls); err != nil {
		return nil, err
	}
	if c.dims, err = parseDims(*f.sizes, c.quick); err != nil {
		return nil, err
	}
	if c.threads, err = parseThreads(*f.threads); err != nil {
		return nil, err
	}
	if c.epochs <= 0 || c.steps <= 0 {
		return nil, errors.New("-epochs and -steps must be positive")
	}
	if c.minTime <= 0 {
		c.minTime = 150 * time.Millisecond
		if c.quick {
			c.minTime = 10 * time.Millisecond
		}
	}
	return c, nil
}

// checkSizes sets the default of -sparse-n. It checks the sizes of what
// cvarbench allocates whole: the stream buffer and the sparse data. Sizes
// past 16 GiB are refused rather than left to crash the allocator.
func (c *config) checkSizes() error {
	if c.sparseN == 0 {
		c.sparseN = 100_000
		if c.quick {
			c.sparseN = 20_000
		}
	}
	if c.sparseN < 1 || c.sparseD < 40 {
		return fmt.Errorf("-sparse-n %d and -sparse-d %d: want at least 1 row and 40 features", c.sparseN, c.sparseD)
	}
	if c.streamMiB < 0 || c.streamMiB > maxStreamMiB {
		return fmt.Errorf("-stream-mib %d: want 0 (the default) to %d", c.streamMiB, maxStreamMiB)
	}
	if c.sparseN > maxSparseRows || c.sparseD > maxSparseRows {
		return fmt.Errorf("-sparse-n %d and -sparse-d %d: want at most %d each", c.sparseN, c.sparseD, maxSparseRows)
	}
	return nil
}

// parseLists sets the sections, kernel cases, kernels, precisions, models
// and methods from their flags' comma-separated lists.
func (c *config) parseLists(f *flags) error {
	var err error
	if c.sections, err = list(*f.sections, []string{"machine", "limits", "kernels", "epochs", "sparse"}); err != nil {
		return fmt.Errorf("-sections: %w", err)
	}
	if c.cases, err = list(*f.cases, bench.KernelNames()); err != nil {
		return fmt.Errorf("-cases: %w", err)
	}
	implNames := []string{bench.Gonum, bench.MathLoop, bench.Stream}
	for _, im := range kernel.Impls() {
		implNames = append(implNames, im.Name())
	}
	if c.kernels, err = list(*f.kernels, implNames); err != nil {
		return fmt.Errorf("-kernels: %w", err)
	}
	if c.precs, err = list(*f.precs, []string{"f32", "f64"}); err != nil {
		return fmt.Errorf("-prec: %w", err)
	}
	if c.models, err = list(*f.models, append(append(append([]string(nil), bench.Models()...), "mlp-blas"), bench.CompactModels()...)); err != nil {
		return fmt.Errorf("-models: %w", err)
	}
	ms, err := list(*f.methods, []string{"alg3", "vanilla", "minibatch"})
	if err != nil {
		return fmt.Errorf("-methods: %w", err)
	}
	for _, m := range ms {
		var meth cvar.Method
		if err := meth.UnmarshalText([]byte(m)); err != nil {
			return err
		}
		c.methods = append(c.methods, meth)
	}
	return nil
}

// parseEpochImpls returns the kernel implementations -epoch-kernels names:
// the default one when v is empty.
func parseEpochImpls(v string) ([]kernel.Impl, error) {
	if v == "" {
		return []kernel.Impl{kernel.Default()}, nil
	}
	var names []string
	for _, im := range kernel.Impls() {
		names = append(names, im.Name())
	}
	names, err := list(v, names)
	if err != nil {
		return nil, fmt.Errorf("-epoch-kernels: %w", err)
	}
	var out []kernel.Impl
	for _, name := range names {
		im, err := kernel.Lookup(name)
		if err != nil {
			return nil, fmt.Errorf("-epoch-kernels: %w", err)
		}
		out = append(out, im)
	}
	return out, nil
}

// parseDims returns the feature counts -sizes lists ("784" or "d=784").
// When v is empty it returns the defaults (784 alone with -quick).
func parseDims(v string, quick bool) ([]int, error) {
	if v == "" {
		if quick {
			return []int{784}, nil
		}
		return bench.DefaultDims(), nil
	}
	var dims []int
	for _, s := range strings.Split(v, ",") {
		d, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(s), "d="))
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("-sizes: %q is not a positive feature count", s)
		}
		dims = append(dims, d)
	}
	return dims, nil
}

// parseThreads returns the distinct thread counts -threads lists ("all" is
// GOMAXPROCS).
func parseThreads(v string) ([]int, error) {
	var threads []int
	for _, s := range strings.Split(v, ",") {
		s = strings.TrimSpace(s)
		if s == "all" {
			threads = append(threads, runtime.GOMAXPROCS(0))
			continue
		}
		t, err := strconv.Atoi(s)
		if err != nil || t <= 0 {
			return nil, fmt.Errorf("-threads: %q is not a positive count or \"all\"", s)
		}
		threads = append(threads, t)
	}
	return uniq(threads), nil
}

// list splits a comma-separated flag value and checks every element against
// known; "all" means every known value.
func list(v string, known []string) ([]string, error) {
	if strings.TrimSpace(v) == "all" {
		return append([]string(nil), known...), nil
	}
	var out []string
	for _, s := range strings.Split(v, ",") {
		s = strings.ToLower(strings.TrimSpace(s))
		if s == "" {
			continue
		}
		if !slices.Contains(known, s) {
			return nil, fmt.Errorf("unknown value %q (known: %s)", s, strings.Join(known, ", "))
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("empty list")
	}
	return out, nil
}

func uniq(x []int) []int {
	var out []int
	for _, v := range x {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

func (c *config) has(section string) bool { return slices.Contains(c.sections, section) }

// maxStreamMiB and maxSparseRows bound what cvarbench allocates from its
// flags. The stream buffer takes at most 16 GiB. The sparse data takes at
// most 2²⁶ rows of 40 non-zeros (10 GiB).
const (
	maxStreamMiB  = 16 << 10
	maxSparseRows = 1 << 26
)

func run(args []string, stdout, stderr io.Writer) int {
	c, err := parseFlags(args, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "cvarbench:", err)
		return 2
	}
	rep, err := measure(c, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "cvarbench:", err)
		return 1
	}
	if c.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			fmt.Fprintln(stderr, "cvarbench:", err)
			return 1
		}
		return 0
	}
	writeTables(stdout, rep)
	return 0
}
