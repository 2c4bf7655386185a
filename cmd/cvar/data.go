package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/cvarlearn/cvar"
	"github.com/cvarlearn/cvar/batch"
	"github.com/cvarlearn/cvar/dataset"
	"github.com/cvarlearn/cvar/internal/footprint"
	"github.com/cvarlearn/cvar/internal/modelkind"
)

// synthSeed is the seed of the built-in data. The data set is fixed; -seed
// moves the split and the training. Evaluation without -data draws a fresh
// sample with synthSeed+1.
const synthSeed = 1

// Names of the built-in data sets.
const (
	synthClassName = "synthetic-classification"
	synthRegName   = "synthetic-regression"
)

// formatOf returns the format of a data path: the -format flag if given.
// It is "idx" for a directory or an IDX file, else guessed from the
// extension. A name it cannot guess from is a usage error. So is a
// directory with another -format. Both are found without reading the
// data.
func formatOf(path, format string) (string, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		if format != "" && format != "idx" {
			return "", usagef("%s is a directory; only -format idx (MNIST's four IDX files) reads directories", path)
		}
		return "idx", nil
	} else if err != nil {
		return "", err
	}
	if format != "" {
		return format, nil
	}
	if format = dataset.FormatOfName(path); format == "" {
		return "", usagef("%s: cannot guess the format from the name; give -format csv, libsvm or idx", path)
	}
	return format, nil
}

// readSpec says how to read a data file: the library's options. It also
// says what fixes a LIBSVM file's width, for messages ("the model").
type readSpec struct {
	dataset.FileOptions
	dimFrom string
}

// fileOptions are the options of reading a data file of the format as
// the flags say.
func (f *dataFlags) fileOptions(format string) dataset.FileOptions {
	return dataset.FileOptions{Format: format, Target: f.target, NoHeader: f.noHeader, Group: f.group, GroupFile: f.groupFile, Limit: f.limit, MaxBytes: f.maxMemory.option(), MaxLine: f.maxLine.option(), MaxDim: f.maxDim, SparseBelow: f.sparse}
}

// loadFile reads one data file (or MNIST directory) as rs says
// (dataset.LoadFile). IDX pixels are read raw (0..255): preprocessing
// scales them.
func loadFile[T batch.Float](path string, rs readSpec) (*dataset.Dataset[T], error) {
	rs.Raw = true
	var ds *dataset.Dataset[T]
	err := readWithin(byteSize(max(rs.MaxBytes, 0)), func() (err error) {
		ds, err = dataset.LoadFile[T](path, rs.FileOptions)
		return err
	})
	return checkRead(rs.LabelsPath(path), ds, rs, err)
}

// checkRead finishes the reading of a data file: the error, -limit, and the
// classes a training set needs.
func checkRead[T batch.Float](path string, ds *dataset.Dataset[T], rs readSpec, err error) (*dataset.Dataset[T], error) {
	if err != nil {
		return nil, tooWide(tooLarge(err), rs.dimFrom, rs.MaxDim)
	}
	ds = ds.Head(rs.Limit)
	// Training data needs two classes that occur, not merely two that are
	// named: IDX files name the ten digits whatever their labels hold.
	if ds.Task == dataset.Classification && rs.Classes == nil {
		if c, single := ds.SingleClass(); single {
			return nil, fmt.Errorf("%s: every label is %q; classification needs at least two classes (for a regression target use -model linear or lad)", path, c)
		}
	}
	return ds, nil
}

// autoKind resolves "auto" from the data (modelkind.For); it checks an
// explicit kind against it.
func autoKind[T batch.Float](kind string, ds *dataset.Dataset[T]) (string, error) {
	if kind == "auto" || kind == "" {
		return modelkind.For(ds.Task, ds.K()), nil
	}
	if kind == batch.KindLogistic && ds.K() != 2 {
		return "", fmt.Errorf("%s has %d classes; logistic regression is binary (use -model softmax or mlp)", ds.Name, ds.K())
	}
	return kind, nil
}

// trainingData is the data of a training run, preprocessed.
type trainingData[T batch.Float] struct {
	train, val, test *dataset.Dataset[T]
	kind             string // model kind, resolved
	prep             dataset.Preprocessing
	source           cvar.Provenance
	storage          string // the features' storage (dataset.BatchAs), resolved
}

// loadTrainingData reads or generates the data and resolves the model
// kind. It splits 2/3–1/3 with the seed and reads the test file. It fits
// the preprocessing on the training split.
func loadTrainingData[T batch.Float](f *dataFlags, kind string, seed uint64) (*trainingData[T], error) {
	full, src, err := loadFull[T](f, kind)
	if err != nil {
		return nil, err
	}
	if kind, err = autoKind(kind, full); err != nil {
		return nil, err
	}
	var test *dataset.Dataset[T]
	if f.data != "" {
		if test, err = loadTest(f, full, src); err != nil {
			return nil, err
		}
	}
	return prepare(f, full, src, kind, seed, test)
}

