package main

import (
	"encoding/json"
	"io"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/internal/jsonfloat"
	"github.com/cvarlearn/cvar/internal/outfile"
)

// input is a file or directory a command reads, with the flag that names
// it. No output replaces it.
type input = outfile.Input

// checkNew fails when path cannot be written at the end of a run (see
// outfile.Check). So a long run does not end by refusing to write its
// result. "" (no output) passes.
func checkNew(path string, force bool, inputs []input) error {
	if path == "" {
		return nil
	}
	return outfile.Check(path, force, inputs)
}

// writeNew writes path through write (see outfile.Write).
func writeNew(path string, force bool, inputs []input, write func(w io.Writer) error) error {
	return outfile.Write(path, force, inputs, write)
}

// writeJSON prints v indented, with a final newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// paramsJSON is Params for -json output: non-finite values are null.
func paramsJSON(p cvar.Params) map[string]any {
	return map[string]any{
		"method": p.Method.String(), "alpha": jsonfloat.Lossy(p.Alpha), "n": p.N, "steps": p.Steps, "batch": p.Batch,
		"g": jsonfloat.Lossy(p.G), "beta": jsonfloat.Lossy(p.Beta), "loss_bound": jsonfloat.Lossy(p.L), "diameter": jsonfloat.Lossy(p.D),
		"g_alpha": jsonfloat.Lossy(p.GAlpha), "lr": jsonfloat.Lossy(p.LR), "eps": jsonfloat.Lossy(p.Eps),
		"tau_min": jsonfloat.Lossy(p.TauMin), "tau_max": jsonfloat.Lossy(p.TauMax), "bound": jsonfloat.Lossy(p.Bound),
		"estimated": p.Estimated, "theorem_lr": p.TheoremLR, "theorem_eps": p.TheoremEps,
		"rule": p.Rule.String(), "lr_from": p.LRFrom, "eps_from": p.EpsFrom, "tau0": jsonfloat.Lossy(p.Tau0), "tau_from": p.TauFrom,
		"tau_lr": jsonfloat.Lossy(p.TauLR), "bound_from": p.BoundFrom, "eps_fraction": p.EpsFraction,
		"risk": p.Risk.String(), "blend": p.Blend, "trim": p.Trim, "rho": p.Rho, "group_lr": p.GroupLR, "groups": p.Groups,
		"objective": p.Objective.String(), "sampling": p.Sampling.String(), "output": p.Output.String(),
	}
}
