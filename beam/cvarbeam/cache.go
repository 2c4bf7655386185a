package cvarbeam

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"slices"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
)

// A worker keeps the parsed, preprocessed training rows of the splits it
// reads from one round of a run to the next, so that only the first round
// reads them. Each round is a pipeline of its own whose DoFns the runner
// makes anew; what outlives a round is the worker's process, so the rows
// are kept by the package, the one state its workers share. Workers that
// are this program (Prism in-process, LOOPBACK) or that serve several jobs
// find them there; others read the split again.
//
// An entry belongs to one run (a token of the Train call) and to the file
// as it was (its size and modification time), so that no run finds
// another's rows, nor the rows of a file changed since. The entries of a
// process stay under the library's memory bound (dataset.DefaultMaxBytes),
// the least recently used dropped first, and a run drops its own when it
// ends.
var rowCache = &splitCache{limit: dataset.DefaultMaxBytes}

// newRunToken names a run's entries in rowCache.
func newRunToken() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

type cacheKey struct {
	Run         string
	Path        string
	Start, End  int64
	Size, MTime int64
}

type cacheEntry struct {
	key   cacheKey
	data  any // *batch.Data[T] of the run's precision
	bytes int64
}

type splitCache struct {
	mu      sync.Mutex
	limit   int64
	used    int64
	entries []*cacheEntry // the least recently used first
}

// keyOf is the cache key of split sp in run; ok is false when the file's
// size or modification time cannot be known, and its rows are not kept.
func keyOf(ctx context.Context, run string, sp split) (cacheKey, bool) {
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
	if err != nil {
		return cacheKey{}, false
	}
	t, err := lm.LastModified(ctx, sp.Path)
	if err != nil {
		return cacheKey{}, false
	}
	return cacheKey{Run: run, Path: sp.Path, Start: sp.Start, End: sp.End, Size: size, MTime: t.UnixNano()}, true
}

// cachedRows returns the rows kept under k, or nil.
func cachedRows[T batch.Float](c *splitCache, k cacheKey) *batch.Data[T] {
	c.mu.Lock()
	defer c.mu.Unlock()
	i := slices.IndexFunc(c.entries, func(e *cacheEntry) bool { return e.key == k })
	if i < 0 {
		return nil
	}
	e := c.entries[i]
	c.entries = append(slices.Delete(c.entries, i, i+1), e)
	d, _ := e.data.(*batch.Data[T])
	return d
}

// keepRows keeps d under k, dropping the least recently used entries
// while the kept bytes would pass the bound; rows larger than the bound
// are not kept.
func keepRows[T batch.Float](c *splitCache, k cacheKey, d *batch.Data[T]) {
	n := dataBytes(d)
	c.mu.Lock()
	defer c.mu.Unlock()
	if n > c.limit || slices.ContainsFunc(c.entries, func(e *cacheEntry) bool { return e.key == k }) {
		return
	}
	for len(c.entries) > 0 && c.used+n > c.limit {
		c.used -= c.entries[0].bytes
		c.entries = c.entries[1:]
	}
	c.entries = append(c.entries, &cacheEntry{key: k, data: d, bytes: n})
	c.used += n
}

// drop removes the entries of run.
func (c *splitCache) drop(run string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries = slices.DeleteFunc(c.entries, func(e *cacheEntry) bool {
		if e.key.Run == run {
			c.used -= e.bytes
			return true
		}
		return false
	})
}

// dataBytes is the memory d's slices hold.
func dataBytes[T batch.Float](d *batch.Data[T]) int64 {
	size := int64(8)
	if _, ok := any(T(0)).(float32); ok {
		size = 4
	}
	return size*int64(cap(d.X)+cap(d.Vals)+cap(d.Y)) + 4*int64(cap(d.Cols)+cap(d.Labels)) + 8*int64(cap(d.Indptr))
}
