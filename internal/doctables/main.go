// Command doctables regenerates the tables of README.md and docs/*.md that
// a command prints. It can also check that they are current. Run it from
// the repository root:
//
//	go run ./internal/doctables          # rewrite the tables that take seconds
//	go run ./internal/doctables -all     # and those that take minutes
//	go run ./internal/doctables -check   # report the tables that differ; exit 1 if any
//	go run ./internal/doctables -all -only mlp   # only the tables whose command holds "mlp"
//
// A generated table has, on the line right before it, a comment naming the
// command that prints it:
//
//	<!-- table: cvar experiment -data builtin -format-out markdown -->
//	<!-- table (minutes): cvar experiment -data $MNIST -format-out markdown -->
//
// The command runs in sh, in an empty directory. The cvar, cvargen and
// cvarbench built from the tree come first on PATH. CVAR_KERNEL names the
// kernels the pages show (see the docs' console test). In the command's
// output, the first Markdown table whose header holds every column of the
// page's table replaces the page's rows. Only the page's columns are kept,
// so a page may leave out a column (the data set's name, say).
// "(minutes)" marks a table that only -all regenerates or checks. A
// command that names $MNIST runs only when the environment's MNIST holds
// the directory of MNIST's files. $REPO names the repository's root, for
// a command that runs one of its scripts:
//
//	<!-- table (minutes): python3 "$REPO"/bench/objectives/objectives.py --mnist "$MNIST" -->
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/cvarlearn/cvar/kernel"
)

func main() {
	check := flag.Bool("check", false, "report the tables that differ from what their commands print, and exit 1 if any does; change nothing")
	all := flag.Bool("all", false, "also the tables marked (minutes)")
	only := flag.String("only", "", "only the tables whose command holds this `text`")
	flag.Parse()
	if flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "doctables: no arguments expected (see -h)")
		os.Exit(2)
	}
	if _, err := kernel.Lookup(pagesKernel); err != nil {
		fmt.Fprintf(os.Stderr, "doctables: the pages show the %s kernels' output, which this build or CPU lacks (%v)\n", pagesKernel, err)
		os.Exit(1)
	}
	r := runner{all: *all, only: *only, mnist: os.Getenv("MNIST"), log: os.Stderr}
	stale, err := r.pages(".", *check)
	r.close()
	if err != nil {
		fmt.Fprintln(os.Stderr, "doctables:", err)
		os.Exit(1)
	}
	if *check && len(stale) > 0 {
		for _, s := range stale {
			fmt.Fprintln(os.Stderr, s)
		}
		os.Exit(1)
	}
}