// loadTest reads the -test file, or the t10k files of an MNIST directory.
// It returns nil when there is none.
func loadTest[T batch.Float](f *dataFlags, full *dataset.Dataset[T], src cvar.Provenance) (*dataset.Dataset[T], error) {
	testPath, rs := f.test, readSpec{FileOptions: f.fileOptions(src.Kind), dimFrom: "the training data " + f.data}
	rs.Task = full.Task
	if !full.IsSparse() {
		rs.SparseBelow = 0 // the test set in the training set's storage, which the preprocessing suits
	}
	if full.Task == dataset.Classification {
		rs.Classes = full.Classes
	}
	if src.Kind == "libsvm" {
		rs.Dim = full.D
	}
	rs.GroupFile = "" // the -group-file is the -data file's
	if testPath == "" && src.Kind == "idx" && isDir(f.data) {
		testPath, rs.Split = f.data, "test"
	} else if testPath != "" {
		var err error
		if rs.Format, err = formatOf(testPath, f.format.Value); err != nil {
			return nil, err
		}
		if rs.Format == "libsvm" {
			rs.Dim = full.D
		}
		rs.Split = "test"
	}
	if testPath == "" {
		return nil, nil
	}
	test, err := loadFile[T](testPath, rs)
	if err != nil {
		return nil, err
	}
	if test.D != full.D {
		return nil, fmt.Errorf("%s has %d features, the training data %s has %d", testPath, test.D, f.data, full.D)
	}
	if src.Kind == "csv" && rs.Format == "csv" && !f.noHeader {
		if err := checkFeatureNames(testPath, test.Features, full.Features, "the training data "+f.data); err != nil {
			return nil, err
		}
	}
	return test, nil
}

// prepare splits full 2/3–1/3 with the seed. It fits the preprocessing on
// the training split and applies it to all parts (cvar.Prepare). full is
// not modified. test, which may be nil, is preprocessed in place.
func prepare[T batch.Float](f *dataFlags, full *dataset.Dataset[T], src cvar.Provenance, kind string, seed uint64, test *dataset.Dataset[T]) (*trainingData[T], error) {
	mode := f.scale.For(src.Kind)
	p, err := cvar.Prepare(full, cvar.PrepareOptions{Scaling: mode, ScaleTarget: f.scale.Target(), Seed: seed}, test)
	if err != nil {
		return nil, err
	}
	td := &trainingData[T]{source: src, kind: kind, train: p.Train, val: p.Val, test: test, prep: p.Preprocessing}
	td.source.N = td.train.N
	byteScaled := mode == cvar.ScaleUnit || mode == cvar.ScaleNone
	if td.storage, err = resolveStorage[T](f, false, src.Kind, kind, byteScaled, td.train.IsSparse()); err != nil {
		return nil, err
	}
	if err := td.checkCompact(f, full); err != nil {
		return nil, err
	}
	return td, nil
}

// checkCompact checks that a compact storage holds every feature of full,
// preprocessed, and of the test set. It names the file's line of the
// first that it cannot hold.
func (td *trainingData[T]) checkCompact(f *dataFlags, full *dataset.Dataset[T]) error {
	rs := readSpec{FileOptions: dataset.FileOptions{Format: td.source.Kind, Target: f.target, NoHeader: f.noHeader, Group: f.group, MaxBytes: f.maxMemory.option(), MaxLine: f.maxLine.option()}}
	if err := checkCompact(full, &td.prep, td.storage, sampleAt(f.data, rs, full)); err != nil {
		return err
	}
	if td.test == nil {
		return nil
	}
	if f.test != "" {
		rs.Format, _ = formatOf(f.test, f.format.Value)
	}
	return checkCompact(td.test, nil, td.storage, sampleAt(f.test, rs, td.test))
}

// fitData is the data the model is fitted on: the training split. Its
// targets are standardised when the preprocessing says so. Its metrics are
// reported on td.train.Batch(), in the target's units.
func (td *trainingData[T]) fitData() (*batch.Data[T], error) { return td.scaled(td.train) }

// fitVal is the validation split on the scale of fitData, for choosing
// among settings by their losses.
func (td *trainingData[T]) fitVal() (*batch.Data[T], error) { return td.scaled(td.val) }

// scaled is ds for fitting, its targets standardised when the
// preprocessing says so. ds itself is not modified.
func (td *trainingData[T]) scaled(ds *dataset.Dataset[T]) (*batch.Data[T], error) {
	ts, ok := td.prep.TargetScaler()
	if !ok {
		return td.batchOf(ds)
	}
	c := *ds
	c.Y = dataset.ScaleTargets(ts, ds.Y)
	return td.batchOf(&c)
}

