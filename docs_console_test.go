package cvar_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar/kernel"
)

// The console blocks of README.md and docs/*.md show what a command prints:
// TestDocsConsoleBlocks runs them and compares. A console block is a fenced
// block whose first line starts with "$ ": each such line is a command, run
// by sh in a directory of the block's own (so a block may create the files
// its later commands read), and the lines up to the next command are what
// it prints: its standard output when it succeeds, its standard output and
// then its standard error when it fails (exit status not 0). Progress lines
// on the standard error of a run that succeeds are not compared. A command
// the page shows printing nothing must succeed; what it prints is left out.
//
// "…" (or "...") stands for what the page leaves out: a line of its own
// matches any lines, none included; within a line it matches any text on
// that line (a wall time, say). Everything else is compared as printed,
// every digit, trailing spaces aside.
//
// A block that cannot run here (MNIST, a file of the reader's own, another
// machine) has, on the line right before its fence, a comment
//
//	<!-- not run: the reason -->
//
// which the test lists with its reason.

// docsNotRun is the comment that marks a console block that is not run.
var docsNotRun = regexp.MustCompile(`^<!--\s*not run:\s*(.*?)\s*-->$`)

// docsConsoleBlock is a console block: its page, the line of its first
// command, its text, and the reason it is not run ("" when it is run).
type docsConsoleBlock struct {
	page   string
	line   int
	text   []string
	notRun string
}

// docsConsoleBlocks returns the console blocks of the pages, and the
// problems of their markers: a "not run" comment with no reason or before
// a block that is not a console block.
func docsConsoleBlocks(t *testing.T, pages []string) (blocks []docsConsoleBlock, problems []string) {
	for _, p := range pages {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(src), "\n")
		for i := 0; i < len(lines); i++ {
			m := mdFence.FindStringSubmatch(lines[i])
			if m == nil {
				continue
			}
			start := i
			var body []string
			for i++; i < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[i]), m[1]); i++ {
				body = append(body, lines[i])
			}
			notRun, marked := "", false
			if start > 0 {
				if mm := docsNotRun.FindStringSubmatch(strings.TrimSpace(lines[start-1])); mm != nil {
					notRun, marked = strings.TrimSpace(mm[1]), true
				}
			}
			console := len(body) > 0 && strings.HasPrefix(body[0], "$ ")
			switch {
			case marked && !console:
				problems = append(problems, mdProblem(p, start, "a \"not run\" comment before a block that is no console block"))
			case marked && notRun == "":
				problems = append(problems, mdProblem(p, start, "a \"not run\" comment without its reason"))
			}
			if console {
				blocks = append(blocks, docsConsoleBlock{page: p, line: start + 2, text: body, notRun: notRun})
			}
		}
	}
	return blocks, problems
}

// docsConsoleKernel is the kernel implementation whose output the pages
// show. The others round some sums differently (the order of their fused
// multiply-adds), which changes the last printed digits of a long run.
const docsConsoleKernel = "avx512"

// TestDocsConsoleBlocks runs every console block of README.md and docs/*.md
// that is not marked "not run" with the cvar and cvargen built from this
// tree, and compares what each command prints with the page.
func TestDocsConsoleBlocks(t *testing.T) {
	t.Parallel()
	pages, _ := filepath.Glob("docs/*.md")
	blocks, problems := docsConsoleBlocks(t, append([]string{"README.md"}, pages...))
	for _, p := range problems {
		t.Error(p)
	}
	run := 0
	for _, b := range blocks {
		if b.notRun != "" {
			t.Logf("%s:%d: not run: %s", b.page, b.line, b.notRun)
		} else {
			run++
		}
	}
	if run < 10 {
		t.Errorf("%d console blocks to run in the docs; the reader lost them", run)
	}
	if testing.Short() {
		t.Skip("running the docs' commands builds cvar and takes seconds; the full run checks them")
	}
	if _, err := kernel.Lookup(docsConsoleKernel); err != nil {
		t.Skipf("the docs show the output of the %s kernels, which this build or CPU lacks (%v)", docsConsoleKernel, err)
	}
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to build cvar with: %v", err)
	}
	bin := t.TempDir()
	build := exec.Command(gotool, "build", "-o", bin+string(filepath.Separator), "./cmd/cvar", "./cmd/cvargen")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// The commands run without the test's GODEBUG (a CI leg's CPU features
	// switched off), so that they take the kernels the pages show.
	var env []string
	for _, v := range os.Environ() {
		if !strings.HasPrefix(v, "GODEBUG=") && !strings.HasPrefix(v, "CVAR_KERNEL=") && !strings.HasPrefix(v, "PATH=") {
			env = append(env, v)
		}
	}
	env = append(env, "PATH="+bin+string(filepath.ListSeparator)+os.Getenv("PATH"), "CVAR_KERNEL="+docsConsoleKernel)
	for _, b := range blocks {
		if b.notRun != "" {
			continue
		}
		t.Run(strings.ReplaceAll(b.page, "/", "_")+":"+strconv.Itoa(b.line), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for _, c := range docsCommands(b.text) {
				got, failed := docsRun(t, dir, env, c.command)
				if len(c.want) == 0 && failed {
					t.Errorf("%s:%d: $ %s fails:\n%s", b.page, b.line+c.offset, c.command, strings.Join(got, "\n"))
				}
				if len(c.want) > 0 && !docsMatch(c.want, got) {
					t.Errorf("%s:%d: $ %s\nprints:\n%s\nthe page shows:\n%s", b.page, b.line+c.offset, c.command,
						strings.Join(got, "\n"), strings.Join(c.want, "\n"))
				}
			}
		})
	}
}

