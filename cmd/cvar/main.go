package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/cvarlearn/cvar/internal/errtext"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// env is what a command may use: its output streams. It says whether
// stderr is a terminal, for progress bars.
type env struct {
	stdout, stderr io.Writer
	tty            bool
}

type command struct {
	name, summary string
	run           func(e *env, args []string) error
}

var commands = []command{
	{"train", "train a model; print its metrics and the resolved parameters; write a model file (-o)", cmdTrain},
	{"eval", "evaluate a model file: CVaR and VaR at several α with bootstrap intervals, accuracy, mean loss", cmdEval},
	{"predict", "apply a model file to data: scores and classes, or values, for each row as CSV", cmdPredict},
	{"experiment", "the paper's experiment: Vanilla-SGD, CVaR-on-Minibatch and CVaR-SGD, tuned and compared", cmdExperiment},
	{"export", "write a model file as an ONNX model: the preprocessing, the model, probabilities and class", cmdExport},
}

func usage(w io.Writer) {
	fmt.Fprint(w, `cvar trains models that minimise the conditional value at risk (CVaR) of their
losses, the mean of the worst α-fraction, instead of the mean loss.

Usage: cvar COMMAND [flags]

Commands:
`)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-11s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Without -data every command uses built-in synthetic data. Run "cvar COMMAND -h"
for the flags of a command.
`)
}

// usageError is a mistake in the command line: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// errHelp reports that help was printed as asked: exit status 0.
var errHelp = errors.New("help requested")

// run is the whole program: it parses args, runs the command and returns the
// exit status. Results go to stdout, the error line and progress to stderr.
func run(args []string, stdout, stderr io.Writer) int {
	e := &env{stdout: stdout, stderr: stderr, tty: isTerminal(stderr)}
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help", "help":
		if len(args) > 1 && name == "help" {
			return run([]string{args[1], "-h"}, stdout, stderr)
		}
		usage(stdout)
		return 0
	}
	for _, c := range commands {
		if c.name != name {
			continue
		}
		err := c.run(e, args[1:])
		return exitStatus(stderr, "cvar "+name, err)
	}
	fmt.Fprintf(stderr, "cvar: unknown command %q (want train, eval, predict, experiment or export; see cvar -h)\n", name)
	return 2
}

// exitStatus prints err as one line and maps it to the exit status.
func exitStatus(stderr io.Writer, prefix string, err error) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errHelp):
		return 0
	}
	msg := errtext.Plain(err)
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "%s: %s (see %s -h)\n", prefix, msg, prefix)
		return 2
	}
	fmt.Fprintf(stderr, "%s: %s\n", prefix, msg)
	return 1
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
