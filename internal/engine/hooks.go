// Package engine holds the hooks package cvar alone hands to a
// batch.Engine. They are the callbacks its training step runs inside the
// engine's gradient calls. One folds the update of θ into the sum of the
// chunks' gradients. The other lets the lazy sparse step catch up the
// coordinates a minibatch touches. Code outside this module cannot import
// the package. So it can neither name these types nor give an Engine
// hooks: batch's public API has none.
package engine

// Hooks are the callbacks of one Engine's gradient calls. The Engine reads
// them as each call starts; their owner, the only goroutine that calls
// that Engine, sets them between calls.
type Hooks struct {
	// Then, if not nil, runs in Gradient on every block [lo, hi) of the
	// coordinates of g. The blocks are spread over the workers like the sum
	// of the chunks' gradients. Each runs right after its sum is complete,
	// while it is in cache. The blocks are disjoint and cover g once. Then
	// must be elementwise, as the blocks are aligned to nothing else. It
	// runs on several goroutines at once, and not at all after an error. A
	// call of the Engine from it returns batch.ErrConcurrentUse.
	Then func(lo, hi int)
	// Before, if not nil, is called by GradientSparse with the coordinates
	// the minibatch touches. It runs on the calling goroutine, before θ is
	// read there. It is the place to bring those coordinates of θ up to
	// date (a lazy update).
	Before func(coords []int)
}

// Hooked is a model that brings Hooks to the Engine made of it: NewEngine
// computes with Unhooked() and keeps EngineHooks(), whose callbacks its
// calls run. M is batch.Model[T].
type Hooked[M any] interface {
	Unhooked() M
	EngineHooks() *Hooks
}
