package cvarbeam

import (
	"context"
	"sync"
	"unsafe"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

// rowCache keeps the preprocessed training rows of the parts a worker
// reads from one round of a run to the next, so only the first round
// reads them. A round's DoFns are made anew; only the worker's process
// outlives it, so the package keeps the rows. Workers that are this
// program (Prism in-process, LOOPBACK) or serve several jobs find them.
//
// An entry belongs to one run and to the file's size and modification
// time, so no run finds another's rows, nor those of a changed file. The
// entries stay under dataset.DefaultMaxBytes: a part that does not fit
// is read each round. Dropping an older entry for it would not help, as
// the rounds read the parts in turn. A run drops its own when it ends.
var rowCache = &splitCache{limit: dataset.DefaultMaxBytes}

type cacheKey struct {
	Run         string
	Path        string
	Start, End  int64
	Size, MTime int64
}

type cacheEntry struct {
	data  any // *batch.Data[T] of the run's precision
	bytes int64
}

type splitCache struct {
	mu      sync.Mutex
	limit   int64
	used    int64
	entries map[cacheKey]cacheEntry
}

// keyOf is the cache key of part sp in run. ok is false when the file's
// size or modification time is unknown: then its rows are not kept.
func keyOf(ctx context.Context, run string, sp Part) (cacheKey, bool) {
	if run == "" {
		return cacheKey{}, false
	}
	fs, err := filesystem.New(ctx, sp.Path)
	if err != nil {
		return cacheKey{}, false
	}
	defer fs.Close()
	lm, ok := fs.(filesystem.LastModifiedGetter)
	if !ok {
		return cacheKey{}, false
	}
	size, err := fs.Size(ctx, sp.Path)
	t, terr := lm.LastModified(ctx, sp.Path)
	k := cacheKey{Run: run, Path: sp.Path, Start: sp.Start, End: sp.End, Size: size, MTime: t.UnixNano()}
	return k, err == nil && terr == nil
}

// cachedRows returns the rows kept under k, or nil.
func cachedRows[T batch.Float](c *splitCache, k cacheKey) *batch.Data[T] {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, _ := c.entries[k].data.(*batch.Data[T])
	return d
}

// keepRows keeps d under k if it fits in the bound.
func keepRows[T batch.Float](c *splitCache, k cacheKey, d *batch.Data[T]) {
	size := int64(unsafe.Sizeof(T(0)))
	n := size*int64(cap(d.X)+cap(d.Vals)+cap(d.Y)) + 4*int64(cap(d.Cols)+cap(d.Labels)) + 8*int64(cap(d.Indptr))
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[k]; ok || c.used+n > c.limit {
		return
	}
	if c.entries == nil {
		c.entries = map[cacheKey]cacheEntry{}
	}
	c.entries[k] = cacheEntry{data: d, bytes: n}
	c.used += n
}

// drop removes the entries of run.
func (c *splitCache) drop(run string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.entries {
		if k.Run == run {
			delete(c.entries, k)
			c.used -= e.bytes
		}
	}
}
