package kernel

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/klauspost/cpuid/v2"
)

// Impl is one implementation of every kernel, in both precisions.
type Impl struct {
	// Name is short and stable ("avx2", "neon", "generic"); benchmarks and
	// the -kernel flags of the programs use it.
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

// active is the implementation that F32, F64 and the batch package use.
var active = impls[0]

// Impls returns the implementations this CPU supports, best first; the last is
// always "generic". Tests run every entry; benchmarks name them.
func Impls() []*Impl { return append([]*Impl(nil), impls...) }

// Generic returns the pure-Go reference implementation.
func Generic() *Impl { return generic }

// Active returns the implementation in use.
func Active() *Impl { return active }

// F32 returns the active float32 kernels.
func F32() *Ops[float32] { return &active.F32 }

// F64 returns the active float64 kernels.
func F64() *Ops[float64] { return &active.F64 }

// For returns the active kernels of element type T.
func For[T Float]() *Ops[T] { return OpsOf[T](active) }

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

// Use makes the named implementation the active one. It is meant for programs
// and benchmarks choosing a path at start-up, before any training begins: it
// is not safe to call while kernels run. Values already returned by F32, F64 or
// For keep pointing at the implementation that was active then.
func Use(name string) error {
	for _, im := range impls {
		if im.Name == name {
			active = im
			return nil
		}
	}
	names := make([]string, len(impls))
	for i, im := range impls {
		names[i] = im.Name
	}
	return fmt.Errorf("kernel: implementation %q is not available on this CPU (available: %s)", name, strings.Join(names, ", "))
}

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
	Active    string   `json:"active"`
	Available []string `json:"available"`
	CPU       CPUInfo  `json:"cpu"`
}

// Info reports the active implementation, every available one, and the CPU.
func Info() KernelInfo {
	names := make([]string, len(impls))
	for i, im := range impls {
		names[i] = im.Name
	}
	return KernelInfo{
		Active:    active.Name,
		Available: names,
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
	return fmt.Sprintf("kernel %s (available: %s) on %s, %s, %d logical cores",
		k.Active, strings.Join(k.Available, ", "), k.CPU.Brand, k.CPU.Arch, k.CPU.LogicalCores)
}
