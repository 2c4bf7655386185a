package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Creatable reports whether os.MkdirAll could create dir. A program can so
// refuse an output directory before its work. The nearest existing
// ancestor of dir must be a directory. The error names that ancestor, or
// is the failure to look at it.
func Creatable(dir string) error {
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		switch {
		case err == nil && st.IsDir():
			return nil
		case err == nil:
			return fmt.Errorf("%s is not a directory", p)
		case !errors.Is(err, fs.ErrNotExist):
			return err
		case p == filepath.Dir(p):
			return nil
		}
	}
}
