package dataset

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

// MaxGroups is the largest number of distinct groups a group column or
// group file may hold. Groups are labels such as a site, a sex or "urban".
// A column of thousands of distinct values is almost surely a feature or
// an identifier named by mistake.
const MaxGroups = 1000

// groupList collects the group label of each row and gives each distinct
// label an id, as the rows are read.
type groupList struct {
	name  string // the input, for messages
	ids   []int32
	texts []string
	index map[string]int32
}

func newGroupList(name string) *groupList {
	return &groupList{name: name, index: map[string]int32{}}
}

// add records the group text of the next row, read on line.
func (g *groupList) add(text string, line int) error {
	text = strings.TrimSpace(text)
	if text == "" {
		return lineError(g.name, line, "empty group; expected a group label such as 0, 1 or a name")
	}
	id, ok := g.index[text]
	if !ok {
		if len(g.texts) == MaxGroups {
			return lineError(g.name, line, "group %q is the %dth distinct group; expected at most %d (is the group column a feature or an identifier?)", clip(text), MaxGroups+1, MaxGroups)
		}
		id = int32(len(g.texts))
		g.index[text] = id
		g.texts = append(g.texts, text)
	}
	g.ids = append(g.ids, id)
	return nil
}

// resolve returns the rows' group ids and the names of the groups, sorted.
// They sort numerically when every label is a number, else as text. So
// the ids do not depend on the order of the rows.
func (g *groupList) resolve() ([]int32, []string) {
	order := make([]int32, len(g.texts))
	for i := range order {
		order[i] = int32(i)
	}
	numeric := true
	values := make([]float64, len(g.texts))
	for i, t := range g.texts {
		v, err := strconv.ParseFloat(t, 64)
		values[i] = v
		numeric = numeric && err == nil
	}
	slices.SortFunc(order, func(a, b int32) int {
		if numeric && values[a] != values[b] {
			return cmp.Compare(values[a], values[b])
		}
		return strings.Compare(g.texts[a], g.texts[b])
	})
	rank := make([]int32, len(order))
	names := make([]string, len(order))
	for r, i := range order {
		rank[i] = int32(r)
		names[r] = g.texts[i]
	}
	for k, id := range g.ids {
		g.ids[k] = rank[id]
	}
	return g.ids, names
}

// LoadGroups reads the group file at path (ReadGroups) into ds's Groups
// and GroupNames. The file may be gzip- or bzip2-compressed. limit is the
// Limit ds was read with (0: none). When ds holds limit rows, the file's
// lines past them are not read.
func (ds *Dataset[T]) LoadGroups(path string, limit int) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	ids, names, err := readGroups(f, path, ds.N, limit > 0 && ds.N == limit)
	if err != nil {
		return err
	}
	ds.Groups, ds.GroupNames = ids, names
	return nil
}

// ReadGroups reads a group file for data of rows rows. It holds one group
// label a line: the group of row i of the data is on line i+1. A label is
// any text without line breaks, such as 0, 1 or "urban". Surrounding
// spaces are ignored. It returns each row's group id, 0..len(names)-1, and
// the groups' names, sorted. They sort numerically when every label is a
// number, else as text. Errors name the file and the line. An empty line
// is an error. So is a file with another number of lines than rows, and
// more than MaxGroups distinct labels.
func ReadGroups(r io.Reader, name string, rows int) ([]int32, []string, error) {
	return readGroups(r, name, rows, false)
}

// readGroups is ReadGroups. With prefix, the file may hold more lines than
// rows, for data read with a limit on its rows. Only the first rows lines
// are then read.
func readGroups(r io.Reader, name string, rows int, prefix bool) ([]int32, []string, error) {
	if r == nil {
		return nil, nil, nilReader(name)
	}
	if rows < 0 {
		return nil, nil, fmt.Errorf("dataset: %d rows; expected at least 0", rows)
	}
	in, err := decompress(r, name)
	if err != nil {
		return nil, nil, err
	}
	g := newGroupList(name)
	line := 0
	for len(g.ids) < rows {
		text, err := readGroupLine(in.br, name, line+1)
		if err == io.EOF {
			return nil, nil, lineError(name, line, "the file ends after %d group labels; the data has %d rows, one label a row", len(g.ids), rows)
		}
		if err != nil {
			return nil, nil, in.verify(err)
		}
		line++
		if err := g.add(text, line); err != nil {
			return nil, nil, err
		}
	}
	for !prefix {
		text, err := readGroupLine(in.br, name, line+1)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, in.verify(err)
		}
		line++
		if strings.TrimSpace(text) != "" { // blank lines may end the file
			return nil, nil, lineError(name, line, "a group label for row %d, but the data has %d rows, one label a row", rows+1, rows)
		}
	}
	ids, names := g.resolve()
	return ids, names, nil
}

// maxGroupLine bounds a line of a group file: a label is short.
const maxGroupLine = 4096

// readGroupLine returns the next line, without its line break; io.EOF at
// the end of the input.
func readGroupLine(br *bufio.Reader, name string, line int) (string, error) {
	b, err := br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) || len(b) > maxGroupLine {
		return "", lineError(name, line, "line longer than %d bytes; expected one group label a line", maxGroupLine)
	}
	if err == io.EOF && len(b) == 0 {
		return "", io.EOF
	}
	if err != nil && err != io.EOF {
		return "", ioError(name, line, err)
	}
	s := strings.TrimRight(string(b), "\r\n")
	if strings.IndexByte(s, 0) >= 0 {
		return "", lineError(name, line, "a NUL byte; expected one group label a line of text")
	}
	return s, nil
}

// NumGroups returns the number of groups, len(ds.GroupNames); 0 when the
// data has no groups.
func (ds *Dataset[T]) NumGroups() int { return len(ds.GroupNames) }

// validateGroups checks that the group ids, when present, are one a row
// and name a group.
func (ds *Dataset[T]) validateGroups() error {
	if ds.Groups == nil && ds.GroupNames == nil {
		return nil
	}
	if len(ds.Groups) != ds.N {
		return ds.errorf("%d group ids; expected one a row, N = %d", len(ds.Groups), ds.N)
	}
	g := int32(len(ds.GroupNames))
	for i, id := range ds.Groups {
		if id < 0 || id >= g {
			return ds.errorf("row %d: group %d; expected a group in 0..%d", i, id, g-1)
		}
	}
	return nil
}

// minorityGroups are the group names of the synthetic data's rows: the
// majority and the rare subgroup.
func minorityGroups(minority []bool) ([]int32, []string) {
	ids := make([]int32, len(minority))
	for i, m := range minority {
		if m {
			ids[i] = 1
		}
	}
	return ids, []string{"majority", "minority"}
}
