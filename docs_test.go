package cvar_test

import (
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// The documentation's links and cited paths are checked against the
// repository: README.md and docs/*.md may link only to files and headings
// that exist, and a repository path they cite in backticks must exist.

// TestDocsLinksAndPaths checks README.md and every docs/*.md: each relative
// link reaches a file or directory of the repository (and, with #anchor,
// a heading of the Markdown file it names), and each repository path cited
// in inline code exists.
func TestDocsLinksAndPaths(t *testing.T) {
	t.Parallel()
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append([]string{"README.md"}, pages...)
	set := mdSet{
		files:  map[string]string{},
		exists: func(p string) bool { _, err := os.Stat(filepath.FromSlash(p)); return err == nil },
		names:  map[string]bool{},
	}
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		set.files[filepath.ToSlash(p)] = string(b)
	}
	err = filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		set.names[d.Name()] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range set.check() {
		t.Error(p)
	}
}

// TestDocsCheckerFindsBrokenLinks runs the checker on pages held in memory:
// it must report the broken link, the missing anchor and the missing cited
// path, and nothing about the good links, the code blocks or the tokens
// that are not repository paths.
func TestDocsCheckerFindsBrokenLinks(t *testing.T) {
	t.Parallel()
	repo := map[string]bool{"README.md": true, "docs": true, "docs/guide.md": true, "batch": true, "batch/engine.go": true, "kernel": true, "kernel/_asm": true}
	set := mdSet{
		files: map[string]string{
			"README.md": "# cvar\n\nSee [the guide](docs/guide.md#sparse-data), [training](docs/guide.md#train-a-model-α--01) and [engine](batch/engine.go).\n" +
				"Broken: [cli](docs/cli.md) and [gone](docs/guide.md#no-such-heading).\n\n" +
				"## Speed: `go test -bench`\n\nUp: [speed](#speed-go-test--bench). Code: `batch/engine.go`, `kernel/_asm/`, `./batch/`,\n" +
				"`batch/missing.go`, `github.com/cvarlearn/cvar/batch`, `-data`, `kernel/*.s`, `/tmp/x.go`, `../shared/data/mnist/`,\n" +
				"`engine.go`, `nowhere.go`, `math/big`, `out.csv`, `golang.org/x/sys/cpu/cpu.go`, `_generate/`.\n\n" +
				"```sh\n# not a heading\ncat [x](missing.md) `batch/nothere.go`\n```\n",
			"docs/guide.md": "# Guide\n\n## Sparse data\n\n## Train a model (α = 0.1)\n\nBack to the [readme](../README.md#cvar); a [code link](../batch/engine.go#L10).\n",
		},
		exists: func(p string) bool { return repo[p] },
		names:  map[string]bool{"README.md": true, "docs": true, "guide.md": true, "batch": true, "engine.go": true, "kernel": true, "_asm": true},
	}
	got := set.check()
	want := []string{
		"README.md:4: link docs/cli.md: docs/cli.md does not exist",
		"README.md:4: link docs/guide.md#no-such-heading: docs/guide.md has no heading #no-such-heading",
		"README.md:9: `batch/missing.go` does not exist",
		"README.md:10: `nowhere.go` is no file of the repository",
	}
	if !slices.Equal(got, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for heading, slug := range map[string]string{
		"Speed: `go test -bench`":             "speed-go-test--bench",
		"Train a model (α = 0.1)":             "train-a-model-α--01",
		"[Formats](formats.md) & limits":      "formats--limits",
		"CVaR_α and **VaR** — what they mean": "cvar_α-and-var--what-they-mean",
	} {
		if got := mdSlug(heading); got != slug {
			t.Errorf("slug of %q = %q, want %q", heading, got, slug)
		}
	}
}

// mdSet is a set of Markdown pages (path from the repository root → text)
// and what the checker needs to know of the repository: whether a path
// (slash-separated, from the root) exists, and the names of its files and
// directories.
type mdSet struct {
	files  map[string]string
	exists func(string) bool
	names  map[string]bool
}

// mdPage is what a page holds: its anchors and its references.
type mdPage struct {
	anchors map[string]bool
	links   []mdRef // link and image targets, reference definitions, HTML src/href
	code    []mdRef // the words of inline code spans
}

// mdRef is a string found on a line of a page.
type mdRef struct {
	line int
	text string
}

// check returns the problems of every page, "page:line: what", sorted by
// page and line.
func (s mdSet) check() []string {
	var out []string
	parsed := map[string]mdPage{}
	page := func(p string) (mdPage, bool) {
		if pg, ok := parsed[p]; ok {
			return pg, true
		}
		src, ok := s.files[p]
		if !ok {
			b, err := os.ReadFile(filepath.FromSlash(p))
			if err != nil || s.exists == nil || !s.exists(p) {
				return mdPage{}, false
			}
			src = string(b)
		}
		parsed[p] = parseMarkdown(src)
		return parsed[p], true
	}
	names := make([]string, 0, len(s.files))
	for p := range s.files {
		names = append(names, p)
	}
	slices.Sort(names)
	for _, p := range names {
		pg, _ := page(p)
		for _, l := range pg.links {
			if msg := s.checkLink(p, pg, l.text, page); msg != "" {
				out = append(out, mdProblem(p, l.line, "link "+l.text+": "+msg))
			}
		}
		for _, c := range pg.code {
			if msg := s.checkPath(c.text); msg != "" {
				out = append(out, mdProblem(p, c.line, msg))
			}
		}
	}
	return out
}

func mdProblem(p string, line int, msg string) string {
	return p + ":" + strconv.Itoa(line) + ": " + msg
}

// mdScheme matches a link with a URL scheme (https:, mailto:, …): not a
// file of the repository.
var mdScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// checkLink returns what is wrong with link target l on page p, or "".
func (s mdSet) checkLink(p string, pg mdPage, l string, page func(string) (mdPage, bool)) string {
	if mdScheme.MatchString(l) || strings.HasPrefix(l, "//") {
		return "" // a URL: outside the repository, not checked here
	}
	file, anchor, _ := strings.Cut(l, "#")
	if f, err := url.PathUnescape(file); err == nil {
		file = f
	}
	if a, err := url.PathUnescape(anchor); err == nil {
		anchor = a
	}
	target := p
	if file != "" {
		if strings.HasPrefix(file, "/") { // GitHub resolves /x from the repository root
			target = path.Clean(strings.TrimPrefix(file, "/"))
		} else {
			target = path.Join(path.Dir(p), file)
		}
		if target == ".." || strings.HasPrefix(target, "../") {
			return "outside the repository"
		}
		if !s.exists(target) {
			return target + " does not exist"
		}
	}
	if anchor == "" || !strings.HasSuffix(target, ".md") {
		return "" // line anchors (#L10) of other files are GitHub's
	}
	tp := pg
	if target != p {
		var ok bool
		if tp, ok = page(target); !ok {
			return target + " cannot be read"
		}
	}
	if !tp.anchors[anchor] && !tp.anchors[strings.ToLower(anchor)] {
		return target + " has no heading #" + anchor
	}
	return ""
}

// mdPathExts are the extensions of the repository's own files that a page
// cites: source, scripts, pages and figures. Data and output file names in
// examples (train.csv, model.cvar, out.json) are not among them: they name
// the user's files, not the repository's.
var mdPathExts = []string{".go", ".s", ".h", ".md", ".sh", ".py", ".mod", ".sum", ".png", ".svg"}

// mdPathChars is what a repository path is made of; a word with anything
// else (a glob's * or [, a flag's =, <placeholders>, $VARS) is not one.
var mdPathChars = regexp.MustCompile(`^[A-Za-z0-9_./-]+$`)

// mdLineSuffix is the :line or :line:col that may follow a cited file.
var mdLineSuffix = regexp.MustCompile(`(:[0-9]+)+$`)

// checkPath returns what is wrong with word w of an inline code span, or ""
// when it is a repository path that exists or no repository path at all.
// A word that ends in "/" or has one of mdPathExts is checked as follows:
//   - a path of two or more elements must exist from the repository root,
//     when its first element is there (batch/, kernel/, docs/, …); Go
//     import paths (github.com/…, golang.org/x/…) and other projects'
//     files start elsewhere and are left alone;
//   - a file name alone must be the name of some file of the repository (a
//     page may call kernel/driver.go driver.go where the context says so);
//   - a directory of one element is checked only as ./x/, from the root:
//     pages also cite other projects' directories that way (x/crypto's
//     _asm/, klauspost/compress's _generate/).
//
// Never checked: flags (-data), absolute paths (/tmp/…, /dev/full, which
// are the machine's, not the repository's), paths that climb out of it
// (../shared/data/mnist: the test data, which lives beside the repository
// and is never committed), URLs, globs (kernel/*.s) and patterns (./...).
func (s mdSet) checkPath(w string) string {
	w = strings.TrimRight(w, ".,;:)")
	w = strings.TrimLeft(w, "(")
	w = mdLineSuffix.ReplaceAllString(w, "")
	switch {
	case w == "" || strings.HasPrefix(w, "-") || strings.HasPrefix(w, "/") || strings.HasPrefix(w, "~"):
		return ""
	case strings.HasPrefix(w, "../") || strings.Contains(w, "...") || strings.Contains(w, "//"):
		return ""
	case !mdPathChars.MatchString(w):
		return ""
	}
	dir := strings.HasSuffix(w, "/")
	fromRoot := strings.HasPrefix(w, "./")
	rel := strings.TrimSuffix(strings.TrimPrefix(w, "./"), "/")
	base := path.Base(rel)
	ext := path.Ext(base)
	if !dir && (!slices.Contains(mdPathExts, ext) || ext == base) {
		return "" // no extension of ours (or a bare ".s"), no trailing "/"
	}
	if rel == "" || rel == "." {
		return ""
	}
	if first, _, ok := strings.Cut(rel, "/"); ok {
		if !s.exists(first) {
			return "" // not from the repository root: an import path or another project's
		}
		if !s.exists(rel) {
			return "`" + w + "` does not exist"
		}
		return ""
	}
	switch {
	case fromRoot && !s.exists(rel):
		return "`" + w + "` does not exist"
	case !fromRoot && !dir && !s.names[rel]:
		return "`" + w + "` is no file of the repository"
	}
	return ""
}

var (
	// mdFence opens or closes a fenced code block.
	mdFence = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")
	// mdHeading is an ATX heading; its text without the closing #s.
	mdHeading = regexp.MustCompile(`^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	// mdLink is an inline link or image: [text](target "title").
	mdLink = regexp.MustCompile(`!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^()\s<>]*)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)`)
	// mdRefDef is a reference definition: [label]: target.
	mdRefDef = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?`)
	// mdHTMLRef is an HTML src or href attribute.
	mdHTMLRef = regexp.MustCompile(`(?:src|href)\s*=\s*"([^"]*)"`)
	// mdHTMLAnchor is an explicit anchor: <a id="x"> or <a name="x">.
	mdHTMLAnchor = regexp.MustCompile(`<a\s+(?:id|name)\s*=\s*"([^"]*)"`)
	// mdComment is an HTML comment (on one line).
	mdComment = regexp.MustCompile(`<!--.*?-->`)
)

