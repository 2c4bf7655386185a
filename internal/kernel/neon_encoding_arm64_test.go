//go:build gc && !purego

package kernel

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// A NEON macro of neon_arm64.h: its name, and its encoding and Go
// disassembly computed independently, from the ARM ARM field layout, for the
// given registers (m, n, d for a two-source form; n, d for a one-source form).
type neonMacro struct {
	name string
	args int // 3: (m, n, d); 2: (n, d)
	enc  func(m, n, d uint32) uint32
	text func(m, n, d uint32) string
}

// ARM ARM C4.1.69 "Advanced SIMD three same" (floating point):
// 0 Q U 01110 a sz 1 Rm opcode 1 Rn Rd.
func simd3(q, u, a, sz, opcode uint32) func(m, n, d uint32) uint32 {
	return func(m, n, d uint32) uint32 {
		return q<<30 | u<<29 | 0b01110<<24 | a<<23 | sz<<22 | 1<<21 | m<<16 | opcode<<11 | 1<<10 | n<<5 | d
	}
}

// "Advanced SIMD two-register miscellaneous": 0 Q U 01110 a sz 10000 opcode 10 Rn Rd.
func simd2(q, u, a, sz, opcode uint32) func(m, n, d uint32) uint32 {
	return func(_, n, d uint32) uint32 {
		return q<<30 | u<<29 | 0b01110<<24 | a<<23 | sz<<22 | 0b10000<<17 | opcode<<12 | 0b10<<10 | n<<5 | d
	}
}

// "Advanced SIMD scalar pairwise": 01 U 11110 a sz 11000 opcode 10 Rn Rd.
func scalarPair(u, sz, opcode uint32) func(m, n, d uint32) uint32 {
	return func(_, n, d uint32) uint32 {
		return 0b01<<30 | u<<29 | 0b11110<<24 | sz<<22 | 0b11000<<17 | opcode<<12 | 0b10<<10 | n<<5 | d
	}
}

func text3(op, arr string) func(m, n, d uint32) string {
	return func(m, n, d uint32) string {
		return fmt.Sprintf("%s V%d.%s, V%d.%s, V%d.%s", op, m, arr, n, arr, d, arr)
	}
}

func text2(op, src, dst string) func(m, n, d uint32) string {
	return func(_, n, d uint32) string { return fmt.Sprintf("%s V%d.%s, V%d.%s", op, n, src, d, dst) }
}

func textPair(op, arr string) func(m, n, d uint32) string {
	return func(_, n, d uint32) string { return fmt.Sprintf("%s V%d.%s, F%d", op, n, arr, d) }
}

