package main

import (
	"fmt"
	"io"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

// trainGroupResamples is the number of bootstrap resamples of the
// intervals of train's metrics by group, as eval's default.
const trainGroupResamples = 1000

// checkValidation adds to rep what the validation split says beyond its
// metrics. It adds the metrics by group when the split has groups; seed
// seeds their intervals. For a classifier it adds whether the model gave
// up (cvar.Evaluator.Collapse).
func checkValidation[T batch.Float](rep *trainReport, ev *cvar.Evaluator[T], theta []T, val *batch.Data[T], ds *dataset.Dataset[T], seed uint64, threads int) error {
	if ds == nil {
		return nil
	}
	if ds.Groups != nil {
		opt := cvar.GroupOptions{Bootstrap: cvar.BootstrapOptions{Resamples: trainGroupResamples, Seed: seed, Threads: threads}}
		ge, err := ev.Groups(theta, val, ds.Groups, ds.GroupNames, opt, rep.alphas...)
		if err != nil {
			return err
		}
		rep.Groups = ge
	}
	if val.IsClassification() {
		c, err := ev.Collapse(theta, val)
		if err != nil {
			return err
		}
		rep.Collapse = &c
	}
	return nil
}

// printValidationChecks prints what checkValidation found. It prints a
// line when the model gave up, naming the options that help. It prints
// the metrics by group.
func (r *trainReport) printValidationChecks(w io.Writer) error {
	if r.Collapse != nil && r.Collapse.GaveUp {
		fmt.Fprintf(w, "\nthe model gave up on the validation split: %s; -tune, -blend or -trim may help\n", r.Collapse.Reason)
	}
	if r.Groups == nil {
		return nil
	}
	fmt.Fprintf(w, "\nvalidation by group (%d groups; 95%% CI, percentile bootstrap, %d resamples):\n", len(r.Groups.Groups), trainGroupResamples)
	return r.Groups.WriteText(w)
}
