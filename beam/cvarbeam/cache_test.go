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
// keeps what fits in its bound, and drops a run's entries with the run.
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
	keepRows(c, cacheKey{Run: "run-a", Path: "p1"}, rows(100))
	keepRows(c, cacheKey{Run: "run-b", Path: "p2"}, rows(100))
	keepRows(c, cacheKey{Run: "run-b", Path: "p3"}, rows(100))
	if cachedRows[float64](c, cacheKey{Run: "run-b", Path: "p3"}) != nil || cachedRows[float64](c, k) == nil || c.used != 3*8*100 {
		t.Errorf("past the bound: %d bytes kept of %d; want what fits kept and no more", c.used, c.limit)
	}
	c.drop("run-b")
	if _, ok := c.entries[k]; len(c.entries) != 2 || !ok || c.used != 2*8*100 {
		t.Errorf("after the run ends: %d entries, %d bytes; want run-a's two", len(c.entries), c.used)
	}
}
