package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// progress draws a one-line progress bar on stderr when it is a terminal;
// otherwise it does nothing. It is safe for concurrent use.
type progress struct {
	mu           sync.Mutex
	w            io.Writer
	on           bool
	label        string
	done, total  int
	start, drawn time.Time // drawn: when the bar was last drawn
}

func newProgress(e *env, label string, total int) *progress {
	p := &progress{w: e.stderr, on: e.tty && total > 0, label: label, total: total, start: time.Now()}
	p.draw(true)
	return p
}

// add records n more units of work done.
func (p *progress) add(n int) {
	if p == nil || !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done = min(p.done+n, p.total)
	p.draw(p.done == p.total)
}

// draw redraws the bar at most ten times a second, unless forced.
func (p *progress) draw(force bool) {
	if !p.on {
		return
	}
	now := time.Now()
	if !force && now.Sub(p.drawn) < 100*time.Millisecond {
		return
	}
	p.drawn = now
	const width = 30
	frac := float64(p.done) / float64(p.total)
	fill := int(frac * width)
	eta := ""
	if p.done > 0 && p.done < p.total {
		left := time.Duration(float64(now.Sub(p.start)) * (1/frac - 1))
		eta = " ETA " + left.Round(time.Second).String()
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s [%s%s] %3.0f%% %d/%d%s", p.label,
		strings.Repeat("=", fill), strings.Repeat(" ", width-fill), 100*frac, p.done, p.total, eta)
}

// finish clears the bar.
func (p *progress) finish() {
	if p == nil || !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprint(p.w, "\r\x1b[K")
	p.on = false
}
