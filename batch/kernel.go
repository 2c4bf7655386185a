package batch

import (
	"errors"
	"fmt"

	ikernel "github.com/cvarlearn/cvar/internal/kernel"
	"github.com/cvarlearn/cvar/kernel"
)

// The kernels a model computes with are a value. A model made by a
// constructor of this package uses kernel.Default(). WithKernel returns a
// copy that uses another implementation. An Engine runs the kernels of its
// model. So two engines in one process may use two implementations.

// opsOf returns impl's kernels of element type T: the zero Ops, which has no
// kernels, for the zero Impl.
func opsOf[T Float](impl kernel.Impl) ikernel.Ops[T] {
	return ikernel.Named[T](impl.Name())
}

// WithKernel returns a copy of l that computes with impl's kernels.
func (l *Linear[T]) WithKernel(impl kernel.Impl) *Linear[T] {
	c := *l
	c.ops = opsOf[T](impl)
	return &c
}

// WithKernel returns a copy of s that computes with impl's kernels.
func (s *Softmax[T]) WithKernel(impl kernel.Impl) *Softmax[T] {
	c := *s
	c.ops = opsOf[T](impl)
	return &c
}

// WithKernel returns a copy of m that computes with impl's kernels. Its
// matrix products use them too, unless it was made by NewMLPBLAS.
func (m *MLP[T]) WithKernel(impl kernel.Impl) *MLP[T] {
	c := *m
	c.ops = opsOf[T](impl)
	return &c
}

func (l *Linear[T]) kernels() ikernel.Ops[T]  { return l.ops }
func (s *Softmax[T]) kernels() ikernel.Ops[T] { return s.ops }
func (m *MLP[T]) kernels() ikernel.Ops[T]     { return m.ops }

// kernelsOf returns the kernels model computes with. For the models of this
// package they are those of its WithKernel. For any other Model they are the
// default ones.
func kernelsOf[T Float](model Model[T]) ikernel.Ops[T] {
	if k, ok := model.(interface{ kernels() ikernel.Ops[T] }); ok {
		return k.kernels()
	}
	return ikernel.For[T]()
}

// KernelOf returns the implementation model computes with. For the models of
// this package it is the one given to its WithKernel. For any other Model it
// is kernel.Default().
func KernelOf[T Float](model Model[T]) kernel.Impl {
	im, _ := kernel.Lookup(kernelsOf(model).Impl().Name())
	return im
}

// ModelWithKernel returns a copy of model, one of this package's models,
// that computes with impl's kernels. It returns an error for any other Model
// or the zero Impl.
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
