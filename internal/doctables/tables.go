package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// pagesKernel is the kernel implementation whose output the pages show.
// The others round some sums differently. That changes the last digits of
// a long run.
const pagesKernel = "avx512"

// marker is the comment before a generated table: whether it takes minutes,
// and its command.
var marker = regexp.MustCompile(`^<!--\s*table(\s*\(minutes\))?:\s*(.+?)\s*-->$`)

// runner regenerates or checks the tables of a tree's pages.
type runner struct {
	all   bool      // also the tables marked (minutes)
	only  string    // run only the commands holding this text; "" for all
	mnist string    // the MNIST directory, "" for none
	log   io.Writer // what was skipped, and why
	bin   string    // the directory of the programs built from the tree; "" until built
	own   bool      // bin is a temporary directory of the runner's, which close removes
}

// close removes what the runner built.
func (r *runner) close() {
	if r.own {
		os.RemoveAll(r.bin)
		r.bin, r.own = "", false
	}
}

// pages regenerates the tables of README.md and docs/*.md under root. With
// check it compares them instead. It returns a line for each table that
// differed.
func (r *runner) pages(root string, check bool) (stale []string, err error) {
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	for _, p := range append([]string{filepath.Join(root, "README.md")}, pages...) {
		s, err := r.page(root, p, check)
		if err != nil {
			return nil, err
		}
		stale = append(stale, s...)
	}
	return stale, nil
}

// page regenerates or checks the tables of one page.
func (r *runner) page(root, path string, check bool) (stale []string, err error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(src), "\n")
	changed := false
	for i := 0; i+1 < len(lines); i++ {
		m := marker.FindStringSubmatch(strings.TrimSpace(lines[i]))
		if m == nil {
			continue
		}
		where := fmt.Sprintf("%s:%d", filepath.ToSlash(path), i+1)
		command, minutes := m[2], m[1] != ""
		if skip := r.skip(command, minutes); skip != "" {
			fmt.Fprintf(r.log, "%s: not run (%s): %s\n", where, skip, command)
			continue
		}
		table := tableAt(lines, i+1)
		if len(table) < 2 {
			return nil, fmt.Errorf("%s: no Markdown table after the table comment", where)
		}
		fmt.Fprintf(r.log, "%s: running: %s\n", where, command)
		out, err := r.run(root, command)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %v", where, command, err)
		}
		rows, err := project(table[0], out)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %v", where, command, err)
		}
		fresh := append([]string{table[0], table[1]}, rows...)
		if strings.Join(fresh, "\n") == strings.Join(table, "\n") {
			continue
		}
		if check {
			stale = append(stale, fmt.Sprintf("%s: the table is not what `%s` prints now:\n%s", where, command, strings.Join(fresh, "\n")))
			continue
		}
		lines = append(lines[:i+1], append(fresh, lines[i+1+len(table):]...)...)
		changed = true
	}
	if changed {
		return nil, writeFile(path, []byte(strings.Join(lines, "\n")))
	}
	return stale, nil
}

// skip returns why a table's command is not run, or "".
func (r *runner) skip(command string, minutes bool) string {
	switch {
	case r.only != "" && !strings.Contains(command, r.only):
		return "not named by -only"
	case minutes && !r.all:
		return "takes minutes; -all runs it"
	case strings.Contains(command, "$MNIST") && r.mnist == "":
		return "needs MNIST's files: set MNIST to their directory"
	}
	return ""
}

// tableAt returns the lines of the Markdown table that starts at line i.
func tableAt(lines []string, i int) []string {
	j := i
	for j < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[j]), "|") {
		j++
	}
	return lines[i:j]
}

// run runs command in sh in an empty directory and returns its standard
// output. The programs built from the tree under root come first on PATH.
func (r *runner) run(root, command string) (string, error) {
	if err := r.build(root); err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "doctables")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir = dir
	if cmd.Env, err = r.env(root); err != nil {
		return "", err
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// env is the environment of a command, based on this process's. The
// programs built from the tree come first on PATH. CVAR_KERNEL names the
// kernels the pages show, and MNIST is the runner's. REPO names the tree's
// root, so that a command can run a script of the repository. GODEBUG is
// dropped: a CI leg may switch CPU features off with it. So the programs
// take the pages' kernels.
func (r *runner) env(root string) ([]string, error) {
	repo, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	var env []string
	for _, v := range os.Environ() {
		name, _, _ := strings.Cut(v, "=")
		switch name {
		case "GODEBUG", "CVAR_KERNEL", "PATH", "MNIST", "REPO":
		default:
			env = append(env, v)
		}
	}
	return append(env, "PATH="+r.bin+string(filepath.ListSeparator)+os.Getenv("PATH"), "CVAR_KERNEL="+pagesKernel, "MNIST="+r.mnist, "REPO="+repo), nil
}

// build builds cvar, cvargen and cvarbench from the tree under root, once.
func (r *runner) build(root string) error {
	if r.bin != "" {
		return nil
	}
	bin, err := os.MkdirTemp("", "doctables-bin")
	if err != nil {
		return err
	}
	cmd := exec.Command("go", "build", "-o", bin+string(filepath.Separator), "./cmd/cvar", "./cmd/cvargen", "./cmd/cvarbench")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		os.RemoveAll(bin)
		return fmt.Errorf("go build: %v\n%s", err, out)
	}
	r.bin, r.own = bin, true
	return nil
}

// cells returns the cells of a Markdown table row.
func cells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimSuffix(strings.TrimPrefix(row, "|"), "|")
	cs := strings.Split(row, "|")
	for i := range cs {
		cs[i] = strings.TrimSpace(cs[i])
	}
	return cs
}

// project returns the rows of the first table in out whose header holds
// every column of header. Each row has the cells of those columns, in
// header's order.
func project(header, out string) ([]string, error) {
	want := cells(header)
	lines := strings.Split(out, "\n")
	for i := 0; i+1 < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "|") || !strings.HasPrefix(lines[i+1], "|-") {
			continue
		}
		cols, ok := columns(cells(lines[i]), want)
		if !ok {
			continue
		}
		var rows []string
		for _, l := range tableAt(lines, i+2) {
			cs := cells(l)
			picked := make([]string, len(cols))
			for k, c := range cols {
				if c >= len(cs) {
					return nil, fmt.Errorf("row %q has no column %q", l, want[k])
				}
				picked[k] = cs[c]
			}
			rows = append(rows, "| "+strings.Join(picked, " | ")+" |")
		}
		return rows, nil
	}
	return nil, fmt.Errorf("it prints no table with the columns %q", want)
}

// columns returns the index in have of each name of want.
func columns(have, want []string) ([]int, bool) {
	idx := make([]int, len(want))
	for k, w := range want {
		idx[k] = -1
		for c, h := range have {
			if h == w {
				idx[k] = c
				break
			}
		}
		if idx[k] < 0 {
			return nil, false
		}
	}
	return idx, true
}

// writeFile replaces path's contents through a temporary file in its
// directory. A failed write so leaves the page as it was.
func writeFile(path string, data []byte) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(info.Mode().Perm()); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