// unscale maps parameters fitted on standardised targets back to the
// target's units, in place (cvar.UnscaleTarget). It returns the factor
// that converts loss levels (τ): 1 when the targets were not standardised.
func (td *trainingData[T]) unscale(model batch.Model[T], theta []T) (float64, error) {
	factor, err := cvar.UnscaleTarget(model, theta, &td.prep)
	if err != nil {
		return 0, fmt.Errorf("%w (use -scale-target none)", err)
	}
	return factor, nil
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// loadFull reads the -data file, or generates the built-in data suited to
// the model kind.
func loadFull[T batch.Float](f *dataFlags, kind string) (*dataset.Dataset[T], cvar.Provenance, error) {
	task := modelkind.Task(kind)
	if f.data == "" {
		if err := checkMemory(fmt.Sprintf("the built-in data of -n %d samples × -d %d features", f.n, f.d), footprint.Dense[T](f.n, f.d), f.maxMemory); err != nil {
			return nil, cvar.Provenance{}, err
		}
		if task != dataset.Regression && f.d < 2*f.classes+1 {
			return nil, cvar.Provenance{}, usagef("-d %d: the built-in classification data with %d classes needs at least %d features", f.d, f.classes, 2*f.classes+1)
		}
		if err := f.checkGroups("synthetic"); err != nil {
			return nil, cvar.Provenance{}, err
		}
		syn := synthSource{N: f.n, D: f.d, Seed: synthSeed}
		if task != dataset.Regression {
			syn.Classes = f.classes
		}
		src := cvar.Provenance{Kind: "synthetic"}
		syn.put(&src)
		ds, err := synthetic[T](task == dataset.Regression, f.n, f.d, f.classes, synthSeed, f.group != "")
		if err != nil {
			return nil, src, err
		}
		src.Name = ds.Name
		return ds.Head(f.limit), src, nil
	}
	format, err := formatOf(f.data, f.format.Value)
	if err != nil {
		return nil, cvar.Provenance{}, err
	}
	if err := f.checkGroups(format); err != nil {
		return nil, cvar.Provenance{}, err
	}
	src := cvar.Provenance{Kind: format, Name: f.data}
	if format == "csv" {
		src.Target, src.NoHeader = f.target, f.noHeader
	}
	rs := readSpec{FileOptions: f.fileOptions(format)}
	rs.Task = task
	ds, err := loadFile[T](f.data, rs)
	return ds, src, err
}

// synthetic generates the built-in data; groups marks its subgroup.
func synthetic[T batch.Float](regression bool, n, d, classes int, seed uint64, groups bool) (*dataset.Dataset[T], error) {
	if regression {
		return dataset.SyntheticRegression[T](dataset.SynthRegOptions{N: n, D: d, Seed: seed, MarkGroups: groups})
	}
	if d < 2*classes+1 {
		return nil, fmt.Errorf("the built-in classification data with %d classes needs at least %d features, not %d", classes, 2*classes+1, d)
	}
	return dataset.SyntheticClassification[T](dataset.SynthClassOptions{N: n, D: d, Classes: classes, Seed: seed, MarkGroups: groups})
}

// synthGroup is the -group of the built-in data: its rare subgroup. Its
// rows are group "minority" and the others "majority".
const synthGroup = "subgroup"

// checkGroups checks -group and -group-file against the data's format,
// before it is read. The built-in data's format is "synthetic".
func (f *dataFlags) checkGroups(format string) error {
	switch {
	case f.group != "" && f.groupFile != "":
		return usagef("give -group or -group-file, not both")
	case format == "synthetic" && f.groupFile != "":
		return usagef("-group-file needs -data: the built-in data marks its own groups with -group %s", synthGroup)
	case format == "synthetic" && f.group != "" && f.group != synthGroup:
		return usagef("-group %q: the built-in data has one group column, %s (its rare subgroup)", f.group, synthGroup)
	case format != "synthetic" && format != "csv" && f.group != "":
		return usagef("-group names a column of a CSV file; %s data takes -group-file, a file of one group label a line", format)
	}
	return nil
}

// loadForModel reads data to evaluate m on, preprocessed as m says (see
// loadModelData). The rows must carry targets.
func loadForModel[T batch.Float](f *dataFlags, m *cvar.ModelFile) (*dataset.Dataset[T], error) {
	ds, labelled, err := loadModelData[T](f, m)
	if err == nil && !labelled {
		return nil, missingTarget(f.data, m)
	}
	return ds, err
}

// loadModelData reads data to evaluate or apply m to, preprocessed as m
// says. It reads the -data file with m's classes and width. Without -data
// it draws a fresh sample of the built-in data m was trained on. It
// reports whether the rows have labels or targets. A CSV file may lack the
// target column (see dataset.ReadCSVTargetOptional). The file is opened
// and read once, so it may be a pipe (-data /dev/stdin).
func loadModelData[T batch.Float](f *dataFlags, m *cvar.ModelFile) (*dataset.Dataset[T], bool, error) {
	if err := f.checkMaxDim(); err != nil {
		return nil, false, err
	}
	format := "synthetic"
	if f.data == "" && m.Source.Kind != "synthetic" {
		return nil, false, usagef("-data is required: the model was trained on %s, not on the built-in data", m.Source.Name)
	} else if f.data != "" {
		var err error
		if format, err = formatOf(f.data, f.format.Value); err != nil {
			return nil, false, err
		}
	}
	if err := checkModelStorage(f, m, format); err != nil {
		return nil, false, err
	}
	if err := f.checkGroups(format); err != nil {
		return nil, false, err
	}
	var ds *dataset.Dataset[T]
	labelled := true
	if f.data == "" {
		s := m.Source
		if s.Kind != "synthetic" {
			return nil, false, usagef("-data is required: the model was trained on %s, not on the built-in data", s.Name)
		}
		syn, err := synthOf(s)
		if err == nil {
			what := fmt.Sprintf("the model file's built-in data of %d samples × %d features", syn.N, syn.D)
			if err := checkMemory(what, footprint.Dense[T](syn.N, syn.D), f.maxMemory); err != nil {
				return nil, false, err
			}
			ds, err = synthetic[T](m.K == 0, syn.N, syn.D, max(syn.Classes, 2), syn.Seed+1, f.group != "")
		}
		if err != nil {
			return nil, false, fmt.Errorf("the model file's built-in data cannot be drawn again: %w; give -data", err)
		}
		ds.Name += " (fresh sample)"
		ds = ds.Head(f.limit)
	} else {
		var err error
		rs := specForModel(f, m, format)
		if format == "csv" {
			ds, labelled, err = readCSVForModel[T](f.data, m, rs)
		} else {
			ds, err = loadFile[T](f.data, rs)
		}
		if err != nil {
			return nil, false, err
		}
	}
	if err := checkWidth(ds, m); err != nil {
		return nil, false, err
	}
	if err := dataset.PreprocessDataset(&m.Preprocessing, ds); err != nil {
		return nil, false, err
	}
	return ds, labelled, nil
}

// readCSVForModel reads a CSV file for m and reports whether it has the
// target column; it may lack it. When the file and m's training file both
// have a header, the feature names must match.
func readCSVForModel[T batch.Float](path string, m *cvar.ModelFile, rs readSpec) (*dataset.Dataset[T], bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	var ds *dataset.Dataset[T]
	var has bool
	err = readWithin(byteSize(max(rs.MaxBytes, 0)), func() (err error) {
		ds, has, err = dataset.ReadCSVTargetOptional[T](f, path, m.D, rs.CSV(path))
		return err
	})
	if err != nil {
		return nil, false, tooLarge(err)
	}
	if rs.GroupFile != "" {
		if err := ds.LoadGroups(rs.GroupFile, rs.Limit); err != nil {
			return nil, false, err
		}
	}
	if has {
		if ds, err = checkRead(path, ds, rs, nil); err != nil {
			return nil, false, err
		}
	}
	if m.Source.Kind == "csv" && !rs.NoHeader {
		if err := checkFeatureNames(path, ds.Features, m.Features, "the model file"); err != nil {
			return nil, false, err
		}
	}
	return ds, has, nil
}

// missingTarget is the error of data without the target column where the
// rows must carry targets.
func missingTarget(path string, m *cvar.ModelFile) error {
	col := "the target column"
	if t := m.Source.Target; t != "" {
		if _, err := strconv.Atoi(strings.TrimSpace(t)); err != nil {
			col = fmt.Sprintf("the target column %q", t)
		}
	}
	return fmt.Errorf("%s: %s is missing: the file holds only the model's %d features; eval needs the targets (predict does not)", path, col, m.D)
}

// specForModel reads data the way m's training data was read
// (cvar.ModelFile.FileOptions); an MNIST directory's test files.
func specForModel(f *dataFlags, m *cvar.ModelFile, format string) readSpec {
	rs := readSpec{FileOptions: m.FileOptions(format, f.fileOptions(format)), dimFrom: "the model"}
	rs.Split = "test"
	return rs
}

func checkWidth[T batch.Float](ds *dataset.Dataset[T], m *cvar.ModelFile) error {
	if ds.D != m.D {
		return fmt.Errorf("%s has %d features; the model was trained on %d", ds.Name, ds.D, m.D)
	}
	return nil
}
