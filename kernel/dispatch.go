package kernel

import (
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/klauspost/cpuid/v2"
)

// Impl is one implementation of every kernel, in both precisions.
type Impl struct {
	// Name is short and stable ("avx512", "avx2", "neon", "generic");
	// benchmarks and the -kernel flags of the programs use it.
	Name string
	// Requires lists the CPU features the implementation needs.
	Requires string
	F32      Ops[float32]
	F64      Ops[float64]
}

// generic is the pure-Go reference. It is always compiled, on every
// architecture and with -tags purego, and is the last entry of the table.
var generic = &Impl{
	Name:     "generic",
	Requires: "none",
	F32:      genericOps[float32](),
	F64:      genericOps[float64](),
}

// impls is the dispatch table: the implementations this CPU supports, best
// first, generic last. archImpls comes from the architecture's file and holds
// only what the CPU was found to support at initialisation.
var impls = append(append([]*Impl(nil), archImpls()...), generic)

// def is the default implementation, chosen once at initialisation (see
// chooseDefault); defWhy says why, and defNote reports a CVAR_KERNEL value
// that could not be honoured. Nothing changes def afterwards: a caller that
// wants another implementation passes it explicitly (batch's models take
// one, see batch.Linear.WithKernel).
var def, defWhy, defNote = chooseDefault(os.Getenv("CVAR_KERNEL"))

// chooseDefault returns the default implementation: the one named by the
// override env (the CVAR_KERNEL environment variable) when it names one this
// CPU supports, otherwise the architecture's choice (archDefault: on amd64
// "avx512" only where 512-bit FMA runs at full width, else "avx2"). A bad
// override never panics: the architecture's choice stands and note says why.
func chooseDefault(env string) (im *Impl, why, note string) {
	im, why = archDefault(impls)
	if env == "" {
		return im, why, ""
	}
	o, err := Lookup(strings.TrimSpace(env))
	if err != nil {
		return im, why, fmt.Sprintf("CVAR_KERNEL=%q ignored: %v", env, err)
	}
	return o, "CVAR_KERNEL=" + o.Name, ""
}

// Impls returns the implementations this CPU supports, best for this CPU
// first; the last is always "generic". On amd64 with AVX-512 both "avx512"
// and "avx2" are listed, "avx512" first only where it is the faster (full
// width 512-bit FMA). Tests run every entry; benchmarks name them.
func Impls() []*Impl { return append([]*Impl(nil), impls...) }

// Generic returns the pure-Go reference implementation.
func Generic() *Impl { return generic }

// Default returns the default implementation: the first of Impls, the best
// this CPU supports (the generic one with -tags purego, or when GODEBUG turns
// the CPU features off), unless the environment variable CVAR_KERNEL names
// another available one ("avx512", "avx2", "neon", "generic"). It is chosen
// once, at initialisation; Info says which and why.
func Default() *Impl { return def }

// Lookup returns the implementation named name ("avx512", "avx2", "neon",
// "generic"), or an error listing those available on this CPU.
func Lookup(name string) (*Impl, error) {
	for _, im := range impls {
		if im.Name == name {
			return im, nil
		}
	}
	names := make([]string, len(impls))
	for i, im := range impls {
		names[i] = im.Name
	}
	return nil, fmt.Errorf("kernel: implementation %q is not available on this CPU (available: %s)", name, strings.Join(names, ", "))
}

// For returns the default kernels of element type T.
func For[T Float]() *Ops[T] { return OpsOf[T](def) }

// OpsOf returns impl's kernels of element type T.
func OpsOf[T Float](impl *Impl) *Ops[T] {
	var zero T
	switch any(zero).(type) {
	case float32:
		return any(&impl.F32).(*Ops[T])
	default:
		return any(&impl.F64).(*Ops[T])
	}
}

// String returns the implementation's name.
func (im *Impl) String() string { return im.Name }

// CPUInfo describes the processor, for reports. It comes from
// github.com/klauspost/cpuid/v2 and plays no part in dispatch.
type CPUInfo struct {
	Brand        string   `json:"brand"`
	Arch         string   `json:"arch"`
	LogicalCores int      `json:"logical_cores"`
	Features     []string `json:"features"`
	L1DBytes     int      `json:"l1d_bytes"`
	L2Bytes      int      `json:"l2_bytes"`
	L3Bytes      int      `json:"l3_bytes"`
}

// KernelInfo reports the kernel paths and the CPU.
type KernelInfo struct {
	// Active is the default implementation's name, Default().Name.
	Active    string   `json:"active"`
	Available []string `json:"available"`
	// Reason says why Active was chosen (the CPU model's 512-bit FMA
	// width, or the CVAR_KERNEL override).
	Reason string `json:"reason,omitempty"`
	// Override reports a CVAR_KERNEL value that was ignored, and why.
	Override string  `json:"override,omitempty"`
	CPU      CPUInfo `json:"cpu"`
}

// Info reports the default implementation, every available one, and the CPU.
func Info() KernelInfo {
	names := make([]string, len(impls))
	for i, im := range impls {
		names[i] = im.Name
	}
	return KernelInfo{
		Active:    def.Name,
		Available: names,
		Reason:    defWhy,
		Override:  defNote,
		CPU: CPUInfo{
			Brand:        cpuid.CPU.BrandName,
			Arch:         runtime.GOARCH,
			LogicalCores: cpuid.CPU.LogicalCores,
			Features:     cpuid.CPU.FeatureSet(),
			L1DBytes:     cpuid.CPU.Cache.L1D,
			L2Bytes:      cpuid.CPU.Cache.L2,
			L3Bytes:      cpuid.CPU.Cache.L3,
		},
	}
}

// String formats the report on one line.
func (k KernelInfo) String() string {
	s := fmt.Sprintf("kernel %s (available: %s) on %s, %s, %d logical cores",
		k.Active, strings.Join(k.Available, ", "), k.CPU.Brand, k.CPU.Arch, k.CPU.LogicalCores)
	if k.Reason != "" {
		s += "; " + k.Reason
	}
	if k.Override != "" {
		s += "; " + k.Override
	}
	return s
}
