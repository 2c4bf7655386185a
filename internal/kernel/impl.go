package kernel

import (
	"fmt"
	"os"
	"strings"
	"sync"
)

// Impl is one implementation of every kernel, in both precisions. It is a
// handle, compared with ==, that Default, Generic, Impls and Lookup return.
// The implementation behind it is built once and never changes. An Impl
// holds nothing a caller can change. So whatever is done to one Impl value
// leaves every other, and the default, computing what they did. The zero
// Impl is no implementation: its name is "" and its Ops have no kernels.
type Impl struct{ p *impl }

// impl is an implementation's name and the level its assembly runs at (zero
// for the generic one). It holds its tables of both precisions.
type impl struct {
	name string
	lvl  level
	f32  table[float32]
	f64  table[float64]
}

// Name is short and stable ("avx512", "avx2", "neon", "generic"); benchmarks
// and the -kernel flags of the programs use it.
func (im Impl) Name() string {
	if im.p == nil {
		return ""
	}
	return im.p.name
}

// String returns the implementation's name.
func (im Impl) String() string { return im.Name() }

// F32 returns the implementation's float32 kernels.
func (im Impl) F32() Ops[float32] { return OpsOf[float32](im) }

// F64 returns the implementation's float64 kernels.
func (im Impl) F64() Ops[float64] { return OpsOf[float64](im) }

// OpsOf returns im's kernels of element type T.
func OpsOf[T Float](im Impl) Ops[T] {
	if im.p == nil {
		return Ops[T]{}
	}
	var t any
	if is32[T]() {
		t = &im.p.f32
	} else {
		t = &im.p.f64
	}
	return Ops[T]{t.(*table[T])}
}

// For returns the default kernels of element type T: OpsOf[T](Default()).
func For[T Float]() Ops[T] { return OpsOf[T](Default()) }

// generic is the pure-Go reference. It is always compiled, on every
// architecture and with -tags purego, and is the last entry of the table.
var generic = &impl{name: "generic", f32: genericOps[float32](), f64: genericOps[float64]()}

// impls is the dispatch table: the implementations this CPU supports, best
// first, generic last. archImpls comes from the architecture's file. It
// holds only what the CPU was found to support at initialisation.
var impls = append(append([]*impl(nil), archImpls()...), generic)

// choice is the default implementation and why it was chosen. It also holds
// a note on a CVAR_KERNEL value that could not be honoured.
type choice struct {
	im        *impl
	why, note string
}

// theDefault makes the choice once, when the default is first asked for (by
// Default, For or Choice). So CVAR_KERNEL set by the program before then
// counts. Nothing changes it afterwards. A caller that wants another
// implementation passes it explicitly. (batch's models take one, see
// batch.Linear.WithKernel.)
var theDefault = newDefault(os.Getenv)

// newDefault returns a function that makes the choice of the default on its
// first call. It reads CVAR_KERNEL through getenv then. It returns that
// choice on every call.
func newDefault(getenv func(string) string) func() choice {
	return sync.OnceValue(func() choice { return chooseDefault(getenv("CVAR_KERNEL")) })
}

// chooseDefault returns the default implementation. env, the value of
// CVAR_KERNEL, names it when this CPU supports that one. Otherwise the
// architecture chooses (archDefault). A bad env never panics: the
// architecture's choice stands, and the note says why.
func chooseDefault(env string) choice {
	im, why := archDefault(impls)
	if env == "" {
		return choice{im, why, ""}
	}
	o, err := Lookup(strings.TrimSpace(env))
	if err != nil {
		return choice{im, why, fmt.Sprintf("CVAR_KERNEL=%q ignored: %v", env, err)}
	}
	return choice{o.p, "CVAR_KERNEL=" + o.p.name, ""}
}

// Impls returns the implementations this CPU supports, best for this CPU
// first. The last is always "generic". On amd64 with AVX-512 both "avx512"
// and "avx2" are listed. "avx512" comes first only where it is the faster:
// full width 512-bit FMA. Tests run every entry; benchmarks name them.
func Impls() []Impl {
	s := make([]Impl, len(impls))
	for i, p := range impls {
		s[i] = Impl{p}
	}
	return s
}

// Generic returns the pure-Go reference implementation.
func Generic() Impl { return Impl{generic} }

// Default returns the default implementation: the best this CPU supports,
// unless CVAR_KERNEL names another available one. With -tags purego, or
// when GODEBUG turns the CPU features off, it is the generic one. It is
// chosen once, on the first call of Default, For or Choice, which is when
// CVAR_KERNEL is read.
func Default() Impl { return Impl{theDefault().im} }

// Lookup returns the implementation named name ("avx512", "avx2", "neon",
// "generic"), or an error listing those available on this CPU.
func Lookup(name string) (Impl, error) {
	for _, p := range impls {
		if p.name == name {
			return Impl{p}, nil
		}
	}
	return Impl{}, fmt.Errorf("kernel: implementation %q is not available on this CPU (available: %s)", name, strings.Join(implNames(), ", "))
}

// Named returns the kernels of element type T of the implementation named
// name. When this CPU has none by that name, it returns the zero Ops, which
// has no kernels. Package kernel's Impl is such a name.
func Named[T Float](name string) Ops[T] {
	im, _ := Lookup(name)
	return OpsOf[T](im)
}

// implNames returns the names of impls, in order.
func implNames() []string {
	names := make([]string, len(impls))
	for i, p := range impls {
		names[i] = p.name
	}
	return names
}

// Choice returns the default implementation and why it was chosen. It also
// returns a note on a CVAR_KERNEL value that could not be honoured ("" when
// none). Package kernel's Info reports them.
func Choice() (im Impl, why, note string) {
	c := theDefault()
	return Impl{c.im}, c.why, c.note
}
