package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// input is a file or directory a command reads, with the flag that names
// it.
type input struct{ flag, path string }

// checkTarget says whether path may be written: it must be absent, or with
// force a regular file (never a device, a directory, a pipe or a symbolic
// link, which a rename would replace) that is none of the inputs, and its
// directory must exist.
func checkTarget(path string, force bool, inputs []input) error {
	if err := checkNotInput(path, inputs); err != nil {
		return err
	}
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		dir := filepath.Dir(path)
		dst, derr := os.Stat(dir)
		if derr != nil {
			if errors.Is(derr, fs.ErrNotExist) {
				return fmt.Errorf("cannot write %s: directory %s does not exist", path, dir)
			}
			return fmt.Errorf("cannot write %s: %w", path, derr)
		}
		if !dst.IsDir() {
			return fmt.Errorf("cannot write %s: %s is not a directory", path, dir)
		}
		return nil
	case err != nil:
		return fmt.Errorf("cannot write %s: %w", path, err)
	case !force:
		return fmt.Errorf("%s already exists; give -force to replace it, or another name", path)
	case !st.Mode().IsRegular():
		return fmt.Errorf("%s is %s, not a regular file; -force replaces only regular files", path, describeMode(st.Mode()))
	}
	return nil
}

// describeMode names the kind of a file that is not a regular file.
func describeMode(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "a special file"
}

// pathError restates an error of an operation on a temporary file as one
// on path, the name the user gave: the temporary name means nothing to them.
func pathError(op, path string, err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return fmt.Errorf("cannot %s %s: %w", op, path, err)
}

// checkNotInput fails when path names one of the inputs, or a file in an
// input directory (MNIST's IDX files): the same file by name, symbolic link
// or hard link (os.SameFile). No output replaces what the user gave, -force
// or not. A path that does not exist names no input.
func checkNotInput(path string, inputs []input) error {
	out, err := os.Stat(path)
	if err != nil {
		return nil // absent, or reported by checkTarget
	}
	for _, in := range inputs {
		if in.path == "" {
			continue
		}
		st, err := os.Stat(in.path)
		if err != nil {
			continue // the reader reports it
		}
		if os.SameFile(out, st) {
			return fmt.Errorf("%s is the %s file %s; an output never replaces an input, even with -force: give another name", path, in.flag, in.path)
		}
		if !st.IsDir() {
			continue
		}
		entries, err := os.ReadDir(in.path)
		if err != nil {
			continue
		}
		for _, e := range entries {
			name := filepath.Join(in.path, e.Name())
			if est, err := os.Stat(name); err == nil && os.SameFile(out, est) {
				return fmt.Errorf("%s is %s of the %s directory %s; an output never replaces an input, even with -force: give another name", path, name, in.flag, in.path)
			}
		}
	}
	return nil
}
