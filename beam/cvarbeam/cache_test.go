package cvarbeam

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cvarlearn/cvar/batch"
)

// The cache finds rows only under the run and the file as they were kept,
// drops the least recently used past its bound, and a run's entries with
// the run.
func TestRowCache(t *testing.T) {
	ctx := context.Background()
	name := filepath.Join(t.TempDir(), "part-0.csv")
	if err := os.WriteFile(name, []byte("a,b\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sp := Part{Path: name, End: -1}
	k, ok := keyOf(ctx, "run-a", sp)
	if !ok {
		t.Fatal("a local file has no cache key")
	}
	if _, ok := keyOf(ctx, "", sp); ok {
		t.Error("rows kept without a run")
	}
	rows := func(n int) *batch.Data[float64] { return &batch.Data[float64]{X: make([]float64, n), N: n, D: 1} }
	c := &splitCache{limit: 3 * 8 * 100}
	keepRows(c, k, rows(100))
	if cachedRows[float64](c, k) == nil {
		t.Fatal("rows kept are not found")
	}
	if cachedRows[float32](c, k) != nil {
		t.Error("rows of another precision found")
	}
	other, _ := keyOf(ctx, "run-b", sp)
	if cachedRows[float64](c, other) != nil {
		t.Error("another run finds the rows")
	}
	time.Sleep(10 * time.Millisecond)
	if err := os.WriteFile(name, []byte("a,b\n1,2\n3,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if changed, _ := keyOf(ctx, "run-a", sp); cachedRows[float64](c, changed) != nil {
		t.Error("the rows of a file since changed are found")
	}
	keys := []cacheKey{k, {Run: "run-a", Path: "p1"}, {Run: "run-b", Path: "p2"}}
	keepRows(c, keys[1], rows(100))
	keepRows(c, keys[2], rows(100))
	cachedRows[float64](c, keys[0]) // the least recently used is now keys[1]
	keepRows(c, cacheKey{Run: "run-b", Path: "p3"}, rows(100))
	if cachedRows[float64](c, keys[1]) != nil || cachedRows[float64](c, keys[0]) == nil || c.used != 3*8*100 {
		t.Errorf("past the bound: %d bytes kept of %d; want the least recently used dropped", c.used, c.limit)
	}
	keepRows(c, cacheKey{Path: "big"}, rows(400))
	if c.used != 3*8*100 {
		t.Errorf("rows over the whole bound kept: %d bytes", c.used)
	}
	c.drop("run-b")
	if len(c.entries) != 1 || c.entries[0].key != k || c.used != 8*100 {
		t.Errorf("after the run ends: %d entries, %d bytes; want run-a's one", len(c.entries), c.used)
	}
}
