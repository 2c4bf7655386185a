package dataset

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestGroupCSVColumn(t *testing.T) {
	t.Parallel()
	const in = "a,site,b,y\n1,north,2,yes\n3,south,4,no\n5,north,6,no\n7, east ,8,yes\n"
	ds, err := ReadCSV[float64](strings.NewReader(in), "g.csv", CSVOptions{Group: "site"})
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Validate(); err != nil {
		t.Fatal(err)
	}
	if ds.D != 2 || !slices.Equal(ds.Features, []string{"a", "b"}) || !slices.Equal(ds.X, []float64{1, 2, 3, 4, 5, 6, 7, 8}) {
		t.Fatalf("D %d features %q X %v: the group column must not be a feature", ds.D, ds.Features, ds.X)
	}
	if want := []string{"east", "north", "south"}; !slices.Equal(ds.GroupNames, want) {
		t.Errorf("GroupNames %q, want %q", ds.GroupNames, want)
	}
	if want := []int32{1, 2, 1, 0}; !slices.Equal(ds.Groups, want) {
		t.Errorf("Groups %v, want %v", ds.Groups, want)
	}
	if want := []int32{1, 0, 0, 1}; !slices.Equal(ds.Labels, want) {
		t.Errorf("Labels %v, want %v", ds.Labels, want)
	}
}

// The group column may be the last one: the target is then the last
// column before it; numeric groups sort as numbers.
func TestGroupCSVLastColumnNumeric(t *testing.T) {
	t.Parallel()
	const in = "1,2,0,10\n3,4,1,9\n5,6,1,10\n"
	ds, err := ReadCSV[float32](strings.NewReader(in), "g.csv", CSVOptions{NoHeader: true, Group: "3"})
	if err != nil {
		t.Fatal(err)
	}
	if ds.D != 2 || !slices.Equal(ds.Labels, []int32{0, 1, 1}) {
		t.Fatalf("D %d labels %v", ds.D, ds.Labels)
	}
	if !slices.Equal(ds.GroupNames, []string{"9", "10"}) || !slices.Equal(ds.Groups, []int32{1, 0, 1}) {
		t.Errorf("groups %v names %q; want numeric order", ds.Groups, ds.GroupNames)
	}
}

func TestGroupCSVErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in, group, target, want string
	}{
		{"a,b,y\n1,2,0\n", "site", "", `g.csv:1: no column named "site"`},
		{"a,g,y\n1,,0\n", "g", "", `g.csv:2: empty group`},
		{"a,g,y\n1,2,0\n", "g", "g", `g.csv:1: the group column "g" is also the target column`},
		{"g,y\n1,0\n", "g", "", `g.csv:1: 2 columns; expected at least one feature and the target besides the group column`},
		{"a,g,y\n1,2,0\n", "7", "", `g.csv:1: group column index 7 is out of range`},
	} {
		_, err := ReadCSV[float64](strings.NewReader(c.in), "g.csv", CSVOptions{Group: c.group, Target: c.target})
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("group %q: error %v, want one line with %q", c.group, err, c.want)
		}
	}
	if _, err := NewCSVStream[float64](strings.NewReader("a,g,y\n1,2,0\n"), "g.csv", CSVOptions{Group: "g"}); err == nil || !strings.Contains(err.Error(), "does not read groups") {
		t.Errorf("stream with a group column: %v", err)
	}
}

func TestGroupCSVTargetOptional(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"a,g,b\n1,x,2\n", "a,g,b,y\n1,x,2,0\n"} {
		ds, has, err := ReadCSVTargetOptional[float64](strings.NewReader(in), "p.csv", 2, CSVOptions{Group: "g"})
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if ds.D != 2 || has != strings.Contains(in, "y") || !slices.Equal(ds.GroupNames, []string{"x"}) {
			t.Errorf("%q: D %d has %v groups %q", in, ds.D, has, ds.GroupNames)
		}
	}
}

