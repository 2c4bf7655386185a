package trainflag

import (
	"flag"

	"github.com/cvarlearn/cvar"
)

// Scale is -scale and -scale-target: how training scales the features and
// a regression target. The preprocessing is fitted on the training rows.
type Scale struct {
	// Features is -scale, read by cvar.Scaling's own parsing.
	Features cvar.Scaling
	target   *Choice
}

// AddScale registers -scale and -scale-target on fs.
func AddScale(fs *flag.FlagSet) *Scale {
	s := &Scale{target: NewChoice("zscore", "zscore", "none")}
	fs.TextVar(&s.Features, "scale", cvar.ScaleAuto, "feature preprocessing `mode`, fitted on the training rows: zscore (standardise; without centring on sparse data), maxabs (divide each feature by its largest |x|, keeping zeros), unit (÷255, images), none, or auto (unit for IDX, maxabs for data held sparse, else zscore)")
	fs.Var(s.target, "scale-target", "regression target `mode`: zscore (train on targets standardised with the training rows' mean and deviation; the model and every reported loss stay in the target's units) or none (train on the raw target)")
	return s
}

// Target reports whether a regression target is standardised for training.
func (s *Scale) Target() bool { return s.target.Value == "zscore" }

// For is the scaling of data of a format: auto is unit for IDX images.
func (s *Scale) For(format string) cvar.Scaling {
	if s.Features == cvar.ScaleAuto && format == "idx" {
		return cvar.ScaleUnit
	}
	return s.Features
}
