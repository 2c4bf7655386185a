// Package outfile writes the output files of the programs (cvar, cvargen).
// It never writes over an existing file without force. It never writes
// over one of the program's inputs. It writes through a temporary file
// that takes the name only once complete, so no run leaves a partial file.
package outfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

// Input is a file or directory a program reads, with the flag that names
// it (for messages). No output replaces an input, -force or not.
type Input struct{ Flag, Path string }

// Check says whether path may be written. It must be absent, or with force
// a regular file that is none of the inputs. A device, directory, pipe or
// symbolic link is refused: a rename would replace it. The directory of
// path must exist.
func Check(path string, force bool, inputs []Input) error {
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

// pathError restates an error on a temporary file as one on path.
// The user gave path; the temporary name means nothing to them.
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

// checkNotInput fails when path names one of the inputs. It also fails on a
// file in an input directory (MNIST's IDX files). The same file may be named
// by name, symbolic link or hard link (os.SameFile). No output replaces what
// the user gave, -force or not. A path that does not exist names no input.
func checkNotInput(path string, inputs []Input) error {
	out, err := os.Stat(path)
	if err != nil {
		return nil // absent, or reported by checkTarget
	}
	for _, in := range inputs {
		if in.Path == "" {
			continue
		}
		st, err := os.Stat(in.Path)
		if err != nil {
			continue // the reader reports it
		}
		if os.SameFile(out, st) {
			return fmt.Errorf("%s is the %s file %s; an output never replaces an input, even with -force: give another name", path, in.Flag, in.Path)
		}
		if !st.IsDir() {
			continue
		}
		entries, err := os.ReadDir(in.Path)
		if err != nil {
			continue
		}
		for _, e := range entries {
			name := filepath.Join(in.Path, e.Name())
			if est, err := os.Stat(name); err == nil && os.SameFile(out, est) {
				return fmt.Errorf("%s is %s of the %s directory %s; an output never replaces an input, even with -force: give another name", path, name, in.Flag, in.Path)
			}
		}
	}
	return nil
}

// Write writes a file through write. It writes a temporary file in the
// same directory, which then takes the final name. Without force a hard
// link takes the name; it fails if a file of that name appeared meanwhile.
// With force a rename replaces the file. That file must be a regular file
// that is none of the inputs (see Check). A failed write leaves neither a
// partial file nor a temporary one. Neither does an interrupt or
// termination signal during it (removeOnSignal). Errors name path, never
// the temporary file.
func Write(path string, force bool, inputs []Input, write func(w io.Writer) error) (err error) {
	if err := Check(path, force, inputs); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return pathError("write", path, err)
	}
	name := f.Name()
	defer removeOnSignal(name)()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(name)
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<16)
	if err = write(bw); err != nil {
		return pathError("write", path, err)
	}
	if err = bw.Flush(); err != nil {
		return pathError("write", path, err)
	}
	if err = f.Close(); err != nil {
		return pathError("write", path, err)
	}
	if err = os.Chmod(name, 0o644); err != nil {
		return pathError("write", path, err)
	}
	if force {
		if err = os.Rename(name, path); err != nil {
			return pathError("replace", path, err)
		}
		return nil
	}
	if err = os.Link(name, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s already exists; give -force to replace it, or another name", path)
		}
		// A file system without hard links: rename, having checked
		// that the name is still free.
		if _, serr := os.Lstat(path); !errors.Is(serr, fs.ErrNotExist) {
			return fmt.Errorf("%s already exists; give -force to replace it, or another name", path)
		}
		if err = os.Rename(name, path); err != nil {
			return pathError("write", path, err)
		}
		return nil
	}
	os.Remove(name)
	return nil
}

// removeOnSignal removes the temporary file name on an interrupt,
// termination or hangup signal. It does so until the returned function is
// called. It then raises the signal again, so the program ends as the
// signal would have ended it. No hidden file is left behind. Where a
// signal cannot be raised (Windows) the program exits with status 1.
func removeOnSignal(name string) (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			os.Remove(name)
			signal.Stop(ch)
			if p, err := os.FindProcess(os.Getpid()); err == nil && p.Signal(sig) == nil {
				time.Sleep(time.Second) // the signal's default action ends the program
			}
			os.Exit(1)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}
