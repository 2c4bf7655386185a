package main

import (
	"fmt"
	"sync"

	"github.com/cvarlearn/cvar"
)

// handles maps the opaque integers Python holds to the models they stand
// for. A handle lives until cvar_free; the Go side keeps nothing else
// between calls, and never memory that Python owns.
type handles struct {
	mu     sync.Mutex
	next   int64
	models map[int64]*cvar.ModelFile
}

func newHandles() *handles { return &handles{models: map[int64]*cvar.ModelFile{}} }

// put stores m and returns its handle, never 0 (0 means no model).
func (h *handles) put(m *cvar.ModelFile) int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.next++
	h.models[h.next] = m
	return h.next
}

// get returns the model of handle id.
func (h *handles) get(id int64) (*cvar.ModelFile, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	m, ok := h.models[id]
	if !ok {
		return nil, fmt.Errorf("cvar: no model with handle %d (freed, or never made)", id)
	}
	return m, nil
}

// free forgets handle id; freeing an unknown handle does nothing.
func (h *handles) free(id int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.models, id)
}

// count is the number of live handles.
func (h *handles) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.models)
}

// replace makes handle id stand for m.
func (h *handles) replace(id int64, m *cvar.ModelFile) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.models[id] = m
}
