package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// checkTarget says whether path may be written: it must be absent, or with
// force a regular file (never a device, a directory, a pipe or a symbolic
// link, which a rename would replace), and its directory must exist.
func checkTarget(path string, force bool) error {
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