// docsCommand is a command of a console block, the lines the page shows it
// printing, and its line's offset in the block.
type docsCommand struct {
	command string
	want    []string
	offset  int
}

// docsCommands splits a console block into its commands.
func docsCommands(text []string) []docsCommand {
	var cs []docsCommand
	for i, l := range text {
		if c, ok := strings.CutPrefix(l, "$ "); ok {
			cs = append(cs, docsCommand{command: c, offset: i})
			continue
		}
		if len(cs) > 0 {
			cs[len(cs)-1].want = append(cs[len(cs)-1].want, l)
		}
	}
	for i := range cs {
		cs[i].want = docsTrim(cs[i].want)
	}
	return cs
}

// docsRun runs command with sh in dir and returns the lines it printed
// (standard output, and standard error after it when the command failed)
// and whether it failed.
func docsRun(t *testing.T, dir string, env []string, command string) (lines []string, failed bool) {
	t.Helper()
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if _, failed := err.(*exec.ExitError); err != nil && !failed {
		t.Fatalf("$ %s: %v", command, err)
	}
	out := stdout.String()
	if err != nil {
		out += stderr.String()
	}
	return docsTrim(strings.Split(out, "\n")), err != nil
}

// docsTrim removes trailing spaces from each line and empty lines at the
// end.
func docsTrim(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimRight(l, " \t\r")
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// docsElided reports whether a line of a page stands for any lines.
func docsElided(l string) bool {
	l = strings.TrimSpace(l)
	return l == "…" || l == "..."
}

// docsMatch reports whether the printed lines got match the page's lines
// want, where "…" stands for what the page leaves out.
func docsMatch(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if docsElided(want[0]) {
		for k := 0; k <= len(got); k++ {
			if docsMatch(want[1:], got[k:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && docsLineMatch(want[0], got[0]) && docsMatch(want[1:], got[1:])
}

// docsLineMatch reports whether a printed line matches a page's line, in
// which "…" stands for any text.
func docsLineMatch(want, got string) bool {
	if !strings.Contains(want, "…") {
		return want == got
	}
	parts := strings.Split(want, "…")
	for i := range parts {
		parts[i] = regexp.QuoteMeta(parts[i])
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$").MatchString(got)
}

// TestDocsConsoleMatch: the comparison of TestDocsConsoleBlocks holds a
// page to every printed line and digit, except where the page shows "…".
func TestDocsConsoleMatch(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		want, got string
		match     bool
	}{
		{"a\nb", "a\nb", true},
		{"a\nb", "a\nb\nc", false},
		{"a\n…\nc", "a\nb\nb\nc", true},
		{"a\n…\nc", "a\nc", true},
		{"a\n...\nc", "a\nc\nd", false},
		{"…\nc", "a\nb\nc", true},
		{"x 0.7772", "x 0.7773", false},
		{"x 0.777", "x 0.7772", false},
		{`  "seconds": …`, `  "seconds": 0.062310053`, true},
		{`  "seconds": …,`, `  "seconds": 0.06`, false},
	} {
		if got := docsMatch(strings.Split(c.want, "\n"), strings.Split(c.got, "\n")); got != c.match {
			t.Errorf("the page's %q against the printed %q: match %v, want %v", c.want, c.got, got, c.match)
		}
	}
	blocks, problems := docsConsoleBlocksOf(t, "```\n$ cvar train\nout\n```\n\n<!-- not run: MNIST -->\n```console\n$ cvar train -data $MNIST\n```\n"+
		"<!-- not run: -->\n```\n$ x\n```\n<!-- not run: why -->\n```sh\ncvar train\n```\n")
	if len(blocks) != 3 || blocks[0].notRun != "" || blocks[1].notRun != "MNIST" || blocks[0].line != 2 {
		t.Errorf("blocks %+v", blocks)
	}
	if len(problems) != 2 || !strings.Contains(problems[0], "without its reason") || !strings.Contains(problems[1], "no console block") {
		t.Errorf("problems %q", problems)
	}
}

// docsConsoleBlocksOf returns the console blocks of a page held in memory.
func docsConsoleBlocksOf(t *testing.T, page string) ([]docsConsoleBlock, []string) {
	p := filepath.Join(t.TempDir(), "page.md")
	if err := os.WriteFile(p, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	return docsConsoleBlocks(t, []string{p})
}

// docsLocalPath matches a path that only the machines the project is built
// on have: the data beside the repository, a home or work directory.
var docsLocalPath = regexp.MustCompile(`\.\./shared\b|(^|[\s("'` + "`" + `])/(work|home|Users)/`)

// TestDocsNoLocalPaths: the pages name no path a reader does not have.
func TestDocsNoLocalPaths(t *testing.T) {
	t.Parallel()
	pages, _ := filepath.Glob("docs/*.md")
	for _, p := range append([]string{"README.md", "beam/README.md", "python/README.md"}, pages...) {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range strings.Split(string(src), "\n") {
			if m := docsLocalPath.FindString(l); m != "" {
				t.Errorf("%s:%d: %q names a path of one machine: %s", p, i+1, strings.TrimSpace(m), l)
			}
		}
	}
	for _, l := range []string{"see ../shared/data", "`/work/main/x.go`", "cd /home/me"} {
		if !docsLocalPath.MatchString(l) {
			t.Errorf("%q: not found", l)
		}
	}
	for _, l := range []string{"go build -o /tmp/cvarbench", "a/work/b", "../README.md"} {
		if docsLocalPath.MatchString(l) {
			t.Errorf("%q: found", l)
		}
	}
}