// parseMarkdown finds a page's anchors (GitHub's heading slugs, with -1,
// -2, … for repeated ones, and explicit <a id> anchors) and its references.
// Fenced code blocks hold neither; inline code spans hold no links, and
// their words are the page's cited paths.
func parseMarkdown(src string) mdPage {
	pg := mdPage{anchors: map[string]bool{}}
	seen := map[string]int{}
	lines := strings.Split(src, "\n")
	var fence string // the open fence's marker, "" outside a code block
	var para []string
	paraStart := 0
	flush := func() {
		if len(para) > 0 {
			pg.scanText(strings.Join(para, "\n"), paraStart)
		}
		para = nil
	}
	for i, line := range lines {
		n := i + 1
		if m := mdFence.FindStringSubmatch(line); m != nil {
			switch {
			case fence == "":
				flush()
				fence = m[1]
				continue
			case m[1][0] == fence[0] && len(m[1]) >= len(fence) && strings.TrimSpace(line[strings.Index(line, m[1])+len(m[1]):]) == "":
				fence = ""
				continue
			}
		}
		if fence != "" {
			continue
		}
		if m := mdHeading.FindStringSubmatch(line); m != nil {
			flush()
			slug := mdSlug(m[1])
			if k := seen[slug]; k > 0 {
				pg.anchors[slug+"-"+strconv.Itoa(k)] = true
			} else {
				pg.anchors[slug] = true
			}
			seen[slug]++
			pg.scanText(m[1], n)
			continue
		}
		if strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		if len(para) == 0 {
			paraStart = n
		}
		para = append(para, line)
	}
	flush()
	return pg
}

