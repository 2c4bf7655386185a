package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar/dataset"
	"github.com/cvarlearn/cvar/internal/numtext"
)

// The hostile-input suite: bad files and flags given to every command,
// run in-process. Each row must end with the documented exit status, one
// line on stderr naming the file (and the line, where there is one) and
// the problem, no panic, no file created or changed, and a heap that grew
// by no more than the row's -max-memory, dataset.ReadOverhead and the
// garbage allowance of heapLimit.

// hostileRow is one command line of the suite and what it must give.
type hostileRow struct {
	name string
	args []string // the command and its flags; -max-memory hostileBound is added unless given
	code int      // exit status: 0, 1 (a failure) or 2 (a usage error)
	want []string // substrings of the one line on stderr (code 1 and 2)
	at   string   // when set, a regular expression the line must match, such as the file and a line number
	big  bool     // reads tens of MiB or more: left out under emulation and the race detector, where a smaller twin asserts the same property
}

// hostileBound is the -max-memory of a row that gives none: small, so that
// a reader that held more than it counts would show.
const hostileBound = 16 << 20

// heapLimit is the most the heap may grow running a command under
// -max-memory bound: what readers may hold, the bound and
// dataset.ReadOverhead, and a quarter more for garbage not yet reclaimed.
// heapPeak runs the collector at GOGC 25, which starts a cycle when the heap
// reaches 1.25 times what was live after the last one.
func heapLimit(bound int64) int64 { return (bound + dataset.ReadOverhead) * 5 / 4 }

// emulated reports whether the tests run under user-mode emulation (CI's
// arm64 leg under qemu), where reading is some thirty times slower: the
// emulator shows the host's /proc/cpuinfo, an x86 one.
func emulated() bool {
	if runtime.GOARCH == "amd64" || runtime.GOARCH == "386" {
		return false
	}
	b, err := os.ReadFile("/proc/cpuinfo")
	return err == nil && bytes.Contains(b, []byte("vendor_id"))
}

// withBound returns args with -max-memory hostileBound after the command
// name unless they give -max-memory, and the bound they run under (0: none).
func withBound(t *testing.T, args []string) ([]string, int64) {
	t.Helper()
	for i, a := range args {
		v, ok := strings.CutPrefix(a, "-max-memory=")
		if !ok && a == "-max-memory" && i+1 < len(args) {
			v, ok = args[i+1], true
		}
		if ok {
			var b byteSize
			if err := b.Set(v); err != nil {
				return args, 0 // a row about a bad -max-memory
			}
			return args, int64(b)
		}
	}
	out := append([]string{args[0], "-max-memory", fmt.Sprint(hostileBound)}, args[1:]...)
	return out, hostileBound
}

// fileState is what snapshot records of a file: enough to see that it was
// replaced (another inode), written (size, time) or changed in kind.
type fileState struct {
	info fs.FileInfo
}

// snapshot records every file under dir, without opening any (a named
// pipe would block).
func snapshot(t *testing.T, dir string) map[string]fileState {
	t.Helper()
	m := map[string]fileState{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		m[p] = fileState{info}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// sameFiles reports the files created, removed or changed between two
// snapshots of a directory.
func sameFiles(before, after map[string]fileState) []string {
	var diff []string
	for p, b := range before {
		a, ok := after[p]
		switch {
		case !ok:
			diff = append(diff, "removed "+p)
		case b.info.IsDir():
			if !a.info.IsDir() {
				diff = append(diff, "replaced "+p)
			}
		case a.info.Mode()&fs.ModeNamedPipe != 0:
			// A pipe's times change as it is written: only its identity counts.
			if !os.SameFile(a.info, b.info) || a.info.Mode() != b.info.Mode() {
				diff = append(diff, "replaced "+p)
			}
		case !os.SameFile(a.info, b.info) || a.info.Size() != b.info.Size() || !a.info.ModTime().Equal(b.info.ModTime()) || a.info.Mode() != b.info.Mode():
			diff = append(diff, "changed "+p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			diff = append(diff, "created "+p)
		}
	}
	slices.Sort(diff)
	return diff
}

// runHostile runs each row as a subtest and checks it; dir holds every
// file the rows name, none of which may change.
func runHostile(t *testing.T, dir string, rows []hostileRow) {
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			if r.big && (emulated() || raceDetector) {
				t.Skip("reads tens of MiB, too slow under emulation or the race detector; a smaller row asserts the same")
			}
			args, bound := withBound(t, r.args)
			cmd := "cvar " + strings.Join(args, " ")
			before := snapshot(t, dir)
			var stdout, stderr string
			code := -1
			var panicked any
			peak := heapPeak(func() {
				defer func() { panicked = recover() }()
				stdout, stderr, code = cli(t, args...)
			})
			if panicked != nil {
				t.Fatalf("%s panicked: %v", cmd, panicked)
			}
			checkOutcome(t, cmd, r, code, stdout, stderr)
			if bound > 0 {
				t.Logf("heap grew by %s under -max-memory %s", numtext.Bytes(peak), numtext.Bytes(bound))
				if peak > heapLimit(bound) {
					t.Errorf("%s: the heap grew by %s, more than %s", cmd, numtext.Bytes(peak), numtext.Bytes(heapLimit(bound)))
				}
			}
			if diff := sameFiles(before, snapshot(t, dir)); len(diff) > 0 {
				t.Errorf("%s: files changed: %v", cmd, diff)
			}
		})
	}
}

