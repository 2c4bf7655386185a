package cvar

import (
	"io"

	"github.com/cvarlearn/cvar/internal/outfile"
)

// CheckModelPath says whether a model file may be written at path, so that
// a program can refuse before its work: path must be absent, or with force
// a regular file (never a device, a directory, a pipe or a symbolic link)
// that is none of inputs (the files, or the files in the directories, the
// program reads), and its directory must exist.
func CheckModelPath(path string, force bool, inputs ...string) error {
	return outfile.Check(path, force, inputsOf(inputs))
}

// WriteModelFile writes m to path under CheckModelPath's rules, through a
// temporary file in the same directory that takes the name only once it
// is complete, so that no run leaves a partial model file.
func WriteModelFile(path string, m *ModelFile, force bool, inputs ...string) error {
	return outfile.Write(path, force, inputsOf(inputs), func(w io.Writer) error { return SaveModel(w, m) })
}

func inputsOf(paths []string) []outfile.Input {
	in := make([]outfile.Input, len(paths))
	for i, p := range paths {
		in[i] = outfile.Input{Flag: "input", Path: p}
	}
	return in
}
