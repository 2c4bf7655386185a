package bench

import (
	"fmt"

	"github.com/cvarlearn/cvar"
)

// TargetRow is one of the project's speed targets judged on a run's epoch
// rows. It holds the figure the target bounds, the bound and whether the
// run met it.
type TargetRow struct {
	Name  string  `json:"name"`  // e.g. "softmax f32, 1 thread: epoch / floor"
	Want  string  `json:"want"`  // the bound, e.g. "≤ 1.5"
	Got   float64 `json:"got"`   // the run's figure
	Met   bool    `json:"met"`   // whether Got is within the bound
	Basis string  `json:"basis"` // the rows' times the figure comes from
}

// The speed targets of the epochs, for Alg 3 epochs on the default
// kernels. They say how close an epoch must come to the machine's limits.
const (
	TargetFloorLogistic = 1.3 // logistic f32, one thread: epoch ≤ this × its floor
	TargetFloorSoftmax  = 1.5
	TargetFloorMLP      = 1.3
	TargetF64OverF32    = 2.2 // f64 epoch ≤ this × the f32 epoch, one thread
	TargetTwoThreads    = 1.8 // 1-thread epoch ≥ this × the 2-thread epoch
	TargetEightThreads  = 6   // softmax and the MLP on 8 threads
	// On 16 threads the MLP's chunks carry the most work a step. Softmax's
	// carry a tenth of it, so the serial rest of a step caps softmax lower.
	TargetSixteenMLP     = 10
	TargetSixteenSoftmax = 6
	// Logistic on all of at least 8 cores: epoch ≤ this × the all-core
	// memory floor.
	TargetAllCoreLogistic = 1.5
)

// Targets judges the speed targets that rows allow. Those are the targets
// whose epochs the run measured with Alg 3 on the kernel implementation
// impl (the default one). Each is judged only when every row it needs is
// there. Bytes-stored features ("logistic:u8", "softmax:u8") must run
// below the float32 memory floor. That floor is their samples' float32
// bytes over the bandwidth their floor used. Thread counts are judged
// against the same model's one-thread epoch. 2 threads must reach
// TargetTwoThreads. Softmax and the MLP on 8 and 16 threads must reach
// TargetEightThreads, TargetSixteenSoftmax and TargetSixteenMLP. Logistic
// runs on allCores threads (the machine's, GOMAXPROCS) when they are at
// least 8. It is judged against its memory floor on them.
func Targets(rows []EpochRow, impl string, allCores int) []TargetRow {
	alg3 := cvar.Alg3.String()
	find := func(model, prec string, threads int) (EpochRow, bool) {
		for _, r := range rows {
			if r.Model == model && r.Prec == prec && r.Threads == threads && r.Method == alg3 && r.Impl == impl && r.SecondsEpoch > 0 {
				return r, true
			}
		}
		return EpochRow{}, false
	}
	var out []TargetRow
	add := func(name, op string, bound, got float64, basis string) {
		var met bool
		switch op {
		case "≤":
			met = got <= bound
		case "<":
			met = got < bound
		case "≥":
			met = got >= bound
		}
		out = append(out, TargetRow{Name: name, Want: fmt.Sprintf("%s %g", op, bound), Got: got, Met: met, Basis: basis})
	}
	ms := func(s float64) string { return fmt.Sprintf("%.3g ms", s*1e3) }

	for _, t := range []struct {
		model string
		bound float64
	}{{"logistic", TargetFloorLogistic}, {"softmax", TargetFloorSoftmax}, {"mlp", TargetFloorMLP}} {
		if r, ok := find(t.model, "f32", 1); ok && r.FloorSeconds > 0 {
			add(t.model+" f32, 1 thread: epoch / floor", "≤", t.bound, r.RatioToFloor,
				fmt.Sprintf("%s over a %s %s floor", ms(r.SecondsEpoch), ms(r.FloorSeconds), r.FloorBound))
		}
	}
	for _, model := range []string{"logistic", "softmax", "mlp"} {
		r32, ok32 := find(model, "f32", 1)
		r64, ok64 := find(model, "f64", 1)
		if ok32 && ok64 {
			add(model+", 1 thread: f64 epoch / f32 epoch", "≤", TargetF64OverF32, r64.SecondsEpoch/r32.SecondsEpoch,
				fmt.Sprintf("%s against %s", ms(r64.SecondsEpoch), ms(r32.SecondsEpoch)))
		}
	}
	for _, model := range []string{"logistic:u8", "softmax:u8"} {
		r, ok := find(model, "f32", 1)
		if !ok || r.FloorBandwidth <= 0 || r.Samples <= 0 {
			continue
		}
		// The row's bytes are one a feature; the f32 floor reads four.
		floor := 4 * r.Bytes / r.FloorBandwidth
		add(model+", 1 thread: epoch / f32 memory floor", "<", 1, r.SecondsEpoch/floor,
			fmt.Sprintf("%s against the %s f32 memory floor", ms(r.SecondsEpoch), ms(floor)))
	}
	for _, model := range []string{"logistic", "softmax", "mlp"} {
		one, ok := find(model, "f32", 1)
		if !ok {
			continue
		}
		sixteen := float64(TargetSixteenMLP)
		if model == "softmax" {
			sixteen = TargetSixteenSoftmax
		}
		for _, t := range []struct {
			threads int
			bound   float64
		}{{2, TargetTwoThreads}, {8, TargetEightThreads}, {16, sixteen}} {
			if t.threads > 2 && model == "logistic" {
				continue // logistic on many cores is judged against its floor
			}
			if r, ok := find(model, "f32", t.threads); ok {
				add(fmt.Sprintf("%s f32: %d-thread speed-up", model, t.threads), "≥", t.bound, one.SecondsEpoch/r.SecondsEpoch,
					fmt.Sprintf("%s on 1 thread, %s on %d", ms(one.SecondsEpoch), ms(r.SecondsEpoch), t.threads))
			}
		}
	}
	if r, ok := find("logistic", "f32", allCores); ok && allCores >= 8 && r.FloorBandwidth > 0 {
		floor := r.Bytes / r.FloorBandwidth
		add(fmt.Sprintf("logistic f32, %d threads: epoch / memory floor", allCores), "≤", TargetAllCoreLogistic, r.SecondsEpoch/floor,
			fmt.Sprintf("%s over a %s memory floor", ms(r.SecondsEpoch), ms(floor)))
	}
	return out
}