// checkOutcome checks a row's exit status and output: on failure one line
// on stderr holding every wanted substring, nothing on stdout; on success
// nothing on stderr. A stack trace fails either way.
func checkOutcome(t *testing.T, cmd string, r hostileRow, code int, stdout, stderr string) {
	t.Helper()
	if code != r.code {
		t.Errorf("%s: exit %d, want %d (stderr %q)", cmd, code, r.code, stderr)
	}
	for _, trace := range []string{"panic:", "goroutine ", "runtime error", ".go:"} {
		if strings.Contains(stderr, trace) {
			t.Errorf("%s: stderr holds %q: %q", cmd, trace, stderr)
		}
	}
	if r.code == 0 {
		if stderr != "" {
			t.Errorf("%s: stderr %q on success", cmd, stderr)
		}
		return
	}
	if strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") {
		t.Errorf("%s: stderr is not one line: %q", cmd, stderr)
	}
	if prefix := "cvar " + r.args[0] + ": "; !strings.HasPrefix(stderr, prefix) {
		t.Errorf("%s: stderr %q does not start with %q", cmd, stderr, prefix)
	}
	for _, w := range r.want {
		if !strings.Contains(stderr, w) {
			t.Errorf("%s: stderr %q lacks %q", cmd, stderr, w)
		}
	}
	if r.at != "" && !regexp.MustCompile(r.at).MatchString(stderr) {
		t.Errorf("%s: stderr %q does not match %q", cmd, stderr, r.at)
	}
	if stdout != "" {
		t.Errorf("%s: stdout %q on failure", cmd, stdout[:min(len(stdout), 200)])
	}
}

// bzip2 streams that compress/bzip2 cannot write, made with bzip2 -9:
// a megabyte of "0,1\n1,0\n", a megabyte of "0", the line "a,y\n", and
// IDX image headers (magic 0x801 for 2 images of 2×2 pixels and their 8
// bytes; 2³⁰ images of 28×28 pixels). Concatenated streams read as one.
const (
	bzRowsHex   = "425a68393141592653598ac5aef5044a9bd800001000046000200070334d04d506aa1089c542113250844e5421137950844d942113250844f314159265359a89195a2006cd5d800001000046000200070334d0294d46aa108f150846ca8423d542119508472a108e54211f177245385090bd1ac849"
	bzZerosHex  = "425a6839314159265359b373e57600080a4800800440000008200030cc0549ea71060140601e2ee48a70a12166e7caec"
	bzHeadHex   = "425a6839314159265359ebb1bd72000001518000100004200000202000219a68334d173c5dc914e14243aec6f5c8"
	bzSwapHex   = "425a683931415926535959573b60000004c000744020002111186682b6a744f8985dc914e14241655ced80"
	bzHugeIDXHx = "425a6839314159265359c36861430000026400584000044000200030c0087a47a2206e278d177245385090c3686143"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// bigBzip2 writes head and then the megabyte stream member, times times:
// a file of a few kilobytes that holds that many megabytes.
func bigBzip2(t *testing.T, dir, name string, head, member []byte, times int) string {
	t.Helper()
	out := append([]byte(nil), head...)
	for range times {
		out = append(out, member...)
	}
	return writeBytes(t, dir, name, out)
}

func writeBytes(t testing.TB, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// gzipped returns b gzip-compressed.
func gzipped(b []byte) []byte {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(b)
	zw.Close()
	return z.Bytes()
}

// idxImagesHeader is an IDX image file's header: magic, then dims.
func idxImagesHeader(magic uint32, dims ...uint32) []byte {
	b := binary.BigEndian.AppendUint32(nil, magic)
	for _, d := range dims {
		b = binary.BigEndian.AppendUint32(b, d)
	}
	return b
}

// badIDX writes an image file name+"-images-idx3-ubyte"+ext holding images
// and a valid label file of two labels beside it; it returns the image
// file's path.
func badIDX(t *testing.T, dir, name, ext string, images []byte) string {
	t.Helper()
	labels := append(idxImagesHeader(0x801, 2), 0, 1)
	writeBytes(t, dir, name+"-labels-idx1-ubyte"+ext, labels)
	return writeBytes(t, dir, name+"-images-idx3-ubyte"+ext, images)
}
