// Package apitest keeps the public surface of a module's packages in
// testdata/api, one file a package. A change of the surface then shows as
// a diff of those files. The listing is go doc -all for linux/amd64
// without the doc text.
package apitest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Check compares each public package of the module at the working
// directory with its file in testdata/api. The module's path is module.
// With update, it rewrites the files instead. Its failures name regen, the
// command that rewrites them. It runs go doc, so it skips under -short.
func Check(t *testing.T, module, regen string, update bool) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs go doc on every public package; the full test run checks it")
	}
	// go test puts its own toolchain's bin first on the PATH.
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command: %v", err)
	}
	pkgs := publicPackages(t, goTool)
	if len(pkgs) == 0 {
		t.Fatal("go list found no public package")
	}
	dir := filepath.Join("testdata", "api")
	want := map[string]bool{}
	for _, pkg := range pkgs {
		name := apiFile(module, pkg)
		want[name] = true
		got := apiListing(t, goTool, pkg)
		path := filepath.Join(dir, name)
		if update {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		golden, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: %v; regenerate with %s", pkg, err, regen)
			continue
		}
		if !bytes.Equal(got, golden) {
			t.Errorf("the public surface of %s differs from %s; if the change is meant, regenerate with %s\n%s",
				pkg, path, regen, lineDiff(string(golden), string(got)))
		}
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if want[filepath.Base(f)] {
			continue
		}
		if update {
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s lists no public package; regenerate with %s", f, regen)
	}
}

// publicPackages are the module's importable packages: not main, not under
// an internal directory.
func publicPackages(t *testing.T, goTool string) []string {
	t.Helper()
	out := goCmd(t, goTool, "list", "-f", "{{.Name}} {{.ImportPath}}", "./...")
	var pkgs []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		name, path, ok := strings.Cut(line, " ")
		if !ok || name == "main" || strings.HasSuffix(path, "/internal") || strings.Contains(path, "/internal/") {
			continue
		}
		pkgs = append(pkgs, path)
	}
	slices.Sort(pkgs)
	return pkgs
}

// apiFile names the file of package pkg: its path below the module, with
// "/" as "_", or the module's last element for its root package.
func apiFile(module, pkg string) string {
	rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
	if rel == "" {
		rel = module[strings.LastIndex(module, "/")+1:]
	}
	return strings.ReplaceAll(rel, "/", "_") + ".txt"
}

// apiListing is go doc -all of pkg for linux/amd64 without its doc text:
// the package clause, then each section's declarations with the
// comments inside them dropped and the spaces that align them collapsed.
func apiListing(t *testing.T, goTool, pkg string) []byte {
	t.Helper()
	out := goCmd(t, goTool, "doc", "-all", pkg)
	lines := strings.Split(string(out), "\n")
	var b strings.Builder
	b.WriteString(lines[0] + "\n")
	inDecl := false
	for _, line := range lines[1:] {
		switch {
		case apiSection.MatchString(line):
			inDecl = true
			b.WriteString("\n" + line + "\n")
		case !inDecl, strings.HasPrefix(line, "    "), strings.TrimSpace(line) == "":
			// The package's doc, a declaration's doc text, or a blank line.
		case apiComment.MatchString(line):
		default:
			// Alignment follows the comments dropped: one space between words.
			line = apiTrailing.ReplaceAllString(line, "")
			indent := line[:len(line)-len(strings.TrimLeft(line, "\t "))]
			b.WriteString(indent + strings.Join(strings.Fields(line), " ") + "\n")
		}
	}
	return []byte(b.String())
}

var (
	apiSection  = regexp.MustCompile(`^(CONSTANTS|VARIABLES|FUNCTIONS|TYPES)$`)
	apiComment  = regexp.MustCompile(`^\s*//`)
	apiTrailing = regexp.MustCompile(`\s+//\s.*$`)
)

// goCmd runs the go command for linux/amd64 in the module's root, so that
// the listing is the same on every machine.
func goCmd(t *testing.T, goTool string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(goTool, args...)
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=amd64", "GOWORK=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// lineDiff lists the lines only in want (-) and only in got (+), or, when
// only their order differs, the first line where they part.
func lineDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for _, l := range wl {
		if !slices.Contains(gl, l) {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range gl {
		if !slices.Contains(wl, l) {
			b.WriteString("+ " + l + "\n")
		}
	}
	if b.Len() > 0 {
		return b.String()
	}
	for i := range min(len(wl), len(gl)) {
		if wl[i] != gl[i] {
			return fmt.Sprintf("line %d: %q, was %q", i+1, gl[i], wl[i])
		}
	}
	return fmt.Sprintf("%d lines, were %d", len(gl), len(wl))
}
