package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cvarlearn/cvar/kernel"
)

// TestTablesCurrent: every table of README.md and docs/*.md whose command
// takes seconds on the built-in data is what that command prints today.
func TestTablesCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("the tables' commands build cvar and train for seconds; the full run checks them")
	}
	if _, err := kernel.Lookup(pagesKernel); err != nil {
		t.Skipf("the pages show the %s kernels' output, which this build or CPU lacks (%v)", pagesKernel, err)
	}
	var log strings.Builder
	r := runner{log: &log}
	defer r.close()
	stale, err := r.pages(filepath.Join("..", ".."), true)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stale {
		t.Error(s + "\n(go run ./internal/doctables rewrites it)")
	}
	t.Log(log.String())
}

// TestTablesRewrite runs the program on pages of a tree of its own, with
// sh commands standing in for cvar: it rewrites a stale table, keeping
// the page's columns and header, leaves a table marked (minutes) alone
// without -all, reports with check instead of writing, and refuses a
// comment with no table after it.
func TestTablesRewrite(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := `printf 'Title\n\n| data | method | x |\n|---|---|---:|\n| a | m1 | 1 |\n| a | m2 | 2 |\n\n| data | y |\n|---|---|\n| a | 9 |\n'`
	page := "# p\n\n<!-- table: " + out + " -->\n| method | x |\n|---|---:|\n| m1 | 0 |\n\n" +
		"<!-- table (minutes): " + out + " -->\n| x |\n|---|\n| old |\n\ntext\n"
	readme := filepath.Join(root, "README.md")
	for p, s := range map[string]string{readme: "# r\n", filepath.Join(root, "docs", "p.md"): page} {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := runner{log: io.Discard, bin: t.TempDir()}
	stale, err := r.pages(root, true)
	if err != nil || len(stale) != 1 || !strings.Contains(stale[0], "p.md:3: the table is not what") {
		t.Fatalf("check: %q, %v", stale, err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "docs", "p.md")); string(got) != page {
		t.Fatalf("check wrote the page:\n%s", got)
	}
	if _, err := r.pages(root, false); err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(page, "| m1 | 0 |\n", "| m1 | 1 |\n| m2 | 2 |\n", 1)
	if got, _ := os.ReadFile(filepath.Join(root, "docs", "p.md")); string(got) != want {
		t.Errorf("rewritten page:\n%s\nwant:\n%s", got, want)
	}
	r.all = true
	if _, err := r.pages(root, false); err != nil {
		t.Fatal(err)
	}
	want = strings.Replace(want, "| old |\n", "| 1 |\n| 2 |\n", 1)
	if got, _ := os.ReadFile(filepath.Join(root, "docs", "p.md")); string(got) != want {
		t.Errorf("with -all:\n%s\nwant:\n%s", got, want)
	}
	if err := os.WriteFile(readme, []byte("<!-- table: true -->\ntext\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := r.pages(root, true); err == nil || !strings.Contains(err.Error(), "README.md:1: no Markdown table") {
		t.Errorf("a comment without a table: %v", err)
	}
}

// TestTablesRepoAndOnly: a command finds the tree's root in $REPO, and
// -only leaves the tables of the other commands alone.
func TestTablesRepoAndOnly(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		filepath.Join(root, "README.md"): "# r\n",
		filepath.Join(root, "t.md"):      "| x |\n|---|\n| from the tree |\n",
		filepath.Join(root, "docs", "p.md"): "<!-- table: cat \"$REPO\"/t.md -->\n| x |\n|---|\n| old |\n\n" +
			"<!-- table: printf '| x |\\n|---|\\n| other |\\n' -->\n| x |\n|---|\n| kept |\n",
	}
	for p, s := range files {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var log strings.Builder
	r := runner{log: &log, only: "REPO", bin: t.TempDir()}
	if _, err := r.pages(root, false); err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(files[filepath.Join(root, "docs", "p.md")], "| old |", "| from the tree |", 1)
	if got, _ := os.ReadFile(filepath.Join(root, "docs", "p.md")); string(got) != want {
		t.Errorf("rewritten page:\n%s\nwant:\n%s", got, want)
	}
	if !strings.Contains(log.String(), "p.md:6: not run (not named by -only)") {
		t.Errorf("log %q does not say why the second table was not run", log.String())
	}
}