var neonMacros = []neonMacro{
	{"VFADD_D2", 3, simd3(1, 0, 0, 1, 0b11010), text3("FADD", "D2")},
	{"VFSUB_D2", 3, simd3(1, 0, 1, 1, 0b11010), text3("FSUB", "D2")},
	{"VFMUL_D2", 3, simd3(1, 1, 0, 1, 0b11011), text3("FMUL", "D2")},
	{"VFDIV_D2", 3, simd3(1, 1, 0, 1, 0b11111), text3("FDIV", "D2")},
	{"VFMAX_D2", 3, simd3(1, 0, 0, 1, 0b11110), text3("FMAX", "D2")},
	{"VFMIN_D2", 3, simd3(1, 0, 1, 1, 0b11110), text3("FMIN", "D2")},
	{"VFCMGT_D2", 3, simd3(1, 1, 1, 1, 0b11100), text3("VFCMGT", "D2")},
	{"VFCMGE_D2", 3, simd3(1, 1, 0, 1, 0b11100), text3("VFCMGE", "D2")},
	{"VFABS_D2", 2, simd2(1, 0, 1, 1, 0b01111), text2("FABS", "D2", "D2")},
	{"VFNEG_D2", 2, simd2(1, 1, 1, 1, 0b01111), text2("FNEG", "D2", "D2")},
	{"VFADD_S4", 3, simd3(1, 0, 0, 0, 0b11010), text3("FADD", "S4")},
	{"VFSUB_S4", 3, simd3(1, 0, 1, 0, 0b11010), text3("FSUB", "S4")},
	{"VFMAX_S4", 3, simd3(1, 0, 0, 0, 0b11110), text3("FMAX", "S4")},
	{"VFADDP_S4", 3, simd3(1, 1, 0, 0, 0b11010), text3("VFADDP", "S4")},
	{"VFMAXP_S4", 3, simd3(1, 1, 0, 0, 0b11110), text3("VFMAXP", "S4")},
	{"VFCVTL_S2D", 2, simd2(0, 0, 0, 1, 0b10111), text2("VFCVTL", "S2", "D2")},
	{"VFCVTL2_S2D", 2, simd2(1, 0, 0, 1, 0b10111), text2("VFCVTL2", "S4", "D2")},
	{"VFCVTN_D2S", 2, simd2(0, 0, 0, 1, 0b10110), text2("VFCVTN", "D2", "S2")},
	{"VFCVTN2_D2S", 2, simd2(1, 0, 0, 1, 0b10110), text2("VFCVTN2", "D2", "S4")},
	{"VFMUL_S4", 3, simd3(1, 1, 0, 0, 0b11011), text3("FMUL", "S4")},
	{"VFCMGE_S4", 3, simd3(1, 1, 0, 0, 0b11100), text3("VFCMGE", "S4")},
	// BIC (vector, register) is integer "three same" 0 Q 0 01110 size 1 Rm
	// 00011 1 Rn Rd with size = 01: simd3's a = 0, sz = 1 spell that size.
	{"VBIC_B16", 3, simd3(1, 0, 0, 1, 0b00011), text3("VBIC", "B16")},
	{"VUCVTF_S4", 2, simd2(1, 1, 0, 0, 0b11101), text2("UCVTF", "S4", "S4")},
	{"VFCVTL_H2S", 2, simd2(0, 0, 0, 0, 0b10111), text2("VFCVTL", "H4", "S4")},
	{"VFCVTL2_H2S", 2, simd2(1, 0, 0, 0, 0b10111), text2("VFCVTL2", "H8", "S4")},
	{"FADDP_D", 2, scalarPair(1, 1, 0b01101), textPair("FADDP", "D2")},
	{"FADDP_S", 2, scalarPair(1, 0, 0b01101), textPair("FADDP", "S2")},
	{"FMAXP_D", 2, scalarPair(1, 1, 0b01111), textPair("FMAXP", "D2")},
	{"FMAXP_S", 2, scalarPair(1, 0, 0b01111), textPair("FMAXP", "S2")},
}