func TestReadGroups(t *testing.T) {
	t.Parallel()
	ids, names, err := ReadGroups(strings.NewReader("b\n a\r\nb\n2\n\n"), "g.txt", 4)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(names, []string{"2", "a", "b"}) || !slices.Equal(ids, []int32{2, 1, 2, 0}) {
		t.Errorf("ids %v names %q", ids, names)
	}
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	zw.Write([]byte("1\n0\n1"))
	zw.Close()
	if ids, names, err = ReadGroups(&zipped, "g.txt.gz", 3); err != nil || !slices.Equal(ids, []int32{1, 0, 1}) || len(names) != 2 {
		t.Errorf("gzip: ids %v names %q err %v", ids, names, err)
	}
	for _, c := range []struct {
		in   string
		rows int
		want string
	}{
		{"0\n1\n", 3, "g.txt:2: the file ends after 2 group labels; the data has 3 rows"},
		{"0\n1\n1\n", 2, "g.txt:3: a group label for row 3, but the data has 2 rows"},
		{"0\n\n1\n", 3, "g.txt:2: empty group"},
		{"0\n" + strings.Repeat("x", 5000) + "\n", 2, "g.txt:2: line longer than 4096 bytes"},
		{"0\x00\n", 1, "g.txt:1: a NUL byte"},
	} {
		_, _, err := ReadGroups(strings.NewReader(c.in), "g.txt", c.rows)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.in, err, c.want)
		}
	}
	var many strings.Builder
	for i := range MaxGroups + 1 {
		many.WriteString(strings.Repeat("g", 1+i%7) + string(rune('a'+i%26)) + string(rune('0'+i/26%10)) + string(rune('a'+i/260)) + "\n")
	}
	if _, _, err := ReadGroups(strings.NewReader(many.String()), "g.txt", MaxGroups+1); err == nil || !strings.Contains(err.Error(), "distinct group") {
		t.Errorf("%d distinct groups: %v", MaxGroups+1, err)
	}
}

// A group file follows the rows of a LIBSVM file through LoadFile, its
// Limit, Split and Validate.
func TestGroupFileLoadFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "d.svm")
	groups := filepath.Join(dir, "g.txt")
	var d, g strings.Builder
	for i := range 12 {
		d.WriteString([]string{"0", "1"}[i%2] + " 1:" + string(rune('1'+i%9)) + "\n")
		g.WriteString([]string{"a", "b", "c"}[i%3] + "\n")
	}
	os.WriteFile(data, []byte(d.String()), 0o600)
	os.WriteFile(groups, []byte(g.String()), 0o600)
	ds, err := LoadFile[float64](data, FileOptions{GroupFile: groups})
	if err != nil {
		t.Fatal(err)
	}
	if ds.N != 12 || len(ds.Groups) != 12 || ds.NumGroups() != 3 {
		t.Fatalf("N %d groups %v", ds.N, ds.Groups)
	}
	head, err := LoadFile[float64](data, FileOptions{GroupFile: groups, Limit: 5})
	if err != nil || !slices.Equal(head.Groups, ds.Groups[:5]) {
		t.Fatalf("limit 5: groups %v err %v", head.Groups, err)
	}
	train, val, err := Split(ds, 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range []*Dataset[float64]{train, val} {
		if part, err = part.Dense(0); err != nil {
			t.Fatal(err)
		}
		for i := range part.N { // feature 1 is the row's index mod 9, its group the row's mod 3
			row := int(part.X[i*part.D]) - 1
			if int(part.Groups[i]) != row%3 {
				t.Errorf("row with feature %d in group %d, want %d", row+1, part.Groups[i], row%3)
			}
		}
	}
	ds.Groups[0] = 3
	if err := ds.Validate(); err == nil || !strings.Contains(err.Error(), "row 0: group 3") {
		t.Errorf("Validate of a bad group id: %v", err)
	}
	os.WriteFile(groups, []byte("a\nb\n"), 0o600)
	if _, err := LoadFile[float64](data, FileOptions{GroupFile: groups}); err == nil || !strings.HasPrefix(err.Error(), groups+":2: the file ends after 2") {
		t.Errorf("short group file: %v", err)
	}
	if _, err := LoadFile[float64](data, FileOptions{Group: "g"}); err == nil || !strings.Contains(err.Error(), "group column is read from CSV") {
		t.Errorf("group column of LIBSVM data: %v", err)
	}
}

// Marking the synthetic data's groups keeps its rows and marks the
// minority.
func TestGroupSyntheticMarks(t *testing.T) {
	t.Parallel()
	plain, minority, err := SyntheticClassificationGroups[float64](SynthClassOptions{N: 300, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	marked, err := SyntheticClassification[float64](SynthClassOptions{N: 300, Seed: 4, MarkGroups: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(plain.X, marked.X) || !slices.Equal(plain.Labels, marked.Labels) || plain.Groups != nil {
		t.Fatal("marking the groups changed the rows, or the plain data has groups")
	}
	if !slices.Equal(marked.GroupNames, []string{"majority", "minority"}) {
		t.Fatalf("names %q", marked.GroupNames)
	}
	for i, m := range minority {
		if (marked.Groups[i] == 1) != m {
			t.Fatalf("row %d: group %d, minority %v", i, marked.Groups[i], m)
		}
	}
	reg, err := SyntheticRegression[float32](SynthRegOptions{N: 50, MarkGroups: true})
	if err != nil || len(reg.Groups) != 50 || reg.Validate() != nil {
		t.Errorf("regression groups: %v %v", reg.Groups, err)
	}
}
