// Command cvarbeam runs cvar's evaluation, training and tuning as Apache
// Beam pipelines: on Prism (in-process) by default, or on Flink, Spark or
// Dataflow through Beam's --runner, --endpoint and --environment_type
// flags. See beam/README.md.
//
//	cvarbeam eval  -in MODEL -data GLOB [-alphas 0.05,0.1] [-json]
//	cvarbeam train -data GLOB -o MODEL [cvar train's flags]
//	cvarbeam tune  -data GLOB -o MODEL [-tune-lrs …] [-select cvar|loss]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/cvarlearn/cvar/beam/cvarbeam"
)

const usage = `Usage: cvarbeam eval|train|tune [flags] [Beam flags]

  eval   the metrics of a model file on every row of the files a glob names
  train  data-parallel CVaR-SGD by averaging rounds; writes a model file
  tune   trains every setting of a grid as a work item; keeps the best

Beam's flags pass through: --runner (default prism, in-process),
--endpoint, --environment_type, and the runners' own (Dataflow's --project,
--region, --staging_location…). "cvarbeam CMD -h" lists a command's flags.`

// errHelp is returned after -h has printed the usage.
var errHelp = errors.New("help")

func main() {
	args := os.Args[1:]
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		// Started by a runner as a worker (--worker), or asked for help.
		flag.Parse()
		beam.Init()
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	err := run(context.Background(), args, os.Stdout)
	switch {
	case errors.Is(err, errHelp):
	case err != nil:
		fmt.Fprintf(os.Stderr, "cvarbeam %s: %v\n", args[0], err)
		os.Exit(1)
	}
}

// run runs one command.
func run(ctx context.Context, args []string, stdout io.Writer) error {
	switch args[0] {
	case "eval":
		return cmdEval(ctx, args[1:], stdout)
	case "train":
		return cmdTrain(ctx, args[1:], stdout, false)
	case "tune":
		return cmdTrain(ctx, args[1:], stdout, true)
	}
	return fmt.Errorf("unknown command %q (want eval, train or tune)", args[0])
}

// newFlagSet returns a flag set for a command that also sets Beam's flags,
// which live in the program's global set.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parse parses a command's flags together with Beam's, then lets Beam
// initialise. -h prints the command's own flags.
func parse(fs *flag.FlagSet, synopsis string, args []string, stdout io.Writer) error {
	own := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) { own[f.Name] = true })
	verbose := fs.Bool("v", false, "log the runner's progress")
	flag.CommandLine.VisitAll(func(f *flag.Flag) {
		if !own[f.Name] && fs.Lookup(f.Name) == nil {
			fs.Var(f.Value, f.Name, f.Usage)
		}
	})
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(stdout, "Usage: %s\n\nFlags:\n", synopsis)
		fs.SetOutput(stdout)
		fs.VisitAll(func(f *flag.Flag) {
			if own[f.Name] || f.Name == "v" {
				fmt.Fprintf(stdout, "  -%s\n    \t%s\n", f.Name, f.Usage)
			}
		})
		fmt.Fprintln(stdout, "\nand Beam's flags: --runner, --endpoint, --environment_type, …")
		return errHelp
	}
	if err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (flags come as -name value)", fs.Arg(0))
	}
	beam.Init()
	if !*verbose {
		// The runners log every stage; a failed job's error is reported as one line.
		slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError + 4})))
	}
	return nil
}

// setup parses the flags of a command: where the data is, the command's
// own (which add declares) and Beam's; it returns the data flags, checked,
// and the runner they name.
func setup(name, synopsis string, args []string, stdout io.Writer, add func(*flag.FlagSet)) (*inputFlags, *cvarbeam.Runner, error) {
	fs := newFlagSet(name)
	df := addInputFlags(fs)
	add(fs)
	if err := parse(fs, synopsis, args, stdout); err != nil {
		return nil, nil, err
	}
	if err := df.check(); err != nil {
		return nil, nil, err
	}
	r := &cvarbeam.Runner{Work: df.work}
	if fs.Lookup("v").Value.String() == "true" {
		r.OnBundles = printBundles(os.Stderr)
	}
	return df, r, nil
}

// printBundles returns a function that prints a line for each pipeline's
// reading step: its bundles, the most that ran at once, and its span.
func printBundles(w io.Writer) func(string, []cvarbeam.Bundle) {
	return func(step string, bs []cvarbeam.Bundle) {
		if len(bs) == 0 {
			return
		}
		items, rows := 0, int64(0)
		first, last := bs[0].Start, bs[0].End
		each := make([]string, len(bs))
		for i, b := range bs {
			items, rows = items+b.Items, rows+b.Rows
			first, last = minTime(first, b.Start), maxTime(last, b.End)
			each[i] = strconv.Itoa(b.Items)
		}
		secs := last.Sub(first).Seconds()
		fmt.Fprintf(w, "cvarbeam %s: %d items (%s), %d rows in %d bundles, at most %d at once, over %.3f s (%.0f rows/s)\n",
			step, items, strings.Join(each, "+"), rows, len(bs), cvarbeam.MostAtOnce(bs), secs, float64(rows)/secs)
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// inputFlags are the flags that say where the data is.
type inputFlags struct {
	in    cvarbeam.Input
	work  string
	batch int
}

func addInputFlags(fs *flag.FlagSet) *inputFlags {
	f := &inputFlags{}
	fs.StringVar(&f.in.Glob, "data", "", "the data `files`: a glob, local or on a filesystem Beam reads (gs://…)")
	fs.StringVar(&f.in.Format, "format", "", "`format` of the data files: csv or libsvm (default: guessed from the name)")
	fs.StringVar(&f.in.Target, "target", "", "CSV target `column`: a header name or 0-based index (default: the model file's, else the last column)")
	fs.BoolVar(&f.in.NoHeader, "no-header", false, "the CSV files have no header row")
	fs.Int64Var(&f.in.SplitSize, "split-size", cvarbeam.DefaultSplitSize, "read an uncompressed file larger than this many `bytes` in parts, from line starts, in parallel (0: each file whole)")
	fs.StringVar(&f.work, "work", "", "a `directory` both the workers and this program reach, for the pipelines' results (default: a local temporary one; gs://… on Dataflow)")
	fs.IntVar(&f.batch, "batch-rows", cvarbeam.DefaultBatch, "`rows` a transform evaluates at once")
	return f
}

func (f *inputFlags) check() error {
	if f.in.Glob == "" {
		return errors.New("-data is required: the files to read")
	}
	if f.in.SplitSize < 0 || f.batch < 1 {
		return errors.New("-split-size must be ≥ 0 and -batch-rows ≥ 1")
	}
	return nil
}
