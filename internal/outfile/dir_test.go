package outfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCreatable(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, ok := range []string{filepath.Join(dir, "new"), filepath.Join(dir, "a", "b", "c"), dir} {
		if err := Creatable(ok); err != nil {
			t.Errorf("Creatable(%s): %v", ok, err)
		}
	}
	if err := Creatable(filepath.Join(file, "x")); err == nil || err.Error() != file+" is not a directory" {
		t.Errorf("under a file: %v", err)
	}
	// Deeper, looking under the file fails (ENOTDIR), which is the error.
	if err := Creatable(filepath.Join(file, "x", "y")); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("deeper under a file: %v", err)
	}
}
