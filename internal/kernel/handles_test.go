package kernel_test

import (
	"math"
	"reflect"
	"slices"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/cvarlearn/cvar/internal/kernel"
)

// TestHandlesHoldNothingExported checks that Impl and Ops hold only an
// unexported pointer to an unexported type: another package can replace a
// value it holds, never reach, change or forge what the value refers to.
func TestHandlesHoldNothingExported(t *testing.T) {
	t.Parallel()
	for _, typ := range []reflect.Type{
		reflect.TypeFor[kernel.Impl](),
		reflect.TypeFor[kernel.Ops[float32]](),
		reflect.TypeFor[kernel.Ops[float64]](),
	} {
		if typ.NumField() == 0 {
			t.Errorf("%v has no fields", typ)
		}
		for i := range typ.NumField() {
			f := typ.Field(i)
			if f.IsExported() || f.Type.Kind() != reflect.Pointer {
				t.Errorf("%v.%s (%v): want an unexported pointer", typ, f.Name, f.Type)
				continue
			}
			if r, _ := utf8.DecodeRuneInString(f.Type.Elem().Name()); !unicode.IsLower(r) {
				t.Errorf("%v.%s points to %v, an exported type", typ, f.Name, f.Type.Elem())
			}
		}
	}
}

// TestDefaultUnbent does to the values Default, For, Lookup and Impls return
// everything another package can, and checks that a fresh Default, Lookup
// and Impls are untouched: the same implementation, computing the same bits.
func TestDefaultUnbent(t *testing.T) {
	t.Parallel()
	x, y := []float64{1.5, -2, 3.25, 1e-3, 7}, []float64{0.1, 0.2, -0.3, 4, 1e6}
	name := kernel.Default().Name()
	want := kernel.Default().F64().Dot(x, y)
	list := kernel.Impls()

	a, _ := kernel.Lookup(name)
	b, _ := kernel.Lookup(name)
	if a != b || a != kernel.Default() {
		t.Fatalf("two Lookups of %q differ: %v, %v", name, a, b)
	}
	// All another package can do to what it got: replace it.
	d, o := kernel.Default(), kernel.For[float64]()
	d, o, a = kernel.Generic(), kernel.Ops[float64]{}, kernel.Impl{}
	_, _, _ = d, o, a
	s := kernel.Impls()
	for i := range s {
		s[i] = kernel.Impl{}
	}

	if got := kernel.Default(); got.Name() != name || got != b {
		t.Errorf("Default is %v after the changes, want %s", got, name)
	}
	if got := kernel.For[float64]().Dot(x, y); math.Float64bits(got) != math.Float64bits(want) {
		t.Errorf("For's Dot = %v after the changes, want %v", got, want)
	}
	if got := b.F64().Dot(x, y); math.Float64bits(got) != math.Float64bits(want) {
		t.Errorf("the second Lookup's Dot = %v, want %v", got, want)
	}
	if got := kernel.Impls(); !slices.Equal(got, list) {
		t.Errorf("Impls = %v after its result was cleared, want %v", got, list)
	}
}

// TestZeroImpl checks the zero Impl: no name, and Ops without kernels.
func TestZeroImpl(t *testing.T) {
	t.Parallel()
	var im kernel.Impl
	if im.Name() != "" || im.F32() != (kernel.Ops[float32]{}) || kernel.OpsOf[float64](im) != (kernel.Ops[float64]{}) {
		t.Errorf("the zero Impl: name %q, Ops %v %v", im.Name(), im.F32(), kernel.OpsOf[float64](im))
	}
	for _, im := range kernel.Impls() {
		if im == (kernel.Impl{}) || im.F64() == (kernel.Ops[float64]{}) {
			t.Errorf("%v is the zero Impl or has zero Ops", im)
		}
	}
}