// scanText collects the references of a block of text whose first line is
// line first.
func (pg *mdPage) scanText(text string, first int) {
	lineAt := func(off int) int { return first + strings.Count(text[:off], "\n") }
	text = mdComment.ReplaceAllStringFunc(text, func(c string) string {
		return strings.Repeat("\n", strings.Count(c, "\n")) + strings.Repeat(" ", len(c)-strings.Count(c, "\n"))
	})
	// Inline code spans: their words are cited paths; blanked out (newlines
	// kept) so that no link is read inside one.
	var b strings.Builder
	for i := 0; i < len(text); {
		if text[i] == '\\' && i+1 < len(text) {
			b.WriteString(text[i : i+2])
			i += 2
			continue
		}
		if text[i] != '`' {
			b.WriteByte(text[i])
			i++
			continue
		}
		j := i
		for j < len(text) && text[j] == '`' {
			j++
		}
		ticks := text[i:j]
		end := mdSpanEnd(text, j, len(ticks))
		if end < 0 { // no closing run: literal backticks
			b.WriteString(ticks)
			i = j
			continue
		}
		for _, w := range strings.Fields(text[j:end]) {
			pg.code = append(pg.code, mdRef{lineAt(j + strings.Index(text[j:end], w)), w})
		}
		span := text[i : end+len(ticks)]
		b.WriteString(strings.Map(func(r rune) rune {
			if r == '\n' {
				return r
			}
			return ' '
		}, span))
		i = end + len(ticks)
	}
	plain := b.String()
	for _, m := range mdLink.FindAllStringSubmatchIndex(plain, -1) {
		if m[2] < m[3] {
			pg.links = append(pg.links, mdRef{lineAt(m[0]), plain[m[2]:m[3]]})
		}
	}
	for _, re := range []*regexp.Regexp{mdHTMLRef} {
		for _, m := range re.FindAllStringSubmatchIndex(plain, -1) {
			pg.links = append(pg.links, mdRef{lineAt(m[0]), plain[m[2]:m[3]]})
		}
	}
	for _, m := range mdHTMLAnchor.FindAllStringSubmatch(plain, -1) {
		pg.anchors[m[1]] = true
	}
	off := 0
	for _, line := range strings.Split(plain, "\n") {
		if m := mdRefDef.FindStringSubmatch(line); m != nil {
			pg.links = append(pg.links, mdRef{lineAt(off), m[1]})
		}
		off += len(line) + 1
	}
}

// mdSpanEnd returns where the code span that starts at from, opened by n
// backticks, ends (the index of its closing run of exactly n), or −1.
func mdSpanEnd(text string, from, n int) int {
	for k := from; k < len(text); {
		if text[k] != '`' {
			k++
			continue
		}
		e := k
		for e < len(text) && text[e] == '`' {
			e++
		}
		if e-k == n {
			return k
		}
		k = e
	}
	return -1
}

var (
	mdInlineLink = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	mdTag        = regexp.MustCompile(`<[^>]+>`)
)

// mdSlug is GitHub's anchor of a heading: the text as rendered (links as
// their text, no code backticks, emphasis or HTML tags), in lower case,
// without the characters that are not letters, digits, marks, "_", "-" or
// spaces, each space then a "-".
func mdSlug(heading string) string {
	h := mdInlineLink.ReplaceAllString(heading, "$1")
	h = mdTag.ReplaceAllString(h, "")
	h = strings.NewReplacer("`", "", "*", "", "\\", "").Replace(h)
	h = strings.ToLower(strings.TrimSpace(h))
	var b strings.Builder
	for _, r := range h {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsMark(r) || unicode.Is(unicode.Nd, r) || unicode.Is(unicode.Nl, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
