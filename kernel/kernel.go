package kernel

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/klauspost/cpuid/v2"

	ikernel "github.com/cvarlearn/cvar/internal/kernel"
)

// Float is the element type of cvar's data, models and kernels: float32 or
// float64. It is the one such constraint of the module.
type Float = ikernel.Float

// Impl is one implementation of every kernel, in both precisions. Default,
// Generic, Impls and Lookup return one; two are the same implementation
// when they are ==. The zero Impl is no implementation: its name is "".
type Impl struct{ name string }

// Name is short and stable: "avx512", "avx2", "neon" or "generic". The
// programs' -kernel flags and the benchmarks use it.
func (im Impl) Name() string { return im.name }

// String returns the implementation's name.
func (im Impl) String() string { return im.name }

// Default returns the default implementation: the best this CPU supports,
// unless CVAR_KERNEL names another one it can run. It is chosen on the
// first call of Default or Info, when CVAR_KERNEL is read; Info says which
// and why.
func Default() Impl { return Impl{ikernel.Default().Name()} }

// Generic returns the pure-Go reference implementation.
func Generic() Impl { return Impl{ikernel.Generic().Name()} }

// Impls returns the implementations this CPU supports, best first; the last
// is always "generic".
func Impls() []Impl {
	all := ikernel.Impls()
	s := make([]Impl, len(all))
	for i, im := range all {
		s[i] = Impl{im.Name()}
	}
	return s
}

// Lookup returns the implementation named name, or an error listing those
// this CPU supports.
func Lookup(name string) (Impl, error) {
	im, err := ikernel.Lookup(name)
	if err != nil {
		return Impl{}, err
	}
	return Impl{im.Name()}, nil
}

// CPUInfo describes the processor, for reports. It comes from
// github.com/klauspost/cpuid/v2 and plays no part in the choice.
type CPUInfo struct {
	Brand        string   `json:"brand"`
	Arch         string   `json:"arch"`
	LogicalCores int      `json:"logical_cores"`
	Features     []string `json:"features"`
	L1DBytes     int      `json:"l1d_bytes"`
	L2Bytes      int      `json:"l2_bytes"`
	L3Bytes      int      `json:"l3_bytes"`
}

// KernelInfo reports the implementations and the CPU.
type KernelInfo struct {
	// Active is the default implementation's name.
	Active    string   `json:"active"`
	Available []string `json:"available"`
	// Reason says why Active was chosen: the CPU model's 512-bit FMA
	// width, or the CVAR_KERNEL override.
	Reason string `json:"reason,omitempty"`
	// Override reports a CVAR_KERNEL value that was ignored, and why.
	Override string  `json:"override,omitempty"`
	CPU      CPUInfo `json:"cpu"`
}

// Info reports the default implementation, every available one, and the
// CPU.
func Info() KernelInfo {
	im, why, note := ikernel.Choice()
	var names []string
	for _, o := range ikernel.Impls() {
		names = append(names, o.Name())
	}
	return KernelInfo{
		Active:    im.Name(),
		Available: names,
		Reason:    why,
		Override:  note,
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
