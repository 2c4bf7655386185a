package linerange

import (
	"io"
	"strings"
	"testing"
)

// Ranges that tile a file read each line once, whatever the cut points
// and the lines' lengths, and Before numbers the lines of each range.
func TestRangesTileTheFile(t *testing.T) {
	short := "h\na,1\n\nbb,22\nccc,333\nlast"
	long := "h\n" + strings.Repeat("x", 1<<17) + "\nccc,333\n" // a line longer than the buffer
	for _, c := range []struct {
		file  string
		sizes []int64
	}{{short, []int64{1, 2, 3, 5, 7, 100}}, {long, []int64{1000, 1 << 16, 1 << 20}}} {
		file, lines := c.file, strings.Split(c.file, "\n")
		for _, size := range c.sizes {
			var got []string
			for start := int64(0); start < int64(len(file)); start += size {
				r, err := Open(strings.NewReader(file), start, min(start+size, int64(len(file))), false)
				if err != nil {
					t.Fatal(err)
				}
				b, err := io.ReadAll(r)
				if err != nil || len(b) == 0 {
					continue
				}
				part := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
				if before, _ := Before(strings.NewReader(file), start); lines[before] != part[0] {
					t.Errorf("size %d, from byte %d: Before says line %d, the range starts with another", size, start, before+1)
				}
				got = append(got, part...)
			}
			if strings.Join(got, "\n") != strings.TrimSuffix(file, "\n") {
				t.Errorf("size %d: %d lines read, want %d", size, len(got), len(lines))
			}
		}
	}
}

// A range after the first gets the header in front; Before counts the
// lines that start before the range.
func TestHeaderAndBefore(t *testing.T) {
	file := "a,b\n1,2\n3,4\n5,6\n"
	r, err := Open(strings.NewReader(file), 9, int64(len(file)), true)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r)
	if string(b) != "a,b\n5,6\n" {
		t.Errorf("from byte 9 with the header: %q", b)
	}
	if n, err := Before(strings.NewReader(file), 9); n != 3 || err != nil {
		t.Errorf("Before(9) = %d, %v; want 3", n, err)
	}
	if n, _ := Before(strings.NewReader(file), 0); n != 0 {
		t.Errorf("Before(0) = %d", n)
	}
}
