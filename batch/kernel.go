package batch

import (
	"errors"
	"fmt"

	"github.com/cvarlearn/cvar/kernel"
)

// The kernels a model computes with are a value: a model made by a
// constructor of this package uses kernel.Default(); WithKernel returns a copy
// that uses another implementation. An Engine runs the kernels of its model,
// so two engines in one process may use two implementations.

// WithKernel returns a copy of l that computes with impl's kernels.
func (l *Linear[T]) WithKernel(impl kernel.Impl) *Linear[T] {
	c := *l
	c.ops = kernel.OpsOf[T](impl)
	return &c
}

// WithKernel returns a copy of s that computes with impl's kernels.
func (s *Softmax[T]) WithKernel(impl kernel.Impl) *Softmax[T] {
	c := *s
	c.ops = kernel.OpsOf[T](impl)
	return &c
}

// WithKernel returns a copy of m that computes with impl's kernels (for its
// matrix products too, unless it was made by NewMLPBLAS).
func (m *MLP[T]) WithKernel(impl kernel.Impl) *MLP[T] {
	c := *m
	c.ops = kernel.OpsOf[T](impl)
	return &c
}

func (l *Linear[T]) kernels() kernel.Ops[T]  { return l.ops }
func (s *Softmax[T]) kernels() kernel.Ops[T] { return s.ops }
func (m *MLP[T]) kernels() kernel.Ops[T]     { return m.ops }

// KernelsOf returns the kernels model computes with: those of its WithKernel
// for the models of this package, the default ones for any other Model.
func KernelsOf[T Float](model Model[T]) kernel.Ops[T] {
	if k, ok := model.(interface{ kernels() kernel.Ops[T] }); ok {
		return k.kernels()
	}
	return kernel.For[T]()
}

// ModelWithKernel returns a copy of model, one of this package's models,
// that computes with impl's kernels; an error for any other Model or the
// zero Impl.
func ModelWithKernel[T Float](model Model[T], impl kernel.Impl) (Model[T], error) {
	if impl == (kernel.Impl{}) {
		return nil, errors.New("batch: no kernel implementation (the zero kernel.Impl)")
	}
	switch m := model.(type) {
	case *Linear[T]:
		return m.WithKernel(impl), nil
	case *Softmax[T]:
		return m.WithKernel(impl), nil
	case *MLP[T]:
		return m.WithKernel(impl), nil
	}
	return nil, fmt.Errorf("batch: %T is not a model of package batch; it has no kernels to replace", model)
}
