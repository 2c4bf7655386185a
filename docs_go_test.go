package cvar

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The Go blocks of README.md and docs/*.md compile: TestDocsGoBlocks
// type-checks each against the packages of this tree. A block that starts
// with "package" is a whole file. Any other block is a fragment: its
// statements form the body of a function whose parameters are the names
// the page's fragments share (docsGoGiven: the model, the data, a result…),
// and that returns an error (a fragment may end with `return err`). A
// fragment may leave a variable it declares unused only on a page that
// says its snippets leave out the checks of errors (docsGoLoose). A block
// whose first line is a comment starting "// not compiled:" is skipped; the
// rest of the line says why (another module, a platform).

// docsGoGiven is, per page, the parameter list of its fragments.
var docsGoGiven = map[string]string{
	"README.md": "x []float64, n, d int, labels []int32",
	"docs/guide.md": `model batch.Model[float32], data, trainData, valData, testData, newData *batch.Data[float32],
		res *cvar.Result[float32], ds, train, val *dataset.Dataset[float32], ev *cvar.Evaluator[float32],
		losses []float32, losses64, weights []float64, samples []struct{ x []float32; label int },
		path string, ctx context.Context, d, n, k int, x, y []float32, labels []int32,
		indptr []int64, cols []uint32, vals []float32, u []uint8, h []uint16,
		prep dataset.Preprocessing, r io.Reader, mf *cvar.ModelFile`,
}

// docsGoLoose lists the pages whose fragments leave out error checks, as
// they say.
var docsGoLoose = map[string]bool{"docs/guide.md": true}

// docsGoImports are the packages a block may name, by their name.
var docsGoImports = map[string]string{
	"cvar": "github.com/cvarlearn/cvar", "batch": "github.com/cvarlearn/cvar/batch",
	"dataset": "github.com/cvarlearn/cvar/dataset", "kernel": "github.com/cvarlearn/cvar/kernel",
	"fmt": "fmt", "log": "log", "errors": "errors", "time": "time", "os": "os", "io": "io",
	"math": "math", "strings": "strings", "context": "context", "onnx": "github.com/cvarlearn/cvar/onnx",
}

// docsGoBlock is one Go block of a page, from the line after its fence.
type docsGoBlock struct {
	page string
	line int
	code string
}

// docsGoBlocks returns the Go blocks of the pages.
func docsGoBlocks(t *testing.T, pages []string) []docsGoBlock {
	var blocks []docsGoBlock
	for _, p := range pages {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var cur *docsGoBlock
		for i, l := range strings.Split(string(src), "\n") {
			switch {
			case cur == nil && strings.TrimSpace(l) == "```go":
				cur = &docsGoBlock{page: p, line: i + 2}
			case cur != nil && strings.TrimSpace(l) == "```":
				blocks = append(blocks, *cur)
				cur = nil
			case cur != nil:
				cur.code += l + "\n"
			}
		}
	}
	return blocks
}

// source returns the block as a file of package docs.
func (b docsGoBlock) source() string {
	if strings.HasPrefix(strings.TrimSpace(b.code), "package ") {
		return b.code
	}
	given := docsGoGiven[b.page]
	code := regexp.MustCompile(`//.*`).ReplaceAllString(b.code+given, "") // names in comments import nothing
	var imports []string
	for name, path := range docsGoImports {
		if regexp.MustCompile(`\b` + name + `\.`).MatchString(code) {
			imports = append(imports, fmt.Sprintf("%q", path))
		}
	}
	return fmt.Sprintf("package docs\n\nimport (\n%s\n)\n\nfunc _(%s) error {\n{\n%s}\nreturn nil\n}\n",
		strings.Join(imports, "\n"), given, b.code)
}

// TestDocsGoBlocks type-checks every Go block of README.md and docs/*.md.
func TestDocsGoBlocks(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("type-checking the docs from source takes seconds; the full run checks them")
	}
	pages, _ := filepath.Glob("docs/*.md")
	blocks := docsGoBlocks(t, append([]string{"README.md"}, pages...))
	if len(blocks) < 20 {
		t.Fatalf("%d Go blocks in the docs; the reader lost them", len(blocks))
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "source", nil)
	for _, b := range blocks {
		if strings.HasPrefix(strings.TrimSpace(b.code), "// not compiled:") {
			continue
		}
		f, err := parser.ParseFile(fset, fmt.Sprintf("%s:%d", b.page, b.line), b.source(), 0)
		if err != nil {
			t.Errorf("%s:%d: %v", b.page, b.line, err)
			continue
		}
		var errs []string
		conf := types.Config{Importer: imp, Error: func(err error) {
			if te, ok := err.(types.Error); ok && te.Soft && docsGoLoose[b.page] && strings.Contains(te.Msg, "declared and not used") {
				return
			}
			errs = append(errs, err.Error())
		}}
		conf.Check("docs", fset, []*ast.File{f}, nil)
		for _, e := range errs {
			t.Errorf("the Go block at %s:%d does not compile: %s", b.page, b.line, e)
		}
	}
}

// TestDocsLength: README.md and docs/performance.md stay short enough to
// read through: at most 250 lines each; detail goes to docs/design.md.
func TestDocsLength(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"README.md", "docs/performance.md"} {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(src), "\n"); n > 250 {
			t.Errorf("%s has %d lines, more than 250", p, n)
		}
	}
}