// TestNEONMacroEncodings assembles every macro of neon_arm64.h with several
// register choices, disassembles the object with `go tool objdump`, and checks
// that the word is the one the ARM ARM layout gives and that the disassembler
// names the intended instruction and registers. It also checks that the table
// above covers every macro the header defines and every one the generated
// kernel_arm64.s uses.
func TestNEONMacroEncodings(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
		if _, err := os.Stat(goBin); err != nil {
			t.Skip("go tool not found; cannot assemble")
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	hdr, err := os.ReadFile(filepath.Join(wd, "neon_arm64.h"))
	if err != nil {
		t.Fatal(err)
	}
	// Every instruction macro of the header is in the table, and vice versa.
	defined := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^#define ((?:V?F|VU|VBIC)[A-Z0-9_]+)\(`).FindAllStringSubmatch(string(hdr), -1) {
		defined[m[1]] = true
	}
	for _, m := range neonMacros {
		if !defined[m.name] {
			t.Errorf("macro %s is tested but not defined in neon_arm64.h", m.name)
		}
		delete(defined, m.name)
	}
	for name := range defined {
		t.Errorf("macro %s of neon_arm64.h has no encoding test", name)
	}
	// Every WORD-encoded instruction of the generated kernels is one of
	// those macros, so the checks below cover all of them.
	kernels, err := os.ReadFile(filepath.Join(wd, "kernel_arm64.s"))
	if err != nil {
		t.Fatal(err)
	}
	tested := map[string]bool{}
	for _, m := range neonMacros {
		tested[m.name] = true
	}
	used := regexp.MustCompile(`(?m)^\t((?:V?F|VU|VBIC)[A-Z0-9_]+)\(`).FindAllStringSubmatch(string(kernels), -1)
	if len(used) == 0 {
		t.Fatal("kernel_arm64.s uses no neon_arm64.h macro: the pattern above is out of date")
	}
	for _, m := range used {
		if !tested[m[1]] {
			t.Errorf("kernel_arm64.s uses %s, which has no encoding test", m[1])
		}
	}
	if regexp.MustCompile(`(?m)^\s*WORD\b`).Match(kernels) {
		t.Error("kernel_arm64.s writes a WORD directly; emit a tested neon_arm64.h macro instead")
	}

	goroot, err := exec.Command(goBin, "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("go env GOROOT: %v", err)
	}
	regs := [][3]uint32{{3, 2, 1}, {31, 17, 8}, {0, 30, 29}, {16, 0, 31}}
	type want struct {
		macro string
		word  uint32
		text  string
	}
	var src bytes.Buffer
	src.WriteString("#include \"textflag.h\"\n#include \"neon_arm64.h\"\nTEXT ·f(SB), NOSPLIT, $0-0\n")
	line := 3
	wants := map[int]want{}
	for _, m := range neonMacros {
		for _, r := range regs {
			line++
			if m.args == 3 {
				fmt.Fprintf(&src, "\t%s(%d, %d, %d)\n", m.name, r[0], r[1], r[2])
			} else {
				fmt.Fprintf(&src, "\t%s(%d, %d)\n", m.name, r[1], r[2])
			}
			wants[line] = want{m.name, m.enc(r[0], r[1], r[2]), m.text(r[0], r[1], r[2])}
		}
	}
	src.WriteString("\tRET\n")
	dir := t.TempDir()
	sfile := filepath.Join(dir, "m_arm64.s")
	if err := os.WriteFile(sfile, src.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	obj := filepath.Join(dir, "m.o")
	asm := exec.Command(goBin, "tool", "asm", "-p", "m",
		"-I", wd, "-I", filepath.Join(strings.TrimSpace(string(goroot)), "pkg", "include"), "-o", obj, sfile)
	asm.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64")
	if out, err := asm.CombinedOutput(); err != nil {
		t.Fatalf("go tool asm: %v\n%s", err, out)
	}
	out, err := exec.Command(goBin, "tool", "objdump", obj).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool objdump: %v\n%s", err, out)
	}
	// Lines look like: "  m_arm64.s:4  0x2b  4e63d441  FADD V3.D2, V2.D2, V1.D2".
	re := regexp.MustCompile(`m_arm64\.s:(\d+)\s+0x[0-9a-f]+\s+([0-9a-f]{8})\s+(.*?)\s*$`)
	seen := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		mm := re.FindStringSubmatch(sc.Text())
		if mm == nil {
			continue
		}
		ln, _ := strconv.Atoi(mm[1])
		w, ok := wants[ln]
		if !ok {
			continue
		}
		seen++
		// objdump prints an arm64 instruction as its 32-bit word in hex.
		word, _ := strconv.ParseUint(mm[2], 16, 32)
		if uint32(word) != w.word {
			t.Errorf("line %d %s: word %#08x, ARM ARM layout gives %#08x", ln, w.macro, word, w.word)
		}
		if mm[3] != w.text {
			t.Errorf("line %d %s: disassembles as %q, want %q", ln, w.macro, mm[3], w.text)
		}
	}
	if seen != len(wants) {
		t.Fatalf("objdump listed %d of %d macro instructions:\n%s", seen, len(wants), out)
	}
}
