package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// lineEvery is the least time between two lines of progress on a stderr
// that is not a terminal (a log file, a pipe, CI). It is often enough to
// show a long run moves. It is rare enough that a log stays readable. A
// run shorter than it prints none.
const lineEvery = 5 * time.Second

// progress reports a long run's progress on stderr. On a terminal it
// redraws a one-line bar in place. Otherwise it prints a line of the units
// done, the time taken and the time left, at most every lineEvery. It then
// prints a last line when one was printed. It is safe for concurrent use.
type progress struct {
	mu           sync.Mutex
	w            io.Writer
	on           bool // report at all
	bar          bool // a terminal: redraw the bar in place
	lines        int  // lines printed (not a terminal)
	label        string
	done, total  int
	start, drawn time.Time // drawn: when the bar or a line was last drawn
	now          func() time.Time
}

// newProgress starts reporting total units of work (epochs, resamples) on
// e's stderr. label names the units. A terminal gets a bar; another file
// (a log, a pipe) gets lines. A stderr that is no file (a test's buffer)
// gets none. So what a command writes there stays its messages alone.
func newProgress(e *env, label string, total int) *progress {
	_, file := e.stderr.(*os.File)
	return startProgress(e.stderr, e.tty, total > 0 && (e.tty || file), label, total)
}

// startProgress reports total units on w: a bar redrawn in place, or lines;
// nothing unless on.
func startProgress(w io.Writer, bar, on bool, label string, total int) *progress {
	p := &progress{w: w, on: on && total > 0, bar: bar, label: label, total: total, now: time.Now}
	p.start = p.now()
	p.drawn = p.start
	if p.on && p.bar {
		p.draw(true)
	}
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
	if p.bar {
		p.draw(p.done == p.total)
		return
	}
	p.line(false)
}

// left is the time the rest of the work will take at the pace so far.
func (p *progress) left(now time.Time) time.Duration {
	frac := float64(p.done) / float64(p.total)
	return time.Duration(float64(now.Sub(p.start)) * (1/frac - 1)).Round(time.Second)
}

// line prints a line of progress when lineEvery has passed since the last
// one (or the start). With final it prints one when any was printed.
func (p *progress) line(final bool) {
	now := p.now()
	if final && p.lines == 0 || !final && now.Sub(p.drawn) < lineEvery {
		return
	}
	p.drawn = now
	p.lines++
	took := now.Sub(p.start).Round(time.Second)
	if final {
		fmt.Fprintf(p.w, "%s: %d/%d in %v\n", p.label, p.done, p.total, took)
		return
	}
	fmt.Fprintf(p.w, "%s: %d/%d (%.0f%%) in %v, about %v left\n", p.label, p.done, p.total,
		100*float64(p.done)/float64(p.total), took, p.left(now))
}

// draw redraws the bar at most ten times a second, unless forced.
func (p *progress) draw(force bool) {
	now := p.now()
	if !force && now.Sub(p.drawn) < 100*time.Millisecond {
		return
	}
	p.drawn = now
	const width = 30
	frac := float64(p.done) / float64(p.total)
	fill := int(frac * width)
	eta := ""
	if p.done > 0 && p.done < p.total {
		eta = " ETA " + p.left(now).String()
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s [%s%s] %3.0f%% %d/%d%s", p.label,
		strings.Repeat("=", fill), strings.Repeat(" ", width-fill), 100*frac, p.done, p.total, eta)
}

// finish clears the bar, or prints the last line.
func (p *progress) finish() {
	if p == nil || !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar {
		fmt.Fprint(p.w, "\r\x1b[K")
	} else {
		p.line(true)
	}
	p.on = false
}
